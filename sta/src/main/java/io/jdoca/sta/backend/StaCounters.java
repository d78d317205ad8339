package io.jdoca.sta.backend;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One IO engine's share of the counters of a namespace or back-end queue. Each object that
 * engines count into (a namespace, a {@link StaBeQueue}) holds one block per possible
 * engine ({@link #MAX_ENGINES}), indexed by the engine's index; readers sum the blocks.
 *
 * <p><b>Threads.</b> Single writer: only engine {@code i} writes block {@code i}, with plain
 * stores (no atomic read-modify-write on the I/O path). Any thread may read: a counter read is
 * a racy snapshot, except {@link #inflight()}, which is published with release/acquire so the
 * control path that waits for it to drain (namespace removal, queue destruction) sees it.
 */
public final class StaCounters {
    /** Counter blocks per object: the most IO engines a process may have ({@code Sta.MAX_IO_THREADS}). */
    public static final int MAX_ENGINES = 64;

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
    private long reads;
    private long writes;
    private long readBytes;
    private long writeBytes;
    private long otherOps;
    private long errors;
    private long timeouts;
    private long inflight;
    @SuppressWarnings("unused")
    private long q0, q1, q2, q3, q4, q5, q6;

    /** Engine thread: one read of {@code bytes}. */
    public void read(long bytes) {
        reads++;
        readBytes += bytes;
    }

    /** Engine thread: one write of {@code bytes}. */
    public void write(long bytes) {
        writes++;
        writeBytes += bytes;
    }

    /** Engine thread: one command that is neither a read nor a write (flush, DSM...). */
    public void otherOp() {
        otherOps++;
    }

    /** Engine thread: one command completed with an error. */
    public void error() {
        errors++;
    }

    /** Engine thread: one back-end operation slower than the back-end timeout. */
    public void timeout() {
        timeouts++;
    }

    /** Engine thread: one more command executing on the object. */
    public void begin() {
        INFLIGHT.setRelease(this, inflight + 1);
    }

    /** Engine thread: one command fewer. */
    public void end() {
        INFLIGHT.setRelease(this, inflight - 1);
    }

    public long inflight() {
        return (long) INFLIGHT.getAcquire(this);
    }

    /** One block per possible engine (control path: when the counted object is created). */
    public static StaCounters[] perEngine() {
        StaCounters[] a = new StaCounters[MAX_ENGINES];
        for (int i = 0; i < a.length; i++) {
            a[i] = new StaCounters();
        }
        return a;
    }

    /** Field selectors for {@link #sum}. */
    public enum Field { READS, WRITES, READ_BYTES, WRITE_BYTES, OTHER_OPS, ERRORS, TIMEOUTS, INFLIGHT }

    /** The sum of field {@code f} over every engine's block (a racy snapshot, see the class comment). */
    public static long sum(StaCounters[] blocks, Field f) {
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
