package io.jdoca.ec;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The native engine: ISA-L's {@code ec_encode_data} with pre-built {@code g_tbls} and pre-allocated
 * pointer arrays, so a call costs one critical downcall. Heap-backed blocks (which ISA-L cannot
 * address) go to the Java engine. One thread at a time.
 */
final class IsalRsEngine implements RsEngine {
    private final MemorySegment srcPtrs;
    private final MemorySegment dstPtrs;
    private final JavaRsEngine fallback = new JavaRsEngine();

    IsalRsEngine() {
        Arena arena = Arena.ofAuto();
        this.srcPtrs = arena.allocate(8L * MAX_INPUTS, 64);
        this.dstPtrs = arena.allocate(8L * MAX_OUTPUTS, 64);
    }

    @Override
    public String name() {
        return "native";
    }

    @Override
    public void encode(int len, RsTables t, MemorySegment[] src, long[] srcOff, MemorySegment[] dst, long[] dstOff) {
        int k = t.k;
        int rows = t.rows;
        for (int j = 0; j < k; j++) {
            MemorySegment s = src[j];
            if (srcOff[j] < 0 || srcOff[j] + len > s.byteSize()) {
                throw new IndexOutOfBoundsException("input block " + j);
            }
            if (!s.isNative()) {
                fallback.encode(len, t, src, srcOff, dst, dstOff);
                return;
            }
            srcPtrs.setAtIndex(ValueLayout.JAVA_LONG, j, s.address() + srcOff[j]);
        }
        for (int r = 0; r < rows; r++) {
            MemorySegment d = dst[r];
            if (dstOff[r] < 0 || dstOff[r] + len > d.byteSize()) {
                throw new IndexOutOfBoundsException("output block " + r);
            }
            if (!d.isNative() || d.isReadOnly()) {
                fallback.encode(len, t, src, srcOff, dst, dstOff);
                return;
            }
            dstPtrs.setAtIndex(ValueLayout.JAVA_LONG, r, d.address() + dstOff[r]);
        }
        Isal.ecEncodeData(len, k, rows, t.isalTbl, srcPtrs, dstPtrs);
    }
}
