package io.jdoca.sta;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One IO engine's share of the counters of a namespace or back-end queue. Each object that
 * engines count into ({@link StaNamespace}, {@link StaBeQueue}) holds one block per possible
 * engine ({@link Sta#MAX_IO_THREADS}), indexed by {@link StaIo#index()}; readers sum the blocks.
 *
 * <p><b>Threads.</b> Single writer: only engine {@code i} writes block {@code i}, with plain
 * stores (no atomic read-modify-write on the I/O path). Any thread may read: a counter read is
 * a racy snapshot, except {@link #inflight()}, which is published with release/acquire so the
 * control path that waits for it to drain (namespace removal, queue destruction) sees it.
 */
final class StaCounters {
    private static final VarHandle INFLIGHT;

    static {
        try {
            INFLIGHT = MethodHandles.lookup().findVarHandle(StaCounters.class, "inflight", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // Padding keeps two engines' blocks, allocated one after the other, off one cache line.
    @SuppressWarnings("unused")
    private long p0, p1, p2, p3, p4, p5, p6;
    long reads;
    long writes;
    long readBytes;
    long writeBytes;
    long otherOps;
    long errors;
    long timeouts;
    private long inflight;
    @SuppressWarnings("unused")
    private long q0, q1, q2, q3, q4, q5, q6;

    /** Engine thread: one more command executing on the object. */
    void begin() {
        INFLIGHT.setRelease(this, inflight + 1);
    }

    /** Engine thread: one command fewer. */
    void end() {
        INFLIGHT.setRelease(this, inflight - 1);
    }

    long inflight() {
        return (long) INFLIGHT.getAcquire(this);
    }

    static StaCounters[] perEngine() {
        StaCounters[] a = new StaCounters[Sta.MAX_IO_THREADS];
        for (int i = 0; i < a.length; i++) {
            a[i] = new StaCounters();
        }
        return a;
    }

    /** Field selectors for {@link #sum}. */
    enum Field { READS, WRITES, READ_BYTES, WRITE_BYTES, OTHER_OPS, ERRORS, TIMEOUTS, INFLIGHT }

    static long sum(StaCounters[] blocks, Field f) {
        long s = 0;
        for (StaCounters c : blocks) {
            s += switch (f) {
                case READS -> c.reads;
                case WRITES -> c.writes;
                case READ_BYTES -> c.readBytes;
                case WRITE_BYTES -> c.writeBytes;
                case OTHER_OPS -> c.otherOps;
                case ERRORS -> c.errors;
                case TIMEOUTS -> c.timeouts;
                case INFLIGHT -> c.inflight();
            };
        }
        return s;
    }
}
