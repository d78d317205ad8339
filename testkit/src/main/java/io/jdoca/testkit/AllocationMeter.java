package io.jdoca.testkit;

import java.lang.management.ManagementFactory;

/**
 * Measures bytes allocated by the current thread (HotSpot's ThreadMXBean), to prove a data path
 * allocates nothing in steady state: warm up, then {@link #measure} over many operations.
 */
public final class AllocationMeter {
    private static final com.sun.management.ThreadMXBean BEAN =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private AllocationMeter() {
    }

    /** Bytes allocated so far by the calling thread. */
    public static long allocatedBytes() {
        return BEAN.getCurrentThreadAllocatedBytes();
    }

    /** Runs {@code op} {@code ops} times and returns the bytes the calling thread allocated meanwhile. */
    public static long measure(long ops, Runnable op) {
        // Call once first so the bean's own lazy initialisation is not counted.
        allocatedBytes();
        long before = allocatedBytes();
        for (long i = 0; i < ops; i++) {
            op.run();
        }
        return allocatedBytes() - before;
    }

    /**
     * Result of a steady-state measurement: the best round's operation count and bytes, and how many
     * times the operation ran in all (warm-up and every round), for tests that count completions.
     */
    public record Result(long ops, long bytes, long totalRuns) {
        public double bytesPerOp() {
            return (double) bytes / ops;
        }
    }

    /** Rounds {@link #steadyState} measures at most, keeping the best. */
    public static final int ROUNDS = 5;

    /**
     * Warms {@code op} up for {@code warmup} runs, then measures rounds of {@code ops} runs (at most
     * {@link #ROUNDS}, stopping at the first round that allocates nothing) and returns the round that
     * allocated least. A real per-operation allocation (≥ 16 bytes each time) shows in every round;
     * what one round alone shows is a one-time transient, e.g. the JIT replacing a method mid-round
     * on a loaded machine, and is not steady state.
     */
    public static Result steadyState(long warmup, long ops, Runnable op) {
        for (long i = 0; i < warmup; i++) {
            op.run();
        }
        long bestBytes = Long.MAX_VALUE;
        long runs = warmup;
        for (int round = 0; round < ROUNDS && bestBytes != 0; round++) {
            bestBytes = Math.min(bestBytes, measure(ops, op));
            runs += ops;
        }
        return new Result(ops, bestBytes, runs);
    }
}
