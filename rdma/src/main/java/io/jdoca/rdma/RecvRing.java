package io.jdoca.rdma;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The posted receive tasks of one context (a shared receive queue): one producer (the engine
 * thread posting receives), several consumers (each connection's transport thread, and the engine
 * thread for shared-memory connections) claiming entries with a CAS on the head. Lock-free,
 * pre-allocated. A consumer reads the slot before its CAS; the producer cannot overwrite that slot
 * until the head has moved past it, so a successful CAS always returns the value read.
 */
final class RecvRing {
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(RecvRing.class, "head", long.class);
            TAIL = l.findVarHandle(RecvRing.class, "tail", long.class);
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

    RecvRing(int capacity) {
        int c = Integer.highestOneBit(Math.max(2, capacity - 1)) << 1;
        this.buf = new Object[c];
        this.mask = c - 1;
    }

    /** Producer only. False when full. */
    boolean offer(Object o) {
        long t = (long) TAIL.getOpaque(this);
        if (t - (long) HEAD.getAcquire(this) >= buf.length) {
            return false;
        }
        buf[(int) t & mask] = o;
        TAIL.setRelease(this, t + 1);
        return true;
    }

    /** Any consumer. Null when empty. */
    Object poll() {
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

    boolean isEmpty() {
        return (long) HEAD.getAcquire(this) >= (long) TAIL.getAcquire(this);
    }

    int size() {
        return (int) ((long) TAIL.getAcquire(this) - (long) HEAD.getAcquire(this));
    }
}
