package io.jdoca.nvmf.tgt;

import io.jdoca.core.util.CpuAffinity;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The target's threads as SPDK's {@code thread_get_stats} and {@code framework_get_reactors} show
 * theirs: {@code sta-main} (SPDK's app thread) and one IO engine per IO context ({@code sta-io-<i>},
 * SPDK's poll groups), each with its Linux thread id, the CPU it runs on, its busy and idle time
 * and its user and system CPU time from {@code /proc/self/task/<tid>/stat}. Busy and idle: an
 * engine is idle while asleep in StaIo's wait and busy otherwise (its progress passes and brief
 * spins); {@code sta-main}, which parks when idle, is busy for the CPU time it used and idle for
 * the rest.
 *
 * <p>Threads: {@link #of} on {@code sta-main} (inside {@link NvmfTarget#query}); the engines'
 * figures are single-writer fields read racily, as the metrics read them.
 */
public final class NvmfThreads {
    /** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
    static final long USER_HZ = 100;

    /**
     * One thread: SPDK's name, id and cpumask; its Linux tid; the CPU it is pinned to or last ran
     * on ({@code lcore}); busy, idle and elapsed nanoseconds; user and system time in USER_HZ
     * ticks; its pollers (SPDK's active and timed pollers: an engine's progress pass; sta-main's
     * command queues and its keep-alive duty).
     */
    public record ThreadStat(String name, long id, long tid, int lcore, String cpumask, long busyNanos,
                             long idleNanos, long elapsedNanos, long userTicks, long systemTicks, int activePollers,
                             int timedPollers) {
    }

    private NvmfThreads() {
    }

    /** The Linux thread id of the calling thread ({@code gettid(2)}). */
    static long currentTid() {
        return CpuAffinity.currentTid();
    }

    /** sta-main, then every IO engine. Runs on sta-main ({@link NvmfTarget#query}). */
    static List<ThreadStat> of(NvmfTarget t, List<NvmfEngine> engines) {
        List<ThreadStat> out = new ArrayList<>();
        long now = System.nanoTime();
        List<Integer> pinned = t.cpus();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long mainTid = currentTid();
        long[] mainStat = stat(mainTid);
        long elapsed = engines.isEmpty() ? 0 : now - engines.get(0).startNanos;
        long busy = Math.min(elapsed, Math.max(0, mx.isCurrentThreadCpuTimeSupported()
                ? mx.getCurrentThreadCpuTime() : (mainStat[1] + mainStat[2]) * (1_000_000_000L / USER_HZ)));
        out.add(new ThreadStat("sta-main", 1, mainTid, (int) mainStat[0], allCpus(), busy, elapsed - busy, elapsed,
                mainStat[1], mainStat[2], 1, 1));
        for (NvmfEngine e : engines) {
            long[] s = stat(e.tid);
            long total = now - e.startNanos;
            long idle = Math.min(total, e.idleNanos);
            int cpu = pinned.isEmpty() ? (int) s[0] : pinned.get(e.index % pinned.size());
            String mask = pinned.isEmpty() ? allCpus() : Long.toHexString(1L << (cpu & 63));
            out.add(new ThreadStat(e.roleName(), e.index + 2L, e.tid, cpu, mask, total - idle, idle, total, s[1],
                    s[2], 1, 0));
        }
        return out;
    }

    /** SPDK's cpumask of an unpinned thread: every CPU this process may use. */
    private static String allCpus() {
        int n = Math.min(63, Runtime.getRuntime().availableProcessors());
        return Long.toHexString((1L << n) - 1);
    }

    /** {processor, utime, stime} of thread {@code tid} from /proc (zeros when it cannot be read). */
    static long[] stat(long tid) {
        if (tid <= 0) {
            return new long[3];
        }
        try {
            String s = Files.readString(Path.of("/proc/self/task/" + tid + "/stat"));
            // Fields after the command name, which is in parentheses and may hold spaces: field 3 is first.
            String[] f = s.substring(s.lastIndexOf(')') + 2).trim().split(" ");
            return new long[] {Long.parseLong(f[39 - 3]), Long.parseLong(f[14 - 3]), Long.parseLong(f[15 - 3])};
        } catch (IOException | RuntimeException e) {
            return new long[3];
        }
    }
}
