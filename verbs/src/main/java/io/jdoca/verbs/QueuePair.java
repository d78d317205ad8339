package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A queue pair ({@code struct ibv_qp}): created by the owner in a protection domain
 * ({@link ProtectionDomain#createQp}, moved RESET → INIT → RTR → RTS with {@link #modify}), or on an rdma_cm id
 * ({@link CmId#createQp}, moved by the CM as the connection is made). Work goes in with {@link #post(SendWr)} and
 * {@link #post(RecvWr)}, or with the single-element posts ({@link #postSend}, {@link #postSendWithInvalidate},
 * {@link #postWrite}, {@link #postRead}, {@link #postRecv}) that refill a request the QP keeps for them; the
 * provider copies each request, so nothing is allocated per post. Results are the provider's status codes
 * (0, or an errno value: ENOMEM when the queue is full), never exceptions.
 *
 * <p>Thread rules: posts from one thread at a time (the owning engine); state changes and close on the
 * control path.
 */
public final class QueuePair implements AutoCloseable {
    /**
     * What {@code ibv_create_qp} / {@code rdma_create_qp} take ({@code struct ibv_qp_init_attr}): the CQs, an
     * optional SRQ, the queue depths and element counts, the type ({@code IBV_QPT_RC}), and whether every send
     * is signaled.
     */
    public record Init(CompletionQueue sendCq, CompletionQueue recvCq, SharedReceiveQueue srq, int maxSendWr,
            int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData, int qpType, boolean sqSigAll) {
        /** A reliable-connected QP on one CQ for both directions, one element per request. */
        public static Init rc(CompletionQueue cq, int maxSendWr, int maxRecvWr) {
            return new Init(cq, cq, null, maxSendWr, maxRecvWr, 1, 1, 0, VerbsConstants.IBV_QPT_RC, false);
        }

        /** The same with {@code sge} elements per request. */
        public Init withSge(int sendSge, int recvSge) {
            return new Init(sendCq, recvCq, srq, maxSendWr, maxRecvWr, sendSge, recvSge, maxInlineData, qpType,
                    sqSigAll);
        }

        /** The same, receiving from {@code s} instead of its own receive queue. */
        public Init withSrq(SharedReceiveQueue s) {
            return new Init(sendCq, recvCq, s, maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData, qpType,
                    sqSigAll);
        }

        MemorySegment fill(Arena a) {
            MemorySegment s = a.allocate(VerbsLayouts.IBV_QP_INIT_ATTR);
            s.set(ADDRESS, VerbsLayouts.QPI_SEND_CQ, sendCq.handle());
            s.set(ADDRESS, VerbsLayouts.QPI_RECV_CQ, recvCq.handle());
            s.set(ADDRESS, VerbsLayouts.QPI_SRQ, srq == null ? MemorySegment.NULL : srq.handle());
            s.set(JAVA_INT, VerbsLayouts.QPI_MAX_SEND_WR, maxSendWr);
            s.set(JAVA_INT, VerbsLayouts.QPI_MAX_RECV_WR, maxRecvWr);
            s.set(JAVA_INT, VerbsLayouts.QPI_MAX_SEND_SGE, maxSendSge);
            s.set(JAVA_INT, VerbsLayouts.QPI_MAX_RECV_SGE, maxRecvSge);
            s.set(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "cap.max_inline_data"), maxInlineData);
            s.set(JAVA_INT, VerbsLayouts.QPI_QP_TYPE, qpType);
            s.set(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "sq_sig_all"), sqSigAll ? 1 : 0);
            return s;
        }
    }

    private final ContextOps ops;
    private final MemorySegment handle;
    /** The id it was created on ({@code rdma_destroy_qp}), or null ({@code ibv_destroy_qp}). */
    private final CmId cmId;
    private final int qpNum;
    private final MemorySegment badWr = Arena.ofAuto().allocate(ADDRESS);
    private final SendWr send = new SendWr(1);
    private final RecvWr recv = new RecvWr(1);
    private final QpAttr errAttr = new QpAttr();
    private boolean closed;

    QueuePair(ContextOps ops, MemorySegment handle, CmId cmId, Init init) {
        this.ops = ops;
        this.handle = handle;
        this.cmId = cmId;
        this.qpNum = Verbs.qpNum(handle);
        send.numSge(1);
        recv.numSge(1);
    }

    /** The {@code struct ibv_qp *}. */
    public MemorySegment handle() {
        return handle;
    }

    /** The QP number peers address. */
    public int qpNum() {
        return qpNum;
    }

    /** {@code ibv_modify_qp} with the members {@code mask} names ({@code IBV_QP_*}). Throws {@link VerbsException}. */
    public void modify(QpAttr attr, int mask) {
        Verbs.modifyQp(handle, attr.segment(), mask);
    }

    /**
     * Moves the QP to ERR: every posted request comes back flushed ({@code IBV_WC_WR_FLUSH_ERR}), in order. Returns
     * 0 or the errno of a refusal; allocation-free unless it fails.
     */
    public int toError() {
        try {
            errAttr.clear().state(VerbsConstants.IBV_QPS_ERR);
            modify(errAttr, VerbsConstants.IBV_QP_STATE);
            return 0;
        } catch (VerbsException e) {
            return e.errno() == 0 ? -1 : e.errno();
        }
    }

    /** {@code ibv_post_send} of {@code wr} (and whatever it chains): 0 or an errno value. */
    public int post(SendWr wr) {
        return ops.postSend(handle, wr.segment(), badWr);
    }

    /** {@code ibv_post_recv} of {@code wr}: 0 or an errno value. */
    public int post(RecvWr wr) {
        return ops.postRecv(handle, wr.segment(), badWr);
    }

    /** A SEND of {@code len} bytes at {@code addr} (lkey {@code lkey}); {@code flags}: {@code IBV_SEND_*}. */
    public int postSend(long wrId, long addr, int len, int lkey, int flags) {
        send.wrId(wrId).opcode(VerbsConstants.IBV_WR_SEND).flags(flags).sge(0, addr, len, lkey);
        return post(send);
    }

    /** A SEND with Invalidate of the peer's {@code rkey} (NVMe/RDMA's response that ends a remote key's use). */
    public int postSendWithInvalidate(long wrId, long addr, int len, int lkey, int flags, int rkey) {
        send.wrId(wrId).opcode(VerbsConstants.IBV_WR_SEND_WITH_INV).flags(flags).invalidateRkey(rkey)
                .sge(0, addr, len, lkey);
        return post(send);
    }

    /** A SEND with a 32-bit immediate (host order). */
    public int postSendImm(long wrId, long addr, int len, int lkey, int flags, int imm) {
        send.wrId(wrId).opcode(VerbsConstants.IBV_WR_SEND_WITH_IMM).flags(flags).immData(imm)
                .sge(0, addr, len, lkey);
        return post(send);
    }

    /** An RDMA WRITE of local {@code [addr, addr+len)} to the peer's keyed address {@code raddr}/{@code rkey}. */
    public int postWrite(long wrId, long addr, int len, int lkey, long raddr, int rkey, int flags) {
        send.wrId(wrId).opcode(VerbsConstants.IBV_WR_RDMA_WRITE).flags(flags).rdma(raddr, rkey)
                .sge(0, addr, len, lkey);
        return post(send);
    }

    /** An RDMA READ of {@code len} bytes at the peer's {@code raddr}/{@code rkey} into local {@code addr}. */
    public int postRead(long wrId, long addr, int len, int lkey, long raddr, int rkey, int flags) {
        send.wrId(wrId).opcode(VerbsConstants.IBV_WR_RDMA_READ).flags(flags).rdma(raddr, rkey)
                .sge(0, addr, len, lkey);
        return post(send);
    }

    /** A receive of up to {@code len} bytes into {@code addr} (lkey {@code lkey}). */
    public int postRecv(long wrId, long addr, int len, int lkey) {
        recv.wrId(wrId).sge(0, addr, len, lkey);
        return post(recv);
    }

    /** {@code ibv_destroy_qp}, or {@code rdma_destroy_qp} for a QP made on an id. Idempotent; throws on refusal. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (cmId != null) {
            RdmaCm.destroyQp(cmId.handle());
        } else {
            Verbs.destroyQp(handle);
        }
    }
}
