package io.jdoca.sta.backend;

import io.jdoca.core.DocaError;
import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A back-end ({@code doca_sta_be}): the storage behind namespaces, with one or more
 * {@link StaBeQueue queues} through which the IO engines reach it. jdoca's back-ends are
 * {@link io.jdoca.sta.backend.MemoryBackend memory}, {@link io.jdoca.sta.backend.FileBackend file or block
 * device} and {@link io.jdoca.sta.backend.NullBackend null}. Offsets and lengths are in bytes of the
 * back-end; a back-end namespace id selects a region when a back-end is shared (jdoca back-ends
 * have one namespace, id 1).
 *
 * <p><b>Threads.</b> Created and destroyed on the control path; the I/O methods are called by IO
 * engine threads concurrently (implementations must allow that) and must not allocate.
 */
public abstract class StaBackend {
    private final String name;
    /** Grows only ({@link #grow}); volatile so that every thread sees the new size. */
    private volatile long sizeBytes;
    private final List<StaBeQueue> queues = new CopyOnWriteArrayList<>();
    private volatile StaBeQueue[] queueArray = new StaBeQueue[0];
    private volatile boolean destroyed;

    protected StaBackend(String name, long sizeBytes) {
        this.name = name;
        this.sizeBytes = sizeBytes;
    }

    public final String name() {
        return name;
    }

    /** Capacity in bytes (it may grow: {@link #grow}). */
    public final long sizeBytes() {
        return sizeBytes;
    }

    /** Whether {@link #grow} can make this back-end larger while it is in use (default: no). */
    public boolean canGrow() {
        return false;
    }

    /**
     * Grows the back-end to {@code newBytes} while it may be in use (SPDK's bdev resize before
     * {@code spdk_bdev_notify_blockcnt_change}): when this returns, I/O below {@code newBytes}
     * succeeds on every thread and {@link #sizeBytes()} tells the new size. The namespaces on it
     * keep their size until their owner raises it. Control path, off the IO engines (it may wait for
     * the store). Throws UnsupportedOperationException when {@link #canGrow} is false,
     * IllegalArgumentException when {@code newBytes} is below the current size.
     */
    public void grow(long newBytes) {
        throw new UnsupportedOperationException("a " + kind() + " back-end cannot grow");
    }

    /** Records the size a {@link #grow} reached (never smaller). For subclasses' {@link #grow}. */
    protected final void grown(long newBytes) {
        if (newBytes < sizeBytes) {
            throw new IllegalArgumentException(name + " cannot shrink from " + sizeBytes + " to " + newBytes + " B");
        }
        sizeBytes = newBytes;
    }

    /** Short kind name ("memory", "file", "null"). */
    public abstract String kind();

    /**
     * {@code doca_sta_be_add_queue}: adds a queue. IO engine {@code i} uses queue
     * {@code i % numQueues}. Control path.
     */
    public final synchronized StaBeQueue addQueue() {
        StaBeQueue q = new StaBeQueue(this, queues.size());
        queues.add(q);
        queueArray = queues.toArray(new StaBeQueue[0]);
        return q;
    }

    public final List<StaBeQueue> queues() {
        return new ArrayList<>(queues);
    }

    /** The queue IO engine {@code ioIndex} uses, or null when there is none. Allocation-free. */
    public final StaBeQueue queueFor(int ioIndex) {
        StaBeQueue[] qs = queueArray;
        return qs.length == 0 ? null : qs[ioIndex % qs.length];
    }

    /**
     * Reads {@code len} bytes at {@code offset} into {@code dst} at {@code dstOff}. {@code scratch}
     * is a 4096-aligned engine-owned buffer at least as large as the maximum I/O, for back-ends
     * that need aligned buffers (O_DIRECT). Returns an NVMe status (0 = success). No allocation.
     */
    public abstract int read(long offset, MemorySegment dst, long dstOff, int len, MemorySegment scratch);

    /** Writes {@code len} bytes from {@code src} at {@code srcOff} to {@code offset}; NVMe status. */
    public abstract int write(long offset, MemorySegment src, long srcOff, int len, MemorySegment scratch);

    /** Makes completed writes durable; NVMe status. */
    public int flush() {
        return NvmeStatus.SUCCESS;
    }

    /** Writes zeroes over [offset, offset+len); NVMe status. */
    public abstract int writeZeroes(long offset, long len, MemorySegment scratch);

    /** Deallocates (trims) [offset, offset+len): later reads return zeroes; NVMe status. */
    public int deallocate(long offset, long len, MemorySegment scratch) {
        return writeZeroes(offset, len, scratch);
    }

    /**
     * Opens an IO engine's asynchronous channel to this back-end, with room for {@code depth}
     * operations in flight; null (the default) when the back-end completes inline, as memory and
     * null back-ends do: the engine then calls {@link #read}/{@link #write} itself. Called once
     * per engine, on that engine's thread, at its first I/O to this back-end.
     */
    public StaBackendChannel openChannel(int depth) {
        return null;
    }

    /** Releases resources; after this the back-end fails every I/O. Control path. */
    protected abstract void close();

    /**
     * Destroys the back-end: every later I/O fails. Called by {@code Sta.backendDestroy}, which first
     * checks that no namespace maps to it (applications call that). Control path.
     */
    public final DocaError destroyInternal() {
        destroyed = true;
        close();
        return DocaError.SUCCESS;
    }

    public final boolean isDestroyed() {
        return destroyed;
    }

    @Override
    public String toString() {
        return kind() + "-backend[" + name + ", " + sizeBytes + " B, " + queues.size() + " queue(s)]";
    }
}
