package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A flyweight over an array of {@code struct ibv_wc} ({@link VerbsLayouts#IBV_WC}): {@link CompletionQueue#poll}
 * fills the first n entries and the accessors read entry {@code i} in place. Allocated once; nothing per poll.
 * Immediate data is returned in host order (the wire and {@code ibv_wc} hold it in network order).
 *
 * <p>Thread rules: the poller's thread.
 */
public final class WorkCompletions {
    private static final long SIZE = VerbsLayouts.IBV_WC.byteSize();
    private static final long INVALIDATED_RKEY = VerbsLayouts.offset(VerbsLayouts.IBV_WC, "invalidated_rkey");
    private static final long SRC_QP = VerbsLayouts.offset(VerbsLayouts.IBV_WC, "src_qp");

    private final MemorySegment wcs;
    private final int capacity;

    /** Room for {@code capacity} completions per poll. */
    public WorkCompletions(int capacity) {
        this.capacity = capacity;
        this.wcs = Arena.ofAuto().allocate(VerbsLayouts.IBV_WC, capacity);
    }

    public int capacity() {
        return capacity;
    }

    MemorySegment segment() {
        return wcs;
    }

    public long wrId(int i) {
        return wcs.get(JAVA_LONG, i * SIZE + VerbsLayouts.WC_WR_ID);
    }

    /** {@code enum ibv_wc_status}: {@code IBV_WC_SUCCESS} (0) or the failure. */
    public int status(int i) {
        return wcs.get(JAVA_INT, i * SIZE + VerbsLayouts.WC_STATUS);
    }

    /** {@code enum ibv_wc_opcode} (valid on success): IBV_WC_SEND, IBV_WC_RECV, IBV_WC_RDMA_READ, ... */
    public int opcode(int i) {
        return wcs.get(JAVA_INT, i * SIZE + VerbsLayouts.WC_OPCODE);
    }

    public int vendorErr(int i) {
        return wcs.get(JAVA_INT, i * SIZE + VerbsLayouts.WC_VENDOR_ERR);
    }

    /** Bytes received (receives) or read. */
    public int byteLen(int i) {
        return wcs.get(JAVA_INT, i * SIZE + VerbsLayouts.WC_BYTE_LEN);
    }

    /** The immediate of a SEND/WRITE with immediate, in host order (see {@link #withImm}). */
    public int immData(int i) {
        return Integer.reverseBytes(wcs.get(JAVA_INT, i * SIZE + VerbsLayouts.WC_IMM_DATA));
    }

    /** The rkey a SEND with Invalidate invalidated (see {@link #withInv}). */
    public int invalidatedRkey(int i) {
        return wcs.get(JAVA_INT, i * SIZE + INVALIDATED_RKEY);
    }

    /** The local QP the completion belongs to (the one a shared receive queue's receive landed on). */
    public int qpNum(int i) {
        return wcs.get(JAVA_INT, i * SIZE + VerbsLayouts.WC_QP_NUM);
    }

    public int srcQp(int i) {
        return wcs.get(JAVA_INT, i * SIZE + SRC_QP);
    }

    /** {@code enum ibv_wc_flags}. */
    public int wcFlags(int i) {
        return wcs.get(JAVA_INT, i * SIZE + VerbsLayouts.WC_WC_FLAGS);
    }

    public boolean withImm(int i) {
        return (wcFlags(i) & VerbsConstants.IBV_WC_WITH_IMM) != 0;
    }

    public boolean withInv(int i) {
        return (wcFlags(i) & VerbsConstants.IBV_WC_WITH_INV) != 0;
    }
}
