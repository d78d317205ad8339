package io.jdoca.storage.common;

import java.lang.management.ManagementFactory;

/**
 * Bytes allocated by the calling thread (HotSpot's {@code ThreadMXBean}), so the apps' workers can
 * report what their data path allocated between start and stop — zero in steady state. Any thread;
 * the call itself allocates nothing.
 */
public final class ThreadAllocation {
    private static final com.sun.management.ThreadMXBean BEAN = bean();

    private ThreadAllocation() {
    }

    private static com.sun.management.ThreadMXBean bean() {
        try {
            com.sun.management.ThreadMXBean b = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            b.getCurrentThreadAllocatedBytes();
            return b;
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** Allocated bytes of the current thread so far, or -1 if the JVM cannot tell. */
    public static long current() {
        return BEAN == null ? -1 : BEAN.getCurrentThreadAllocatedBytes();
    }
}
