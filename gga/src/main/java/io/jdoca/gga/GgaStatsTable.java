package io.jdoca.gga;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * Prints the GGA service's statistics like DOCA's {@code display_stats} (per core: operation count,
 * PE hit rate, recovery count), plus the degraded-mode lines this implementation adds.
 *
 * <p>Stateless; any thread.
 */
public final class GgaStatsTable {
    private GgaStatsTable() {
    }

    /** Prints the table; {@code lostMask} holds the targets the control thread saw disappear. */
    public static void print(PrintStream out, List<Integer> cpus, List<WorkerStats> stats, int lostMask,
            long runNanos) {
        int down = lostMask;
        long recoveries = 0;
        long degraded = 0;
        for (WorkerStats s : stats) {
            down |= s.downMask();
            recoveries += s.recoveries();
            degraded += s.degradedReads();
        }
        out.println("+================================================+");
        out.println("| GGA offload stats");
        out.println("+================================================+");
        for (WorkerStats s : stats) {
            int core = s.core() < cpus.size() ? cpus.get(s.core()) : s.core();
            out.printf(Locale.ROOT, "| Core: %d%n", core);
            out.printf(Locale.ROOT, "| Operation count: %d (reads %d, writes %d)%n", s.ops(), s.reads(), s.writes());
            out.printf(Locale.ROOT, "| PE hit rate: %.2f%% (%d:%d)%n", s.peHitRate(), s.peHits(), s.peMisses());
            out.printf(Locale.ROOT, "| Recovery count: %d (degraded-mode recoveries %d, refetches %d)%n",
                    s.recoveries(),
                    s.degradedReads(), s.refetches());
            out.printf(Locale.ROOT, "| Failed IOs: %d (writes refused %d, incompressible %d)%n", s.failedIos(),
                    s.refusedWrites(), s.tooBigWrites());
            if (s.allocationMeasuredOps() > 0) {
                out.printf(Locale.ROOT, "| Data path allocation: %d bytes over %d ops after warm-up (%.3f B/op)%n",
                        s.dataPathAllocatedBytes(), s.allocationMeasuredOps(),
                        (double) s.dataPathAllocatedBytes() / s.allocationMeasuredOps());
            }
            out.println("+------------------------------------------------+");
        }
        out.printf(Locale.ROOT, "| Total recovery count: %d%n", recoveries);
        if (down != 0) {
            StringBuilder sb = new StringBuilder();
            for (int r = 0; r < TargetRole.COUNT; r++) {
                if ((down & TargetRole.bit(r)) != 0) {
                    sb.append(sb.isEmpty() ? "" : ", ").append(TargetRole.name(r));
                }
            }
            out.printf(Locale.ROOT, "| Service state: DEGRADED (lost: %s; %d reads served by recovery)%n", sb,
                    degraded);
        } else {
            out.println("| Service state: healthy");
        }
        if (runNanos > 0) {
            out.printf(Locale.ROOT, "| Data path time: %.3f s%n", runNanos / 1e9);
        }
        out.println("+================================================+");
        out.flush();
    }
}
