package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An rdma_cm event channel ({@code struct rdma_event_channel}): the events of every {@link CmId} created on it
 * arrive here, in order. Its fd is made non-blocking, so {@link #next} never blocks and the owner sleeps where
 * it likes ({@link #await}, {@code poll} with a {@link PollSet}, an {@code epoll}). A process with engines uses
 * one channel through {@link CmEventAgent}; a single-threaded program (rping, the NVMe/RDMA host) owns one.
 *
 * <p>Thread rules: one thread takes events; creation and {@link #close()} on the control path.
 */
public final class CmEventChannel implements AutoCloseable {
    private final MemorySegment handle;
    private final int fd;
    private final MemorySegment cell = Arena.ofAuto().allocate(ADDRESS);
    private final PollSet pollSet = new PollSet(1);
    private boolean closed;

    private CmEventChannel(MemorySegment handle) {
        this.handle = handle;
        this.fd = RdmaCm.eventChannelFd(handle);
        pollSet.set(0, fd);
    }

    /** {@code rdma_create_event_channel}, made non-blocking. Throws {@link VerbsException}. */
    public static CmEventChannel create() {
        MemorySegment h = RdmaCm.createEventChannel();
        try {
            Libc.setNonBlocking(RdmaCm.eventChannelFd(h));
        } catch (VerbsException e) {
            RdmaCm.destroyEventChannel(h);
            throw e;
        }
        return new CmEventChannel(h);
    }

    /** The {@code struct rdma_event_channel *}. */
    public MemorySegment handle() {
        return handle;
    }

    /** Readable while an event waits. */
    public int fd() {
        return fd;
    }

    /**
     * Takes the next event into {@code ev} if one waits ({@code rdma_get_cm_event}); false if none (or the
     * channel failed). The event is held until {@link CmEvent#ack()}; take no other before acknowledging it.
     */
    public boolean next(CmEvent ev) {
        if (closed || RdmaCm.tryGetCmEvent(handle, cell) != 0) {
            return false;
        }
        ev.hold(cell.get(ADDRESS, 0));
        return true;
    }

    /** Waits up to {@code timeoutMs} (-1: no bound) for an event and takes it ({@link #next}). */
    public boolean await(CmEvent ev, int timeoutMs) {
        if (next(ev)) {
            return true;
        }
        return pollSet.poll(timeoutMs) > 0 && next(ev);
    }

    /** {@code rdma_destroy_event_channel}: after every id on it is destroyed. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            RdmaCm.destroyEventChannel(handle);
        }
    }
}
