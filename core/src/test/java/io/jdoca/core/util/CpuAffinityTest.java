package io.jdoca.core.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Issue 16 item 7: pinning really moves the thread (fails on main: there was no pinning, and
 * {@code --cpu} only labelled the workers).
 */
class CpuAffinityTest {
    static volatile long sink;

    /** Field 39 of /proc/self/task/TID/stat: the CPU the task last ran on. */
    static int lastCpu(String statLine) {
        String[] f = statLine.substring(statLine.lastIndexOf(')') + 2).split(" ");
        return Integer.parseInt(f[39 - 3]);
    }

    /** The stat lines of this process's tasks whose comm is {@code name}. */
    static List<String> taskStats(String name) throws IOException {
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.map(t -> {
                try {
                    return Files.readString(t.resolve("stat"));
                } catch (IOException e) {
                    return "";
                }
            }).filter(l -> l.contains("(" + name + ")")).toList();
        }
    }

    @Test
    void aPinnedThreadRunsOnItsCpu() throws Exception {
        List<Integer> cpus = CpuAffinity.allowedCpus();
        assumeTrue(cpus.contains(0) && cpus.contains(1), "SKIPPED: needs CPUs 0 and 1, this process may use " + cpus);
        for (int cpu : List.of(1, 0)) {
            AtomicReference<String> seen = new AtomicReference<>();
            Thread t = new Thread(() -> {
                CpuAffinity.pinCurrentThread(cpu);
                long x = 0;
                for (int i = 0; i < 5_000_000; i++) {
                    x += i ^ (x >>> 3);
                }
                sink = x; // keeps the loop: the thread must really run after pinning
                try {
                    seen.set(taskStats("pin-test-" + cpu).getFirst());
                    String status = Files.readString(Path.of("/proc/thread-self/status"));
                    assertTrue(status.contains("Cpus_allowed_list:\t" + cpu + "\n"), status);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, "pin-test-" + cpu);
            t.start();
            t.join(30_000);
            assertEquals(cpu, lastCpu(seen.get()), seen.get());
        }
    }

    @Test
    void spreadWalksTheAllowedCpusAndWrapsAround() {
        List<Integer> cpus = CpuAffinity.allowedCpus();
        for (int slot = 0; slot < 2 * cpus.size() + 1; slot++) {
            assertEquals(cpus.get(slot % cpus.size()), CpuAffinity.spread(slot), "slot " + slot);
        }
        if (cpus.size() > 1) {
            assertNotEquals(CpuAffinity.spread(0), CpuAffinity.spread(1), "two slots, two CPUs");
        }
    }

    @Test
    void coreMasksAndOutOfRangeCpus() {
        assertEquals(List.of(0, 1), CpuAffinity.parseCoreMask("-m", "0x3"));
        assertEquals(List.of(1), CpuAffinity.parseCoreMask("-m", "2"));
        assertEquals(List.of(0, 2, 3, 4), CpuAffinity.parseCoreMask("-m", "[0,2-4]"));
        assertThrows(IllegalArgumentException.class, () -> CpuAffinity.parseCoreMask("-m", "0x0"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CpuAffinity.parseCoreMask("-m",
                "zz"));
        assertEquals("-m: 'zz' is not a core mask (e.g. 0x3 or [0,2-3])", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> CpuAffinity.check("--cpu", List.of(1000)));
        assertTrue(e.getMessage().startsWith("--cpu: CPU 1000 is out of range (this process may run on "),
                e.getMessage());
        assertEquals("0-1,4", CpuAffinity.ranges(List.of(0, 1, 4)));
    }

    @Test
    void callUnaffinitizedStartsThreadsOnEveryRecordedCpuAndGivesTheCallerItsOwnBack() throws Exception {
        List<Integer> all = CpuAffinity.allowedCpus();
        assumeTrue(all.size() > 1, "SKIPPED: one CPU only");
        long tid = CpuAffinity.currentTid();
        List<Integer> one = List.of(all.get(0));
        try {
            assertTrue(CpuAffinity.setThreadCpus(tid, one));
            assertEquals(one, CpuAffinity.threadCpus(tid));
            CpuAffinity.setUnaffinitizedCpus(all);
            AtomicReference<List<Integer>> child = new AtomicReference<>();
            List<Integer> inside = CpuAffinity.callUnaffinitized(() -> {
                Thread t = new Thread(() -> child.set(CpuAffinity.threadCpus(CpuAffinity.currentTid())));
                t.start();
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return CpuAffinity.threadCpus(tid);
            });
            assertEquals(all, inside);
            assertEquals(all, child.get(), "a thread started inside inherits every CPU");
            assertEquals(one, CpuAffinity.threadCpus(tid), "the caller has its own CPUs back");
            CpuAffinity.setUnaffinitizedCpus(null);
            assertEquals(one, CpuAffinity.callUnaffinitized(() -> CpuAffinity.threadCpus(tid)), "nothing recorded");
        } finally {
            CpuAffinity.setUnaffinitizedCpus(null);
            CpuAffinity.setThreadCpus(tid, all);
        }
    }
}
