package io.jdoca.core.ring;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A bounded lock-free single-producer/single-consumer queue of references, pre-allocated (Lamport
 * ring with cached indices, head and tail on their own cache lines). Hands work between two threads
 * without locks or allocation, e.g. the RDMA tcp transport's I/O thread and the progress engine.
 * Capacity is rounded up to a power of two.
 *
 * <p>Threads: {@link #offer} from one producer thread, {@link #poll} from one consumer thread,
 * {@link #isEmpty} and {@link #capacity} from either. Allocation-free.
 */
public final class SpscRing {
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(SpscRing.class, "head", long.class);
            TAIL = l.findVarHandle(SpscRing.class, "tail", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Object[] buf;
    private final int mask;
    @SuppressWarnings("unused")
    private long p1, p2, p3, p4, p5, p6, p7;
    private volatile long head;
    private long tailCache;
    @SuppressWarnings("unused")
    private long q1, q2, q3, q4, q5, q6, q7;
    private volatile long tail;
    private long headCache;
    @SuppressWarnings("unused")
    private long r1, r2, r3, r4, r5, r6, r7;

    public SpscRing(int capacity) {
        int c = Integer.highestOneBit(Math.max(2, capacity - 1)) << 1;
        this.buf = new Object[c];
        this.mask = c - 1;
    }

    public int capacity() {
        return buf.length;
    }

    /** Producer only. False when full. */
    public boolean offer(Object o) {
        long t = (long) TAIL.getOpaque(this);
        if (t - headCache >= buf.length) {
            headCache = (long) HEAD.getAcquire(this);
            if (t - headCache >= buf.length) {
                return false;
            }
        }
        buf[(int) t & mask] = o;
        TAIL.setRelease(this, t + 1);
        return true;
    }

    /** Consumer only. Null when empty. */
    public Object poll() {
        long h = (long) HEAD.getOpaque(this);
        if (h >= tailCache) {
            tailCache = (long) TAIL.getAcquire(this);
            if (h >= tailCache) {
                return null;
            }
        }
        int i = (int) h & mask;
        Object o = buf[i];
        buf[i] = null;
        HEAD.setRelease(this, h + 1);
        return o;
    }

    /** Either side; a snapshot. */
    public boolean isEmpty() {
        return (long) HEAD.getAcquire(this) >= (long) TAIL.getAcquire(this);
    }
}
