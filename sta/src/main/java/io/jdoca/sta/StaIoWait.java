package io.jdoca.sta;

import io.jdoca.sta.backend.StaBackendChannel;
import io.jdoca.sta.nvmf.NvmfBackendChannels;
import io.jdoca.sta.nvmf.NvmfQpairState;
import io.jdoca.sta.nvmf.rdma.RdmaCompletionChannel;
import io.jdoca.verbs.CompletionChannel;
import io.jdoca.verbs.VerbsContext;
import java.io.IOException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.function.Consumer;

/**
 * How an idle {@link StaIo} engine sleeps (SPDK's sock group and interrupt mode): a {@link Selector}
 * watching the read readiness of its NVMe/TCP QPs' sockets, the {@link RdmaCompletionChannel} the CQs of
 * its NVMe/RDMA QPs signal, or the back-end's own completions while back-end I/O is in flight. The
 * engine wakes at the first readable socket, completion or hand-over ({@link #wakeup}).
 *
 * <p><b>Threads.</b> {@link #wakeup} and {@link #rdmaChannelFor}: any thread. The rest: the engine's
 * thread ({@link #open} at its start, {@link #close} when it is idle again). Waiting allocates nothing.
 */
final class StaIoWait {
    private static final System.Logger LOG = System.getLogger(StaIoWait.class.getName());

    /** One completion channel per engine (its device context's), shared by the CQs of its RDMA QPs. */
    private final RdmaCompletionChannel rdmaChannel;
    /** What a ready key means: a QP's socket has bytes, or a back-end channel was signalled. */
    private final Consumer<SelectionKey> onReady = StaIoWait::ready;
    private Selector selector;
    /** The selector returned since the last {@link #takeAfterSelect}: its ready keys are known. */
    private boolean afterSelect;

    StaIoWait() {
        this.rdmaChannel = new RdmaCompletionChannel();
    }

    /** Opens the selector (engine start); without one, {@link #await} returns at once. */
    void open() {
        try {
            selector = Selector.open();
        } catch (IOException e) {
            selector = null; // the engine then spins through its idle strategy instead of sleeping here
        }
    }

    /** True while the engine can sleep here (the selector is open). */
    boolean ready() {
        return selector != null;
    }

    /**
     * The completion channel for a CQ on device context {@code ctx} (see {@link RdmaCompletionChannel#channelFor}). Any
     * thread.
     */
    CompletionChannel rdmaChannelFor(VerbsContext ctx) {
        return rdmaChannel.channelFor(ctx);
    }

    /** Watches a new QP's socket for readability (RDMA QPs have none). Engine thread. */
    void watch(StaQp qp) {
        SelectableChannel sc = qp.selectable();
        if (selector != null && sc != null) {
            try {
                sc.register(selector, SelectionKey.OP_READ, qp);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "cannot watch {0}: {1}", qp, e.getMessage());
            }
        }
    }

    /**
     * Watches a back-end channel's completion signal ({@link StaBackendChannel#selectable()}) beside the sockets, so
     * one sleep covers both, and tells the channel when it was signalled ({@link StaBackendChannel#signalled()});
     * false when it cannot (the engine then bounds its sleep). Engine thread.
     */
    boolean watchBackend(StaBackendChannel ch) {
        SelectableChannel sc = ch.selectable();
        if (selector == null || sc == null) {
            return false;
        }
        try {
            sc.register(selector, SelectionKey.OP_READ, ch);
            return true;
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot watch a back-end channel: {0}", e.getMessage());
            return false;
        }
    }

    /** Ends a sleep in the selector early (work was handed over). Any thread. */
    void wakeup() {
        Selector sel = selector;
        if (sel != null) {
            sel.wakeup();
        }
    }

    /**
     * Sleeps until a QP of {@code cur} has something to do or {@code timeoutNanos} pass: on the
     * back-end's completions while it has I/O in flight, on the completion channel when RDMA QPs
     * exist, else in the selector. Returns at once when unsent data waits for a socket or a QP is
     * terminating. Engine thread; call only when {@link #ready()} and no work is pending.
     */
    void await(long timeoutNanos, StaQp[] cur, NvmfBackendChannels beChannels) {
        boolean rdma = hasRdma(cur);
        if (beChannels.busy() == 0 && rdma) {
            awaitRdma(timeoutNanos, cur);
            return;
        }
        if (beChannels.busy() > 0 && (rdma || !beChannels.selectable())) {
            // Back-end completions this selector does not see: sleep on the back-end's own (bounded).
            beChannels.await();
            return;
        }
        for (int i = 0; i < cur.length; i++) {
            if ((cur[i].transport() != null && cur[i].transport().sendPending())
                    || cur[i].state() == NvmfQpairState.TERMINATING) {
                Thread.yield();
                return;
            }
        }
        select(Math.max(1, timeoutNanos / 1_000_000));
    }

    /**
     * An engine with RDMA QPs going idle: arms every CQ, looks once more (a completion that came
     * between the last poll and the arm raises no event), then sleeps in poll(2) on the completion
     * channel (TCP QPs on the same engine: in the selector, at most 1 ms) until a completion.
     */
    private void awaitRdma(long timeoutNanos, StaQp[] cur) {
        boolean sockets = false;
        for (StaQp qp : cur) {
            if (qp.selectable() != null) {
                sockets = true;
            } else if (qp.transport() != null && qp.transport().arm() != 0) {
                Thread.yield();
                return;
            }
        }
        int more = 0;
        for (StaQp qp : cur) {
            if (qp.selectable() == null) {
                more += qp.poll();
            }
        }
        if (more > 0) {
            return;
        }
        if (sockets || !rdmaChannel.open()) {
            select(1);
            return;
        }
        rdmaChannel.await((int) Math.max(1, Math.min(timeoutNanos / 1_000_000, 1000)));
    }

    private void select(long ms) {
        try {
            selector.select(onReady, ms);
            afterSelect = true;
        } catch (IOException | ClosedSelectorException e) {
            Thread.yield();
        }
    }

    private static void ready(SelectionKey k) {
        if (k.attachment() instanceof StaQp qp) {
            qp.readable = true;
        } else if (k.attachment() instanceof StaBackendChannel ch) {
            ch.signalled();
        }
    }

    /**
     * True once after the selector returned: the next progress pass may skip the reads of sockets it did not
     * report readable ({@link StaQpGroup#poll}). Engine thread.
     */
    boolean takeAfterSelect() {
        boolean a = afterSelect;
        afterSelect = false;
        return a;
    }

    /** True when a QP has no socket to select on: it signals the completion channel instead (NVMe/RDMA). */
    private static boolean hasRdma(StaQp[] cur) {
        for (StaQp qp : cur) {
            if (qp.selectable() == null && qp.transport() != null) {
                return true;
            }
        }
        return false;
    }

    /** Closes the selector and the completion channel (engine idle: every QP is gone). */
    void close() {
        if (selector != null) {
            try {
                selector.close();
            } catch (IOException e) {
                // closing anyway
            }
            selector = null;
        }
        rdmaChannel.close();
    }
}
