package io.jdoca.verbs;

import java.lang.foreign.MemorySegment;

/**
 * A registered memory region ({@code struct ibv_mr}) over a native {@link MemorySegment}: its local key
 * (SGEs of this process's work requests) and remote key (what a peer names in an RDMA READ/WRITE/atomic).
 * The segment stays the caller's: it must outlive {@link #close()} ({@code ibv_dereg_mr}), after which the
 * device no longer touches it.
 *
 * <p>Thread rules: immutable keys, read from any thread; close once, on the control path.
 */
public final class MemoryRegion implements AutoCloseable {
    private final MemorySegment handle;
    private final MemorySegment buffer;
    private final long iova;
    private final int lkey;
    private final int rkey;
    private boolean closed;

    MemoryRegion(MemorySegment handle, MemorySegment buffer, long iova) {
        this.handle = handle;
        this.buffer = buffer;
        this.iova = iova;
        this.lkey = Verbs.lkey(handle);
        this.rkey = Verbs.rkey(handle);
    }

    public int lkey() {
        return lkey;
    }

    public int rkey() {
        return rkey;
    }

    /** The registered memory. */
    public MemorySegment buffer() {
        return buffer;
    }

    /** The address SGEs and peers use for the region's first byte (its virtual address, or its iova). */
    public long address() {
        return iova;
    }

    public long length() {
        return buffer.byteSize();
    }

    /** The {@code struct ibv_mr *}. */
    public MemorySegment handle() {
        return handle;
    }

    /** {@code ibv_dereg_mr}. Idempotent; throws {@link VerbsException} if the device refuses. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            Verbs.deregMr(handle);
        }
    }
}
