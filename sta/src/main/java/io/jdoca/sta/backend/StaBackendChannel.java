package io.jdoca.sta.backend;

import java.lang.foreign.MemorySegment;

/**
 * One IO engine's asynchronous path to one back-end (SPDK's {@code spdk_io_channel} of a bdev):
 * operations are submitted and their completions reaped later, in the engine's progress, so a
 * slow operation holds up only its own command. Back-ends that complete inline (memory, null)
 * have none ({@link StaBackend#openChannel} returns null); the file back-end's runs on io_uring.
 *
 * <p>Write Zeroes and Deallocate ({@link #OP_WRITE_ZEROES}, {@link #OP_DEALLOCATE}) go through
 * {@link #submitRange} on channels whose {@link #supportsRanges} says so (RBD); on the others the
 * engine keeps calling the back-end's synchronous {@link StaBackend#writeZeroes} and
 * {@link StaBackend#deallocate}.
 *
 * <p><b>Threads.</b> Created, used and closed by one IO engine thread only.
 */
public abstract class StaBackendChannel {
    /** Read {@code len} bytes at {@code offset} into the buffer. */
    public static final int OP_READ = 0;
    /** Write {@code len} bytes of the buffer at {@code offset}. */
    public static final int OP_WRITE = 1;
    /** Make completed writes durable. */
    public static final int OP_FLUSH = 2;
    /** Write zeroes over {@code len} bytes at {@code offset} ({@link #submitRange}). */
    public static final int OP_WRITE_ZEROES = 3;
    /** Deallocate {@code len} bytes at {@code offset}: later reads return zeroes ({@link #submitRange}). */
    public static final int OP_DEALLOCATE = 4;

    /** Receives completions from {@link #poll}. */
    public interface Sink {
        /** Operation {@code tag} finished with NVMe status {@code nvmeStatus} (0 = success). */
        void onComplete(int tag, int nvmeStatus);
    }

    /**
     * Submits one operation. {@code buf} (4096-aligned, engine-owned) stays untouched until its
     * completion. Returns false when no more can be queued now (the caller falls back or waits);
     * never blocks, never allocates.
     */
    public abstract boolean submit(int op, long offset, MemorySegment buf, int len, int tag);

    /**
     * Whether {@link #submitRange} takes {@link #OP_WRITE_ZEROES} and {@link #OP_DEALLOCATE}; false
     * (the default): the caller uses the back-end's synchronous calls for them. Never changes.
     */
    public boolean supportsRanges() {
        return false;
    }

    /**
     * Submits a data-less range operation ({@link #OP_WRITE_ZEROES} or {@link #OP_DEALLOCATE}) of
     * {@code len} bytes at {@code offset}, completed as {@link #submit}'s with {@code tag}. Returns
     * false when no more can be queued now or the channel does not {@link #supportsRanges support}
     * them (the default); never blocks, never allocates.
     */
    public boolean submitRange(int op, long offset, long len, int tag) {
        return false;
    }

    /**
     * Hands submitted operations to the device and reaps finished ones into {@code sink}; returns how many finished.
     */
    public abstract int poll(Sink sink);

    /**
     * Sleeps (engine thread, nothing else to do) until one of this channel's operations may have
     * finished or {@code timeoutNanos} passed; may return early. The default parks for the
     * timeout; a channel that can sleep on its own completions (io_uring) overrides it so the
     * engine wakes on the completion rather than on a timer. Never allocates.
     */
    public void await(long timeoutNanos) {
        java.util.concurrent.locks.LockSupport.parkNanos(timeoutNanos);
    }

    /**
     * A channel that becomes readable when an operation may have finished, for the engine to watch in the selector
     * where it watches its sockets (one sleep for both, no timer), or null (the default) when the channel's
     * completions cannot be selected: the engine then sleeps in {@link #await} with a bounded timeout. Its
     * readiness is reset by {@link #poll} (at the latest after {@link #signalled}), so the engine does not spin on
     * it. Engine thread.
     */
    public java.nio.channels.SelectableChannel selectable() {
        return null;
    }

    /**
     * The engine's selector reported {@link #selectable()} readable: the next {@link #poll} resets its readiness.
     * Between signals a channel may reap its completions without the syscall that resets it (RBD: the read of
     * librbd's event socket), so an engine that polls on without sleeping pays for it only now and then. Engine
     * thread; never allocates.
     */
    public void signalled() {
    }

    /** Operations submitted and not yet reaped. */
    public abstract int outstanding();

    /** Releases the channel; outstanding operations are waited for (bounded) or abandoned. Control path. */
    public abstract void close();
}
