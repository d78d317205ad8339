package io.jdoca.gga;

/**
 * Counters of one GGA worker (per-core statistics DOCA's service prints, plus the degraded-mode
 * ones). {@code downMask} holds the {@link TargetRole} bits of targets this worker lost.
 *
 * <p>Immutable snapshot; any thread.
 */
public record WorkerStats(int core, long ops, long reads, long writes, long recoveries, long degradedReads,
        long failedIos,
        long refusedWrites, long tooBigWrites, long refetches, long peHits, long peMisses, int downMask,
        long illegalTransitions, long dataPathAllocatedBytes, long allocationMeasuredOps) {

    /** PE hit rate in percent (DOCA prints hits / (hits + misses)). */
    public double peHitRate() {
        long total = peHits + peMisses;
        return total == 0 ? 0 : 100.0 * peHits / total;
    }
}
