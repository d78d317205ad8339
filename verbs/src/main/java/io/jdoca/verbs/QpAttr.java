package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The attributes of a queue-pair state change ({@code struct ibv_qp_attr}), as a reusable flyweight: fill the
 * members a transition needs, then {@link QueuePair#modify} with the matching {@code IBV_QP_*} mask. RESET →
 * INIT takes port, pkey index and access flags; INIT → RTR the path (MTU, address vector), the peer's QP number
 * and PSN and the responder's read depth; RTR → RTS the timeouts, retry counts, own PSN and read depth.
 * {@link #fromCm} lets rdma_cm fill a transition for a connection it set up.
 *
 * <p>Thread rules: one thread; control path.
 */
public final class QpAttr {
    private final MemorySegment attr = Arena.ofAuto().allocate(VerbsLayouts.IBV_QP_ATTR);
    private final MemorySegment mask = Arena.ofAuto().allocate(JAVA_INT);

    /** Zeroes every member (before each transition). */
    public QpAttr clear() {
        attr.fill((byte) 0);
        return this;
    }

    MemorySegment segment() {
        return attr;
    }

    /** {@code qp_state}: {@code IBV_QPS_INIT}, {@code _RTR}, {@code _RTS}, {@code _ERR}. */
    public QpAttr state(int s) {
        attr.set(JAVA_INT, VerbsLayouts.QPA_QP_STATE, s);
        return this;
    }

    /** {@code path_mtu} ({@code enum ibv_mtu}). */
    public QpAttr pathMtu(int mtu) {
        attr.set(JAVA_INT, VerbsLayouts.QPA_PATH_MTU, mtu);
        return this;
    }

    public QpAttr destQpNum(int qpn) {
        attr.set(JAVA_INT, VerbsLayouts.QPA_DEST_QP_NUM, qpn);
        return this;
    }

    public QpAttr rqPsn(int psn) {
        attr.set(JAVA_INT, VerbsLayouts.QPA_RQ_PSN, psn);
        return this;
    }

    public QpAttr sqPsn(int psn) {
        attr.set(JAVA_INT, VerbsLayouts.QPA_SQ_PSN, psn);
        return this;
    }

    /** {@code qp_access_flags}: the remote operations ({@code IBV_ACCESS_REMOTE_*}) peers may do. */
    public QpAttr accessFlags(int flags) {
        attr.set(JAVA_INT, VerbsLayouts.QPA_ACCESS_FLAGS, flags);
        return this;
    }

    public QpAttr pkeyIndex(int index) {
        attr.set(JAVA_SHORT, VerbsLayouts.QPA_PKEY_INDEX, (short) index);
        return this;
    }

    public QpAttr port(int port) {
        attr.set(JAVA_BYTE, VerbsLayouts.QPA_PORT_NUM, (byte) port);
        return this;
    }

    /** RDMA reads and atomics this side may have outstanding as initiator. */
    public QpAttr maxRdAtomic(int n) {
        attr.set(JAVA_BYTE, VerbsLayouts.QPA_MAX_RD_ATOMIC, (byte) n);
        return this;
    }

    /** RDMA reads and atomics peers may have outstanding against this side (responder resources). */
    public QpAttr maxDestRdAtomic(int n) {
        attr.set(JAVA_BYTE, VerbsLayouts.QPA_MAX_DEST_RD_ATOMIC, (byte) n);
        return this;
    }

    /** The RNR NAK timer code (IBA table 45). */
    public QpAttr minRnrTimer(int code) {
        attr.set(JAVA_BYTE, VerbsLayouts.QPA_MIN_RNR_TIMER, (byte) code);
        return this;
    }

    /** Local ACK timeout exponent: 4.096 µs × 2^t. */
    public QpAttr timeout(int t) {
        attr.set(JAVA_BYTE, VerbsLayouts.QPA_TIMEOUT, (byte) t);
        return this;
    }

    public QpAttr retryCnt(int n) {
        attr.set(JAVA_BYTE, VerbsLayouts.QPA_RETRY_CNT, (byte) n);
        return this;
    }

    public QpAttr rnrRetry(int n) {
        attr.set(JAVA_BYTE, VerbsLayouts.QPA_RNR_RETRY, (byte) n);
        return this;
    }

    /** InfiniBand addressing: the peer's LID, no GRH. */
    public QpAttr ahLid(int dlid, int port) {
        attr.set(JAVA_SHORT, VerbsLayouts.QPA_AH_DLID, (short) dlid);
        attr.set(JAVA_BYTE, VerbsLayouts.QPA_AH_IS_GLOBAL, (byte) 0);
        attr.set(JAVA_BYTE, VerbsLayouts.QPA_AH_PORT_NUM, (byte) port);
        return this;
    }

    /** RoCE / global addressing: the peer's GID (16 bytes) and this side's source GID index. */
    public QpAttr ahGlobal(byte[] dgid, int sgidIndex, int hopLimit, int port) {
        attr.set(JAVA_BYTE, VerbsLayouts.QPA_AH_IS_GLOBAL, (byte) 1);
        MemorySegment.copy(dgid, 0, attr, JAVA_BYTE, VerbsLayouts.QPA_AH_DGID, 16);
        attr.set(JAVA_BYTE, VerbsLayouts.QPA_AH_SGID_INDEX, (byte) sgidIndex);
        attr.set(JAVA_BYTE, VerbsLayouts.QPA_AH_HOP_LIMIT, (byte) hopLimit);
        attr.set(JAVA_BYTE, VerbsLayouts.QPA_AH_PORT_NUM, (byte) port);
        return this;
    }

    /**
     * {@code rdma_init_qp_attr}: clears, then lets rdma_cm fill the transition to {@code state} for the connection
     * of {@code id} (the route's address vector, the peer's QP number, the CM's PSNs and timeouts); returns the
     * mask to modify with. Members set after this call override the CM's (add their mask bits).
     */
    public int fromCm(CmId id, int state) {
        clear();
        state(state);
        return RdmaCm.initQpAttr(id.handle(), attr, mask);
    }
}
