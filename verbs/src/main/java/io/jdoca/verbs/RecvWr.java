package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A receive work request ({@code struct ibv_recv_wr}) with its own scatter/gather array, built once and
 * refilled per post ({@link QueuePair#post(RecvWr)}, {@link SharedReceiveQueue#post}). Nothing allocates.
 *
 * <p>Thread rules: the posting thread.
 */
public final class RecvWr {
    private static final long WR_SIZE = VerbsLayouts.IBV_RECV_WR.byteSize();
    private static final long SGE_SIZE = VerbsLayouts.IBV_SGE.byteSize();

    private final MemorySegment wr;
    private final MemorySegment sges;
    private final int maxSge;

    private RecvWr(MemorySegment wr, MemorySegment sges, int maxSge) {
        this.wr = wr;
        this.sges = sges;
        this.maxSge = maxSge;
        wr.set(ADDRESS, VerbsLayouts.RWR_NEXT, MemorySegment.NULL);
        wr.set(ADDRESS, VerbsLayouts.RWR_SG_LIST, sges);
    }

    /** One request with room for {@code maxSge} elements. */
    public RecvWr(int maxSge) {
        this(Arena.ofAuto(), Math.max(1, maxSge));
    }

    private RecvWr(Arena a, int maxSge) {
        this(a.allocate(VerbsLayouts.IBV_RECV_WR), a.allocate(SGE_SIZE * maxSge, 8), maxSge);
    }

    /** {@code n} requests of {@code maxSge} elements each, in one native block (a receive queue's slots). */
    public static RecvWr[] array(int n, int maxSge) {
        int m = Math.max(1, maxSge);
        Arena a = Arena.ofAuto();
        MemorySegment wrs = a.allocate(WR_SIZE * n, 8);
        MemorySegment sg = a.allocate(SGE_SIZE * m * n, 8);
        RecvWr[] out = new RecvWr[n];
        for (int i = 0; i < n; i++) {
            out[i] = new RecvWr(wrs.asSlice(i * WR_SIZE, WR_SIZE), sg.asSlice(i * SGE_SIZE * m, SGE_SIZE * m), m);
        }
        return out;
    }

    MemorySegment segment() {
        return wr;
    }

    public int maxSge() {
        return maxSge;
    }

    public RecvWr wrId(long id) {
        wr.set(JAVA_LONG, VerbsLayouts.RWR_WR_ID, id);
        return this;
    }

    /** Element {@code k}: room for {@code len} bytes at {@code addr} of a region with local key {@code lkey}. */
    public RecvWr sge(int k, long addr, int len, int lkey) {
        long at = k * SGE_SIZE;
        sges.set(JAVA_LONG, at + VerbsLayouts.SGE_ADDR, addr);
        sges.set(JAVA_INT, at + VerbsLayouts.SGE_LENGTH, len);
        sges.set(JAVA_INT, at + VerbsLayouts.SGE_LKEY, lkey);
        return this;
    }

    public RecvWr numSge(int n) {
        wr.set(JAVA_INT, VerbsLayouts.RWR_NUM_SGE, n);
        return this;
    }
}
