package io.jdoca.core.agent;

import java.lang.management.ManagementFactory;

/**
 * The one reader of HotSpot's per-thread allocation counter ({@code com.sun.management.ThreadMXBean})
 * in the product: agents and apps report what their data path allocated between two readings (zero
 * in steady state). Tests measure with {@code io.jdoca.testkit.AllocationMeter}, which cannot use this
 * class because core's own tests depend on the testkit. Any thread; a reading allocates nothing.
 */
public final class ThreadAllocation {
    private static final com.sun.management.ThreadMXBean BEAN = bean();

    private ThreadAllocation() {
    }

    private static com.sun.management.ThreadMXBean bean() {
        try {
            com.sun.management.ThreadMXBean b = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            b.getCurrentThreadAllocatedBytes(); // lazy initialisation, so the first real reading is clean
            return b;
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** Bytes allocated by the calling thread so far, or -1 if the JVM cannot tell. */
    public static long current() {
        return BEAN == null ? -1 : BEAN.getCurrentThreadAllocatedBytes();
    }

    /** Bytes allocated so far by {@code thread} (alive), or -1 if the JVM cannot tell. */
    public static long of(Thread thread) {
        return BEAN == null ? -1 : BEAN.getThreadAllocatedBytes(thread.threadId());
    }
}
