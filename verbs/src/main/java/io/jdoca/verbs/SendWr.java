package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A send work request ({@code struct ibv_send_wr}) with its own scatter/gather array, built once and refilled
 * per post: the opcode ({@code IBV_WR_*}), flags ({@code IBV_SEND_*}), SGEs, and for one-sided operations the
 * remote address and key (a keyed remote address: what a peer's memory region advertises). The provider copies
 * the request when it is posted ({@link QueuePair#post(SendWr)}), so one object serves every post of a slot.
 * Setters return {@code this}; nothing allocates.
 *
 * <p>Thread rules: the posting thread.
 */
public final class SendWr {
    private static final long WR_SIZE = VerbsLayouts.IBV_SEND_WR.byteSize();
    private static final long SGE_SIZE = VerbsLayouts.IBV_SGE.byteSize();

    private final MemorySegment wr;
    private final MemorySegment sges;
    private final int maxSge;

    private SendWr(MemorySegment wr, MemorySegment sges, int maxSge) {
        this.wr = wr;
        this.sges = sges;
        this.maxSge = maxSge;
        wr.set(ADDRESS, VerbsLayouts.SWR_NEXT, MemorySegment.NULL);
        wr.set(ADDRESS, VerbsLayouts.SWR_SG_LIST, sges);
    }

    /** One request with room for {@code maxSge} elements. */
    public SendWr(int maxSge) {
        this(Arena.ofAuto(), maxSge);
    }

    private SendWr(Arena a, int maxSge) {
        this(a.allocate(VerbsLayouts.IBV_SEND_WR), a.allocate(SGE_SIZE * Math.max(1, maxSge), 8), Math.max(1, maxSge));
    }

    /** {@code n} requests of {@code maxSge} elements each, in one native block (a send queue's slots). */
    public static SendWr[] array(int n, int maxSge) {
        int m = Math.max(1, maxSge);
        Arena a = Arena.ofAuto();
        MemorySegment wrs = a.allocate(WR_SIZE * n, 8);
        MemorySegment sg = a.allocate(SGE_SIZE * m * n, 8);
        SendWr[] out = new SendWr[n];
        for (int i = 0; i < n; i++) {
            out[i] = new SendWr(wrs.asSlice(i * WR_SIZE, WR_SIZE), sg.asSlice(i * SGE_SIZE * m, SGE_SIZE * m), m);
        }
        return out;
    }

    MemorySegment segment() {
        return wr;
    }

    public int maxSge() {
        return maxSge;
    }

    public SendWr wrId(long id) {
        wr.set(JAVA_LONG, VerbsLayouts.SWR_WR_ID, id);
        return this;
    }

    /** {@code IBV_WR_SEND}, {@code IBV_WR_RDMA_WRITE}, {@code IBV_WR_RDMA_READ}, ... */
    public SendWr opcode(int opcode) {
        wr.set(JAVA_INT, VerbsLayouts.SWR_OPCODE, opcode);
        return this;
    }

    /** {@code IBV_SEND_SIGNALED} and friends. */
    public SendWr flags(int flags) {
        wr.set(JAVA_INT, VerbsLayouts.SWR_SEND_FLAGS, flags);
        return this;
    }

    /** The immediate of a SEND/WRITE with immediate, in host order (stored in network order, as on the wire). */
    public SendWr immData(int imm) {
        wr.set(JAVA_INT, VerbsLayouts.SWR_IMM_DATA, Integer.reverseBytes(imm));
        return this;
    }

    /** The peer's rkey a SEND with Invalidate ({@code IBV_WR_SEND_WITH_INV}) invalidates. */
    public SendWr invalidateRkey(int rkey) {
        wr.set(JAVA_INT, VerbsLayouts.SWR_INVALIDATE_RKEY, rkey);
        return this;
    }

    /** The keyed remote address of an RDMA READ or WRITE. */
    public SendWr rdma(long remoteAddr, int rkey) {
        wr.set(JAVA_LONG, VerbsLayouts.SWR_RDMA_REMOTE_ADDR, remoteAddr);
        wr.set(JAVA_INT, VerbsLayouts.SWR_RDMA_RKEY, rkey);
        return this;
    }

    /** The remote 8-byte cell and operands of an atomic compare-and-swap or fetch-and-add. */
    public SendWr atomic(long remoteAddr, int rkey, long compareAdd, long swap) {
        wr.set(JAVA_LONG, VerbsLayouts.SWR_ATOMIC_REMOTE_ADDR, remoteAddr);
        wr.set(JAVA_LONG, VerbsLayouts.SWR_ATOMIC_COMPARE_ADD, compareAdd);
        wr.set(JAVA_LONG, VerbsLayouts.SWR_ATOMIC_SWAP, swap);
        wr.set(JAVA_INT, VerbsLayouts.SWR_ATOMIC_RKEY, rkey);
        return this;
    }

    /** Element {@code k}: {@code len} bytes at {@code addr} of a region with local key {@code lkey}. */
    public SendWr sge(int k, long addr, int len, int lkey) {
        long at = k * SGE_SIZE;
        sges.set(JAVA_LONG, at + VerbsLayouts.SGE_ADDR, addr);
        sges.set(JAVA_INT, at + VerbsLayouts.SGE_LENGTH, len);
        sges.set(JAVA_INT, at + VerbsLayouts.SGE_LKEY, lkey);
        return this;
    }

    /** How many of the elements the request uses. */
    public SendWr numSge(int n) {
        wr.set(JAVA_INT, VerbsLayouts.SWR_NUM_SGE, n);
        return this;
    }

    /** The next request of a chain posted at once, or null to end it. */
    public SendWr next(SendWr next) {
        wr.set(ADDRESS, VerbsLayouts.SWR_NEXT, next == null ? MemorySegment.NULL : next.wr);
        return this;
    }
}
