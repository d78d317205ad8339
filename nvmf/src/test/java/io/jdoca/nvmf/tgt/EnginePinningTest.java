package io.jdoca.nvmf.tgt;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.core.util.CpuAffinity;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.testkit.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 16 item 7: {@code sta-target -m} pins the IO engines; read back from
 * {@code /proc/self/task/*} (fails on main: there was no -m and the engines ran anywhere).
 */
class EnginePinningTest {
    /** "status" and "stat" of this process's task named {@code comm}, or null. */
    static String[] task(String comm) throws IOException {
        try (var ts = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : ts.toList()) {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    if (stat.contains("(" + comm + ")")) {
                        return new String[] {Files.readString(t.resolve("status")), stat};
                    }
                } catch (IOException gone) {
                    // the task ended meanwhile
                }
            }
        }
        return null;
    }

    static int lastCpu(String stat) {
        return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[39 - 3]);
    }

    @Test
    void theIoEngineRunsOnTheCpuOfTheMask() throws Exception {
        assumeTrue(CpuAffinity.allowedCpus().contains(1), "SKIPPED: CPU 1 is not available to this process");
        try (NvmfTarget t = new NvmfTarget(TargetConfig.parse("{\"io_threads\":1}"))) {
            t.setCpus(CpuAffinity.parseCoreMask("-m", "0x2"));
            t.start();
            Await.until(Duration.ofSeconds(20), () -> {
                try {
                    String[] s = task("sta-io-0");
                    return s != null && s[0].contains("Cpus_allowed_list:\t1\n") && lastCpu(s[1]) == 1;
                } catch (IOException e) {
                    return false;
                }
            }, "sta-io-0 to be pinned to and run on CPU 1");
            String[] s = task("sta-io-0");
            assertTrue(s[0].contains("Cpus_allowed_list:\t1\n"), s[0]);
            String[] main = task("sta-main");
            assertTrue(main != null && !main[0].contains("Cpus_allowed_list:\t1\n"), "only the IO engines are pinned");
        }
    }
}
