package io.jdoca.storage.initiator;

import java.io.PrintStream;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The run statistics the initiator prints at the end (reference §4 "Stats printed"): duration,
 * operation count, GiB/s, MIOP/s, PE hit rate, and latency per transaction (min, max, mean, and
 * HdrHistogram percentiles), all in one immutable value.
 */
public record InitiatorStats(double durationSeconds, long operations, long ioSize, long peHits, long peMisses,
        double latencyMinUs, double latencyMaxUs, double latencyMeanUs, double latencyP50Us, double latencyP99Us,
        double latencyP999Us, long dataPathAllocatedBytes) {

    static InitiatorStats of(double seconds, long ops, long ioSize, long hits, long misses, Histogram h,
            long allocated) {
        boolean any = h.getTotalCount() > 0;
        return new InitiatorStats(seconds, ops, ioSize, hits, misses, any ? h.getMinValue() / 1e3 : 0,
                any ? h.getMaxValue() / 1e3 : 0, any ? h.getMean() / 1e3 : 0, any
                        ? h.getValueAtPercentile(50) / 1e3 : 0,
                any ? h.getValueAtPercentile(99) / 1e3 : 0, any ? h.getValueAtPercentile(99.9) / 1e3 : 0, allocated);
    }

    public double gibPerSecond() {
        return durationSeconds <= 0 ? 0 : operations * (double) ioSize / (1L << 30) / durationSeconds;
    }

    public double miops() {
        return durationSeconds <= 0 ? 0 : operations / durationSeconds / 1e6;
    }

    public double peHitRatePercent() {
        long t = peHits + peMisses;
        return t == 0 ? 0 : 100.0 * peHits / t;
    }

    /** The table, in DOCA's order. */
    public void print(PrintStream out) {
        String bar = "+================================================+";
        out.println(bar);
        out.println("| Stats");
        out.println(bar);
        out.printf(Locale.ROOT, "| Duration (seconds): %.6f%n", durationSeconds);
        out.printf(Locale.ROOT, "| Operation count: %d%n", operations);
        out.printf(Locale.ROOT, "| Data rate: %.6f GiB/s%n", gibPerSecond());
        out.printf(Locale.ROOT, "| IO rate: %.6f MIOP/s%n", miops());
        out.printf(Locale.ROOT, "| PE hit rate: %.2f%% (%d:%d)%n", peHitRatePercent(), peHits, peMisses);
        out.println("| Latency:");
        out.printf(Locale.ROOT, "| \tMin: %.3f us%n", latencyMinUs);
        out.printf(Locale.ROOT, "| \tMax: %.3f us%n", latencyMaxUs);
        out.printf(Locale.ROOT, "| \tMean: %.3f us%n", latencyMeanUs);
        out.printf(Locale.ROOT, "| \tp50: %.3f us%n", latencyP50Us);
        out.printf(Locale.ROOT, "| \tp99: %.3f us%n", latencyP99Us);
        out.printf(Locale.ROOT, "| \tp99.9: %.3f us%n", latencyP999Us);
        out.printf(Locale.ROOT, "| Data path allocation: %d bytes (%.3f B/op)%n", dataPathAllocatedBytes,
                operations == 0 ? 0.0 : (double) dataPathAllocatedBytes / operations);
        out.println(bar);
    }
}
