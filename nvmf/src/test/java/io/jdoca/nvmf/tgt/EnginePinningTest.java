package io.jdoca.nvmf.tgt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.core.util.CpuAffinity;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.testkit.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
            // The engine has its CPU to itself: the other threads, the JVM's and this one, were moved off it.
            assertTrue(!CpuAffinity.threadCpus(NvmfThreads.currentTid()).contains(1), "this thread kept off CPU 1");
            String[] jit = task("C2 CompilerThre");
            assertTrue(jit == null || !CpuAffinity.threadCpus(Long.parseLong(jit[1].substring(0, jit[1].indexOf(' '))))
                    .contains(1), "the JIT compiler kept off CPU 1");
        }
        assertTrue(CpuAffinity.threadCpus(NvmfThreads.currentTid()).contains(1), "CPU 1 given back at close");
    }

    @Test
    void theOtherThreadsGetTheCpusTheEnginesLeave() {
        assertEquals(List.of(0, 2, 3), NvmfCpuIsolation.rest(List.of(0, 1, 2, 3), List.of(1)));
        assertEquals(List.of(), NvmfCpuIsolation.rest(List.of(0, 1), List.of(0, 1)));
    }
}
