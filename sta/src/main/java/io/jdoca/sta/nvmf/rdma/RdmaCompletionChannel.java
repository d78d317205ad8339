package io.jdoca.sta.nvmf.rdma;

import io.jdoca.verbs.CompletionChannel;
import io.jdoca.verbs.VerbsContext;
import io.jdoca.verbs.VerbsException;

/**
 * One STA IO engine's completion channel for its NVMe/RDMA queue pairs: the CQs of every queue pair
 * the engine accepts on one device context share it, so an idle engine sleeps in {@code poll(2)} on
 * one descriptor (rdma-core's {@code ibv_get_cq_event} pattern) and wakes at its first completion. A
 * queue pair on a second device gets none: its CQ is not armed and the engine polls it (at most 1 ms
 * apart).
 *
 * <p><b>Threads.</b> {@link #channelFor} and {@link #close} run on the control path (the rdma_cm
 * agent's thread, the context's stop) and are synchronized; {@link #await} runs on the engine thread
 * only and allocates nothing.
 */
public final class RdmaCompletionChannel {
    private static final System.Logger LOG = System.getLogger(RdmaCompletionChannel.class.getName());

    private volatile CompletionChannel channel;
    private VerbsContext context;

    /** The completion channel for a CQ on device context {@code ctx}, created on first use; null for another device. */
    public synchronized CompletionChannel channelFor(VerbsContext ctx) {
        if (channel == null) {
            channel = ctx.createCompletionChannel();
            context = ctx;
        }
        return context.handle().address() == ctx.handle().address() ? channel : null;
    }

    /** True once a channel exists (the engine can sleep on it). Engine thread. */
    public boolean open() {
        return channel != null;
    }

    /**
     * Sleeps until a completion event arrives on the channel or {@code ms} pass; the events are taken
     * and acknowledged at once, so a CQ can always be destroyed. The caller armed every CQ and polled
     * once more before (a completion between its last poll and the arm raises no event). Engine thread;
     * call only when {@link #open()}.
     */
    public void await(int ms) {
        channel.await(ms);
    }

    /** Destroys the channel (after every CQ on it is gone). Control path. */
    public synchronized void close() {
        CompletionChannel c = channel;
        if (c != null) {
            try {
                c.close();
            } catch (VerbsException e) {
                LOG.log(System.Logger.Level.WARNING, "completion channel: " + e.getMessage());
            }
            channel = null;
            context = null;
        }
    }
}
