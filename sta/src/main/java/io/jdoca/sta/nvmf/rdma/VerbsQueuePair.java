package io.jdoca.sta.nvmf.rdma;

import static io.jdoca.verbs.VerbsConstants.IBV_ACCESS_LOCAL_WRITE;
import static io.jdoca.verbs.VerbsConstants.IBV_QPT_RC;
import static io.jdoca.verbs.VerbsConstants.IBV_SEND_SIGNALED;
import static io.jdoca.verbs.VerbsConstants.IBV_WR_RDMA_READ;
import static io.jdoca.verbs.VerbsConstants.IBV_WR_RDMA_WRITE;
import static io.jdoca.verbs.VerbsConstants.IBV_WR_SEND;
import static io.jdoca.verbs.VerbsConstants.IBV_WR_SEND_WITH_INV;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jdoca.verbs.ContextOps;
import io.jdoca.verbs.RdmaCm;
import io.jdoca.verbs.Verbs;
import io.jdoca.verbs.VerbsException;
import io.jdoca.verbs.VerbsLayouts;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An RC queue pair on rdma-core for one NVMe/RDMA connection, built on jdoca's {@code verbs}
 * bindings the way SPDK's RDMA transport sits on libibverbs: its own PD, one CQ for sends and
 * receives (on the IO engine's completion channel, so an idle engine sleeps until a completion),
 * the QP created on the rdma_cm id ({@code rdma_create_qp}), three memory registrations with local
 * access only, and one pre-built work request per kind that each post fills in and hands to the
 * provider (which copies it), so posting allocates nothing.
 *
 * <p>Thread rules: the owning IO engine's thread; {@link #disconnect} from any thread. Construction
 * (control path) on the thread that accepts the connection.
 */
public final class VerbsQueuePair implements RdmaQueuePair {
    private static final long WC_SIZE = VerbsLayouts.IBV_WC.byteSize();
    private static final int WC_BATCH = 16;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment id;
    private final ContextOps ops;
    private final MemorySegment pd;
    private final MemorySegment cq;
    private final MemorySegment qp;
    private final MemorySegment wcs;
    private final MemorySegment badWr;
    private final MemorySegment recvWr;
    private final MemorySegment recvSge;
    private final MemorySegment sendWr;
    private final MemorySegment sendSge;
    private final MemorySegment[] mrs = new MemorySegment[3];
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
     * {@code compChannel} may be NULL (no sleeping: the engine polls). Throws {@link VerbsException}
     * with everything made so far freed.
     */
    public VerbsQueuePair(MemorySegment cmId, MemorySegment compChannel, int sendDepth, int recvDepth) {
        this.id = cmId;
        MemorySegment ctx = RdmaCm.verbs(cmId);
        if (ctx.equals(MemorySegment.NULL)) {
            throw new VerbsException("rdma_cm", "the connection has no RDMA device");
        }
        this.ops = new ContextOps(ctx);
        MemorySegment p = MemorySegment.NULL;
        MemorySegment c = MemorySegment.NULL;
        try {
            p = Verbs.allocPd(ctx);
            c = Verbs.createCq(ctx, sendDepth + recvDepth, compChannel, 0);
            MemorySegment init = arena.allocate(VerbsLayouts.IBV_QP_INIT_ATTR);
            init.set(ADDRESS, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "send_cq"), c);
            init.set(ADDRESS, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "recv_cq"), c);
            init.set(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "cap.max_send_wr"), sendDepth);
            init.set(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "cap.max_recv_wr"), recvDepth);
            init.set(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "cap.max_send_sge"), 1);
            init.set(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "cap.max_recv_sge"), 1);
            init.set(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "qp_type"), IBV_QPT_RC);
            this.qp = RdmaCm.createQp(cmId, p, init);
        } catch (VerbsException e) {
            if (!c.equals(MemorySegment.NULL)) {
                Verbs.destroyCq(c);
            }
            if (!p.equals(MemorySegment.NULL)) {
                Verbs.deallocPd(p);
            }
            arena.close();
            throw e;
        }
        this.pd = p;
        this.cq = c;
        this.wcs = arena.allocate(VerbsLayouts.IBV_WC, WC_BATCH);
        this.badWr = arena.allocate(ADDRESS);
        this.recvSge = arena.allocate(VerbsLayouts.IBV_SGE);
        this.recvWr = arena.allocate(VerbsLayouts.IBV_RECV_WR);
        recvWr.set(ADDRESS, VerbsLayouts.RWR_SG_LIST, recvSge);
        recvWr.set(JAVA_INT, VerbsLayouts.RWR_NUM_SGE, 1);
        this.sendSge = arena.allocate(VerbsLayouts.IBV_SGE);
        this.sendWr = arena.allocate(VerbsLayouts.IBV_SEND_WR);
        sendWr.set(ADDRESS, VerbsLayouts.SWR_SG_LIST, sendSge);
        sendWr.set(JAVA_INT, VerbsLayouts.SWR_NUM_SGE, 1);
    }

    @Override
    public void register(MemorySegment recvArea, MemorySegment respArea, MemorySegment dataArea) {
        MemorySegment[] areas = {recvArea, respArea, dataArea};
        for (int i = 0; i < 3; i++) {
            mrs[i] = Verbs.regMr(pd, areas[i], IBV_ACCESS_LOCAL_WRITE);
            bases[i] = areas[i].address();
        }
        recvLkey = Verbs.lkey(mrs[0]);
        respLkey = Verbs.lkey(mrs[1]);
        dataLkey = Verbs.lkey(mrs[2]);
    }

    @Override
    public int postRecv(long wrId, long off, int len) {
        recvWr.set(JAVA_LONG, VerbsLayouts.RWR_WR_ID, wrId);
        recvSge.set(JAVA_LONG, VerbsLayouts.SGE_ADDR, bases[0] + off);
        recvSge.set(JAVA_INT, VerbsLayouts.SGE_LENGTH, len);
        recvSge.set(JAVA_INT, VerbsLayouts.SGE_LKEY, recvLkey);
        return ops.postRecv(qp, recvWr, badWr);
    }

    private int post(long wrId, int opcode, int flags, long addr, int len, int lkey, long raddr, int rkey, int inv) {
        sendWr.set(JAVA_LONG, VerbsLayouts.SWR_WR_ID, wrId);
        sendWr.set(JAVA_INT, VerbsLayouts.SWR_OPCODE, opcode);
        sendWr.set(JAVA_INT, VerbsLayouts.SWR_SEND_FLAGS, flags);
        sendWr.set(JAVA_INT, VerbsLayouts.SWR_INVALIDATE_RKEY, inv);
        sendWr.set(JAVA_LONG, VerbsLayouts.SWR_RDMA_REMOTE_ADDR, raddr);
        sendWr.set(JAVA_INT, VerbsLayouts.SWR_RDMA_RKEY, rkey);
        sendSge.set(JAVA_LONG, VerbsLayouts.SGE_ADDR, addr);
        sendSge.set(JAVA_INT, VerbsLayouts.SGE_LENGTH, len);
        sendSge.set(JAVA_INT, VerbsLayouts.SGE_LKEY, lkey);
        return ops.postSend(qp, sendWr, badWr);
    }

    @Override
    public int postSend(long wrId, long off, int len, boolean invalidate, int rkey) {
        return post(wrId, invalidate ? IBV_WR_SEND_WITH_INV : IBV_WR_SEND, IBV_SEND_SIGNALED, bases[1] + off, len,
                respLkey, 0, 0, invalidate ? rkey : 0);
    }

    @Override
    public int postWrite(long wrId, long off, int len, long raddr, int rkey) {
        return post(wrId, IBV_WR_RDMA_WRITE, 0, bases[2] + off, len, dataLkey, raddr, rkey, 0);
    }

    @Override
    public int postRead(long wrId, long off, int len, long raddr, int rkey) {
        return post(wrId, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, bases[2] + off, len, dataLkey, raddr, rkey, 0);
    }

    @Override
    public int poll(RdmaCompletionSink sink, int max) {
        if (destroyed) {
            return 0;
        }
        int n = ops.pollCq(cq, Math.min(max, WC_BATCH), wcs);
        polling = true;
        try {
            for (int i = 0; i < n && !destroyPending; i++) {
                long b = i * WC_SIZE;
                sink.onCompletion(wcs.get(JAVA_LONG, b + VerbsLayouts.WC_WR_ID), wcs.get(JAVA_INT, b
                        + VerbsLayouts.WC_STATUS),
                        wcs.get(JAVA_INT, b + VerbsLayouts.WC_BYTE_LEN));
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
        return destroyed ? 0 : ops.reqNotifyCq(cq, false);
    }

    @Override
    public MemorySegment cq() {
        return cq;
    }

    @Override
    public void disconnect() {
        if (disconnected) {
            return;
        }
        disconnected = true;
        try {
            RdmaCm.disconnect(id);
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
        RdmaCm.destroyQp(id);
        for (MemorySegment mr : mrs) {
            if (mr != null) {
                quietly(() -> Verbs.deregMr(mr));
            }
        }
        quietly(() -> Verbs.destroyCq(cq));
        quietly(() -> Verbs.deallocPd(pd));
        if (!keepId) {
            quietly(() -> RdmaCm.destroyId(id));
        }
        arena.close();
    }

    private static void quietly(Runnable r) {
        try {
            r.run();
        } catch (VerbsException e) {
            System.getLogger(VerbsQueuePair.class.getName()).log(System.Logger.Level.WARNING, e.getMessage());
        }
    }
}
