package io.jdoca.storage.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.core.agent.EngineWorker;
import io.jdoca.core.util.CpuAffinity;
import io.jdoca.testkit.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 16 item 7: {@code --cpu 1} really runs the storage worker on CPU 1, read from
 * {@code /proc/self/task/*} (fails on main: the worker ran wherever the scheduler put it).
 */
class EngineWorkerPinTest {
    static String stat(String comm) {
        try (var ts = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : ts.toList()) {
                try {
                    String s = Files.readString(t.resolve("stat"));
                    if (s.contains("(" + comm + ")")) {
                        return s + "\n" + Files.readString(t.resolve("status"));
                    }
                } catch (IOException gone) {
                    // the task ended meanwhile
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    static int lastCpu(String stat) {
        String first = stat.lines().findFirst().orElseThrow();
        return Integer.parseInt(first.substring(first.lastIndexOf(')') + 2).split(" ")[39 - 3]);
    }

    @Test
    void cpuOneRunsTheWorkerOnCpuOne() {
        assumeTrue(CpuAffinity.allowedCpus().contains(1), "SKIPPED: CPU 1 is not available to this process");
        try (EngineWorker w = EngineWorker.withEngine("pe-pin-test", AppSupport.workerIdle())) {
            w.pin(1);
            Await.until(Duration.ofSeconds(20), () -> {
                w.execute(() -> null, 5_000_000_000L); // the worker runs again after pinning
                String s = stat("pe-pin-test");
                return s != null && s.contains("Cpus_allowed_list:\t1\n") && lastCpu(s) == 1;
            }, "the worker to run on CPU 1");
            assertThat(stat("pe-pin-test")).contains("Cpus_allowed_list:\t1\n");
        }
    }
}
