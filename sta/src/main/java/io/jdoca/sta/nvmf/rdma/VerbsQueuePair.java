package io.jdoca.sta.nvmf.rdma;

import static io.jdoca.verbs.VerbsConstants.IBV_ACCESS_LOCAL_WRITE;
import static io.jdoca.verbs.VerbsConstants.IBV_SEND_SIGNALED;
import static io.jdoca.verbs.VerbsConstants.IBV_WR_RDMA_WRITE;
import static io.jdoca.verbs.VerbsConstants.IBV_WR_SEND;
import static io.jdoca.verbs.VerbsConstants.IBV_WR_SEND_WITH_INV;

import io.jdoca.verbs.CmId;
import io.jdoca.verbs.CompletionChannel;
import io.jdoca.verbs.CompletionQueue;
import io.jdoca.verbs.MemoryRegion;
import io.jdoca.verbs.ProtectionDomain;
import io.jdoca.verbs.QueuePair;
import io.jdoca.verbs.SendWr;
import io.jdoca.verbs.VerbsContext;
import io.jdoca.verbs.VerbsException;
import io.jdoca.verbs.WorkCompletions;
import java.lang.foreign.MemorySegment;

/**
 * An RC queue pair on rdma-core for one NVMe/RDMA connection, on the {@code verbs} module's object
 * layer the way SPDK's RDMA transport sits on libibverbs: its own protection domain, one completion
 * queue for sends and receives (on the IO engine's completion channel, so an idle engine sleeps until
 * a completion), the QP created on the rdma_cm id, three memory regions with local access only, and
 * pre-built work requests each post refills (the provider copies them), so posting allocates nothing.
 * A read's RDMA WRITE and its response SEND go to the provider as one chain ({@link #postWriteAndSend}):
 * one doorbell instead of two.
 *
 * <p>Thread rules: the owning IO engine's thread; {@link #disconnect} from any thread. Construction
 * (control path) on the thread that accepts the connection.
 */
public final class VerbsQueuePair implements RdmaQueuePair {
    private static final int WC_BATCH = 16;

    private final CmId id;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final WorkCompletions wcs = new WorkCompletions(WC_BATCH);
    /** A read's data then its response: two requests chained in one post. */
    private final SendWr chainWrite = new SendWr(1);
    private final SendWr chainSend = new SendWr(1);
    private final MemoryRegion[] mrs = new MemoryRegion[3];
    private final long[] bases = new long[3];
    private int recvLkey;
    private int respLkey;
    private int dataLkey;
    private volatile boolean disconnected;
    private boolean polling;
    private boolean destroyPending;
    private boolean destroyed;
    private boolean keepId;

    /**
     * Creates PD, CQ and QP on {@code cmId} (a connection request's id, or a client's resolved id).
     * {@code channel} may be null (no sleeping: the engine polls). Throws {@link VerbsException}
     * with everything made so far freed.
     */
    public VerbsQueuePair(CmId cmId, CompletionChannel channel, int sendDepth, int recvDepth) {
        this.id = cmId;
        VerbsContext ctx = cmId.context();
        if (ctx == null) {
            throw new VerbsException("rdma_cm", "the connection has no RDMA device");
        }
        ProtectionDomain p = null;
        CompletionQueue c = null;
        try {
            p = ctx.allocPd();
            c = ctx.createCq(sendDepth + recvDepth, channel, 0);
            this.qp = cmId.createQp(p, QueuePair.Init.rc(c, sendDepth, recvDepth));
        } catch (VerbsException e) {
            if (c != null) {
                c.close();
            }
            if (p != null) {
                p.close();
            }
            throw e;
        }
        this.pd = p;
        this.cq = c;
        chainWrite.opcode(IBV_WR_RDMA_WRITE).flags(0).numSge(1).next(chainSend);
        chainSend.numSge(1);
    }

    @Override
    public void register(MemorySegment recvArea, MemorySegment respArea, MemorySegment dataArea) {
        MemorySegment[] areas = {recvArea, respArea, dataArea};
        for (int i = 0; i < 3; i++) {
            mrs[i] = pd.register(areas[i], IBV_ACCESS_LOCAL_WRITE);
            bases[i] = areas[i].address();
        }
        recvLkey = mrs[0].lkey();
        respLkey = mrs[1].lkey();
        dataLkey = mrs[2].lkey();
    }

    @Override
    public int postRecv(long wrId, long off, int len) {
        return qp.postRecv(wrId, bases[0] + off, len, recvLkey);
    }

    @Override
    public int postSend(long wrId, long off, int len, boolean invalidate, int rkey) {
        return invalidate
                ? qp.postSendWithInvalidate(wrId, bases[1] + off, len, respLkey, IBV_SEND_SIGNALED, rkey)
                : qp.postSend(wrId, bases[1] + off, len, respLkey, IBV_SEND_SIGNALED);
    }

    @Override
    public int postWrite(long wrId, long off, int len, long raddr, int rkey) {
        return qp.postWrite(wrId, bases[2] + off, len, dataLkey, raddr, rkey, 0);
    }

    @Override
    public int postRead(long wrId, long off, int len, long raddr, int rkey) {
        return qp.postRead(wrId, bases[2] + off, len, dataLkey, raddr, rkey, IBV_SEND_SIGNALED);
    }

    @Override
    public int postWriteAndSend(long writeId, long dataOff, int len, long raddr, int rkey, long sendId, long respOff,
                                int respLen, boolean invalidate, int invalidateRkey) {
        chainWrite.wrId(writeId).rdma(raddr, rkey).sge(0, bases[2] + dataOff, len, dataLkey);
        chainSend.wrId(sendId).opcode(invalidate ? IBV_WR_SEND_WITH_INV : IBV_WR_SEND).flags(IBV_SEND_SIGNALED)
                .invalidateRkey(invalidate ? invalidateRkey : 0).sge(0, bases[1] + respOff, respLen, respLkey);
        return qp.post(chainWrite);
    }

    @Override
    public int poll(RdmaCompletionSink sink, int max) {
        if (destroyed) {
            return 0;
        }
        int n = cq.poll(wcs, Math.min(max, WC_BATCH));
        polling = true;
        try {
            for (int i = 0; i < n && !destroyPending; i++) {
                sink.onCompletion(wcs.wrId(i), wcs.status(i), wcs.byteLen(i));
            }
        } finally {
            polling = false;
        }
        if (destroyPending) {
            destroyNow();
        }
        return n;
    }

    @Override
    public int arm() {
        return destroyed ? 0 : cq.arm();
    }

    @Override
    public MemorySegment cq() {
        return cq.handle();
    }

    @Override
    public void disconnect() {
        if (disconnected) {
            return;
        }
        disconnected = true;
        try {
            id.disconnect();
        } catch (VerbsException e) {
            // not connected (yet, or any more): nothing to tear down on the wire
        }
    }

    /**
     * Leaves the rdma_cm id to the caller on {@link #destroy} (a failed accept: the listener frees it after the event's
     * ack).
     */
    public void keepId() {
        keepId = true;
    }

    @Override
    public void destroy() {
        if (polling) {
            destroyPending = true; // inside a completion callback: free after the batch
            return;
        }
        destroyNow();
    }

    private void destroyNow() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        quietly(qp::close);
        for (MemoryRegion mr : mrs) {
            if (mr != null) {
                quietly(mr::close);
            }
        }
        quietly(cq::close);
        quietly(pd::close);
        if (!keepId) {
            quietly(id::close);
        }
    }

    private static void quietly(Runnable r) {
        try {
            r.run();
        } catch (VerbsException e) {
            System.getLogger(VerbsQueuePair.class.getName()).log(System.Logger.Level.WARNING, e.getMessage());
        }
    }
}
