package io.jdoca.sta.nvmf.rdma;

import io.jdoca.verbs.Libc;
import io.jdoca.verbs.Verbs;
import io.jdoca.verbs.VerbsConstants;
import io.jdoca.verbs.VerbsLayouts;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One STA IO engine's completion channel for its NVMe/RDMA queue pairs: the CQs of every
 * queue pair the engine accepts on one device context share it, so an idle engine sleeps in
 * {@code poll(2)} on one descriptor (rdma-core's {@code ibv_get_cq_event} pattern) and wakes at its
 * first completion. A queue pair on a second device gets NULL: its CQ is not armed and the engine
 * polls it (at most 1 ms apart).
 *
 * <p><b>Threads.</b> {@link #channelFor} and {@link #close} run on the control path (the rdma_cm
 * listener's thread, the context's stop) and are synchronized; {@link #await} runs on the engine
 * thread only and allocates nothing (its cells are allocated once, with the channel).
 */
public final class RdmaCompletionChannel {
    private static final System.Logger LOG = System.getLogger(RdmaCompletionChannel.class.getName());
    /** {@code struct pollfd} members (poll.h): fd at 0, events at 4, revents at 6. */
    private static final long POLLFD_EVENTS = 4;
    private static final long POLLFD_REVENTS = 6;

    private final Arena arena;
    private MemorySegment channel = MemorySegment.NULL;
    private MemorySegment context = MemorySegment.NULL;
    private MemorySegment pollFd;
    private MemorySegment cqCell;
    private MemorySegment ctxCell;

    public RdmaCompletionChannel(Arena arena) {
        this.arena = arena;
    }

    /** The completion channel for a CQ on device context {@code ctx}; created on first use. Control path. */
    public synchronized MemorySegment channelFor(MemorySegment ctx) {
        if (channel.equals(MemorySegment.NULL)) {
            channel = Verbs.createCompChannel(ctx);
            context = ctx;
            pollFd = arena.allocate(VerbsLayouts.POLLFD);
            pollFd.set(ValueLayout.JAVA_INT, 0, Verbs.compChannelFd(channel));
            pollFd.set(ValueLayout.JAVA_SHORT, POLLFD_EVENTS, (short) VerbsConstants.POLLIN);
            cqCell = arena.allocate(ValueLayout.ADDRESS);
            ctxCell = arena.allocate(ValueLayout.ADDRESS);
        }
        return context.address() == ctx.address() ? channel : MemorySegment.NULL;
    }

    /** True once a channel exists (the engine can sleep on it). Engine thread. */
    public synchronized boolean open() {
        return !channel.equals(MemorySegment.NULL);
    }

    /**
     * Sleeps until a completion event arrives on the channel or {@code ms} pass; the event is
     * acknowledged at once (one per wake), so a CQ can always be destroyed. The caller armed every
     * CQ and polled once more before (a completion between its last poll and the arm raises no
     * event). Engine thread; call only when {@link #open()}.
     */
    public void await(int ms) {
        MemorySegment ch;
        synchronized (this) {
            ch = channel;
        }
        pollFd.set(ValueLayout.JAVA_SHORT, POLLFD_REVENTS, (short) 0);
        if (Libc.poll(pollFd, 1, ms) > 0
                && (pollFd.get(ValueLayout.JAVA_SHORT, POLLFD_REVENTS) & VerbsConstants.POLLIN) != 0
                && Verbs.getCqEvent(ch, cqCell, ctxCell) == 0) {
            Verbs.ackCqEvents(cqCell.get(ValueLayout.ADDRESS, 0), 1);
        }
    }

    /** Destroys the channel (after every CQ on it is gone). Control path. */
    public synchronized void close() {
        if (!channel.equals(MemorySegment.NULL)) {
            try {
                Verbs.destroyCompChannel(channel);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "completion channel: " + e.getMessage());
            }
            channel = MemorySegment.NULL;
            context = MemorySegment.NULL;
        }
    }
}
