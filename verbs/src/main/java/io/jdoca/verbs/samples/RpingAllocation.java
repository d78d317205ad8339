package io.jdoca.verbs.samples;

/**
 * Bytes a thread allocated per block of {@link #BLOCK} pings ({@code rdma-rping --alloc-report}): HotSpot's
 * per-thread counter, read once per block, into a preallocated ring. The steady-state figure is the least over
 * the blocks after the first two (JIT warm-up).
 *
 * <p>Thread rules: the pinging thread only.
 */
final class RpingAllocation {
    /** Pings per allocation sample. */
    static final int BLOCK = 50;
    private static final com.sun.management.ThreadMXBean BEAN =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    private final long[] bytes = new long[1024];
    private int blocks;
    private int inBlock;
    private long last = -1;

    /** One ping done; reads the counter at the end of each block. Allocation-free. */
    void ping() {
        if (++inBlock < BLOCK) {
            return;
        }
        inBlock = 0;
        long now = BEAN.getCurrentThreadAllocatedBytes();
        if (last >= 0) {
            bytes[blocks++ & (bytes.length - 1)] = now - last;
        }
        last = now;
    }

    String summary() {
        int n = Math.min(blocks, bytes.length);
        if (n <= 2) {
            return "allocation: too few pings for a steady-state figure (need at least " + 4 * BLOCK + ")";
        }
        long best = Long.MAX_VALUE;
        long worst = 0;
        for (int i = 2; i < n; i++) {
            best = Math.min(best, bytes[i]);
            worst = Math.max(worst, bytes[i]);
        }
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < n; i++) {
            all.append(i == 0 ? "" : " ").append(bytes[i]);
        }
        StringBuilder tail = new StringBuilder();
        for (int i = Math.max(2, n - 4); i < n; i++) {
            tail.append(' ').append(bytes[i]);
        }
        // the blocks are in order as long as fewer than bytes.length were taken (reported otherwise)
        return "allocation: " + best + " bytes in the best block of " + BLOCK + " pings after warm-up ("
                + (n - 2) + " blocks measured, worst " + worst + " bytes); last " + Math.min(4, n - 2) + " blocks:"
                + tail + (blocks > bytes.length ? " (ring wrapped)" : "") + "; every block: " + all;
    }
}
