package io.jdoca.sta;

import io.jdoca.core.DocaError;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The command contexts of an NVMe/RDMA queue pair, pre-allocated with it: per context the host's
 * keyed SGL (address, length, key, invalidate), its data buffer (registered, one maximum I/O) and
 * its 16-byte response buffer, in struct-of-arrays form; a map from CID to context for the
 * command layer's calls, which name commands by CID; and the pool of data buffers (fewer than
 * contexts: memory registered per queue pair stays bounded; a capsule waits in the ring's backlog
 * when none is free). Each context walks {@link RdmaCommandState}.
 *
 * <p>Not thread-safe: the owning IO engine's thread.
 */
final class RdmaCommandTable {
    static final int RESP_SIZE = 16;

    final int size;
    final int dataBuffers;
    final int dataSize;
    final MemorySegment respArea;
    /** {@link #dataBuffers} buffers plus one scratch buffer (data of a command the host gave no place for). */
    final MemorySegment dataArea;

    final RdmaCommandState[] state;
    final int[] cid;
    final long[] addr;
    final int[] len;
    final int[] key;
    final boolean[] invalidate;
    final int[] data;
    final StaRequest[] request;
    final int[] readOff;
    final int[] readLen;

    private final int[] freeCtx;
    private int freeCtxTop;
    private final int[] freeData;
    private int freeDataTop;
    /** Open-addressed CID → context + 1 map (linear probing, backward-shift deletion). */
    private final int[] mapCid;
    private final int[] mapCtx;
    private final int mask;
    long badTransitions;

    RdmaCommandTable(Arena arena, int size, int dataBuffers, int dataSize) {
        this.size = size;
        this.dataBuffers = dataBuffers;
        this.dataSize = dataSize;
        this.respArea = arena.allocate((long) size * RESP_SIZE, 64);
        this.dataArea = arena.allocate((long) (dataBuffers + 1) * dataSize, 4096);
        state = new RdmaCommandState[size];
        cid = new int[size];
        addr = new long[size];
        len = new int[size];
        key = new int[size];
        invalidate = new boolean[size];
        data = new int[size];
        request = new StaRequest[size];
        readOff = new int[size];
        readLen = new int[size];
        freeCtx = new int[size];
        for (int i = 0; i < size; i++) {
            state[i] = RdmaCommandState.FREE;
            freeCtx[size - 1 - i] = i;
            data[i] = -1;
        }
        freeCtxTop = size;
        freeData = new int[dataBuffers];
        for (int i = 0; i < dataBuffers; i++) {
            freeData[dataBuffers - 1 - i] = i;
        }
        freeDataTop = dataBuffers;
        int cap = Integer.highestOneBit(Math.max(4, size * 2 - 1)) << 1;
        mapCid = new int[cap];
        mapCtx = new int[cap];
        mask = cap - 1;
    }

    DocaError transition(int ctx, RdmaCommandState next) {
        if (!state[ctx].canTransitionTo(next)) {
            badTransitions++;
            return DocaError.BAD_STATE;
        }
        state[ctx] = next;
        return DocaError.SUCCESS;
    }

    boolean hasFreeContext() {
        return freeCtxTop > 0;
    }

    boolean hasFreeData() {
        return freeDataTop > 0;
    }

    int freeContexts() {
        return freeCtxTop;
    }

    int freeDataBuffers() {
        return freeDataTop;
    }

    /**
     * Takes a context for command {@code c} (FREE → EXECUTING), with a data buffer when
     * {@code needData}; -1 when none is free, -2 when the CID is already outstanding (a host bug).
     */
    int start(int c, boolean needData) {
        if (freeCtxTop == 0 || (needData && freeDataTop == 0)) {
            return -1;
        }
        if (lookup(c) >= 0) {
            return -2;
        }
        int ctx = freeCtx[--freeCtxTop];
        transition(ctx, RdmaCommandState.EXECUTING);
        cid[ctx] = c;
        data[ctx] = needData ? freeData[--freeDataTop] : -1;
        request[ctx] = null;
        put(c, ctx);
        return ctx;
    }

    /** Offset in {@link #dataArea} of the context's data buffer (the scratch buffer when it has none). */
    long dataOffset(int ctx) {
        int d = data[ctx];
        return (long) (d < 0 ? dataBuffers : d) * dataSize;
    }

    long respOffset(int ctx) {
        return (long) ctx * RESP_SIZE;
    }

    /** The response is being sent: the CID is free for the host again (EXECUTING → RESPONDING). */
    void responding(int ctx) {
        remove(cid[ctx]);
        request[ctx] = null;
        transition(ctx, RdmaCommandState.RESPONDING);
    }

    /** The response SEND completed: buffers back (RESPONDING → FREE). */
    void release(int ctx) {
        if (transition(ctx, RdmaCommandState.FREE) != DocaError.SUCCESS) {
            return;
        }
        if (data[ctx] >= 0) {
            freeData[freeDataTop++] = data[ctx];
            data[ctx] = -1;
        }
        freeCtx[freeCtxTop++] = ctx;
    }

    // ------------------------------------------------------------------ CID map

    /** The context of outstanding command {@code c}, or -1. */
    int lookup(int c) {
        int i = mix(c) & mask;
        while (true) {
            int v = mapCtx[i];
            if (v == 0) {
                return -1;
            }
            if (mapCid[i] == c) {
                return v - 1;
            }
            i = (i + 1) & mask;
        }
    }

    private void put(int c, int ctx) {
        int i = mix(c) & mask;
        while (mapCtx[i] != 0) {
            i = (i + 1) & mask;
        }
        mapCid[i] = c;
        mapCtx[i] = ctx + 1;
    }

    private void remove(int c) {
        int i = mix(c) & mask;
        while (true) {
            if (mapCtx[i] == 0) {
                return;
            }
            if (mapCid[i] == c) {
                break;
            }
            i = (i + 1) & mask;
        }
        // Backward-shift deletion keeps every probe chain unbroken without tombstones.
        int hole = i;
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            if (mapCtx[j] == 0) {
                break;
            }
            int home = mix(mapCid[j]) & mask;
            boolean between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
            if (!between) {
                mapCid[hole] = mapCid[j];
                mapCtx[hole] = mapCtx[j];
                hole = j;
            }
        }
        mapCtx[hole] = 0;
    }

    private static int mix(int c) {
        return (c * 0x9E3779B1) >>> 16;
    }
}
