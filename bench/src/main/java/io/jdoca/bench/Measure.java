package io.jdoca.bench;

import io.jdoca.core.agent.ThreadAllocation;

/** Shared measurement helpers for suites: allocated bytes of this thread, timing loops, progress output. */
public final class Measure {
    private Measure() {
    }

    /** Bytes this thread allocated so far (core's {@link ThreadAllocation}, the product's one reader). */
    public static long allocatedBytes() {
        return ThreadAllocation.current();
    }

    /** Something to run n times. */
    @FunctionalInterface
    public interface Op {
        void run(long i);
    }

    /** Runs {@code op} in a loop for about {@code nanos}, in batches of {@code batch}; returns ops per second. */
    public static double opsPerSecond(long nanos, long batch, Op op) {
        long ops = 0;
        long t0 = System.nanoTime();
        long end = t0 + nanos;
        long now;
        do {
            for (long i = 0; i < batch; i++) {
                op.run(i);
            }
            ops += batch;
            now = System.nanoTime();
        } while (now < end);
        return ops * 1e9 / (now - t0);
    }

    /** Median of {@code runs} measurements of {@link #opsPerSecond}. */
    public static double medianOpsPerSecond(int runs, long nanos, long batch, Op op) {
        double[] r = new double[runs];
        for (int i = 0; i < runs; i++) {
            r[i] = opsPerSecond(nanos, batch, op);
        }
        java.util.Arrays.sort(r);
        return r[runs / 2];
    }

    public static void progress(String what) {
        System.err.println("  .. " + what);
    }
}
