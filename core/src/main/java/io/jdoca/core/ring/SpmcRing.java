package io.jdoca.core.ring;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A bounded lock-free single-producer/multi-consumer queue of references, pre-allocated: consumers
 * claim entries with a CAS on the head. A consumer reads the slot before its CAS; the producer cannot
 * overwrite that slot until the head has moved past it, so a successful CAS always returns the value
 * read. RDMA keeps a context's posted receives in one (a shared receive queue: the engine thread
 * posts, each connection's transport thread and the engine claim).
 *
 * <p>Threads: {@link #offer} from one producer thread; {@link #poll} from any number of threads;
 * {@link #isEmpty} and {@link #size} from any thread (snapshots). Allocation-free.
 */
public final class SpmcRing {
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(SpmcRing.class, "head", long.class);
            TAIL = l.findVarHandle(SpmcRing.class, "tail", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Object[] buf;
    private final int mask;
    @SuppressWarnings("unused")
    private long p1, p2, p3, p4, p5, p6, p7;
    private volatile long head;
    @SuppressWarnings("unused")
    private long q1, q2, q3, q4, q5, q6, q7;
    private volatile long tail;
    @SuppressWarnings("unused")
    private long r1, r2, r3, r4, r5, r6, r7;

    public SpmcRing(int capacity) {
        int c = Integer.highestOneBit(Math.max(2, capacity - 1)) << 1;
        this.buf = new Object[c];
        this.mask = c - 1;
    }

    /** Producer only. False when full. */
    public boolean offer(Object o) {
        long t = (long) TAIL.getOpaque(this);
        if (t - (long) HEAD.getAcquire(this) >= buf.length) {
            return false;
        }
        buf[(int) t & mask] = o;
        TAIL.setRelease(this, t + 1);
        return true;
    }

    /** Any consumer. Null when empty. */
    public Object poll() {
        for (;;) {
            long h = (long) HEAD.getAcquire(this);
            if (h >= (long) TAIL.getAcquire(this)) {
                return null;
            }
            Object o = buf[(int) h & mask];
            if (HEAD.compareAndSet(this, h, h + 1)) {
                return o;
            }
        }
    }

    public boolean isEmpty() {
        return (long) HEAD.getAcquire(this) >= (long) TAIL.getAcquire(this);
    }

    public int size() {
        return (int) ((long) TAIL.getAcquire(this) - (long) HEAD.getAcquire(this));
    }
}
