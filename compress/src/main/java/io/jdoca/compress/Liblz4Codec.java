package io.jdoca.compress;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * LZ4 through the system liblz4 bound directly with java.lang.foreign ({@link Liblz4}): critical
 * downcalls on raw addresses, LZ4 state pre-allocated, so a block costs liblz4's own time and no
 * allocation. Ranges are checked here before any address reaches C; heap-backed segments go to the
 * bounds-checked Java decoder / aircompressor's Java compressor. One thread at a time.
 */
final class Liblz4Codec implements Lz4Codec {
    private final MemorySegment state;
    private final JavaLz4Codec fallback = new JavaLz4Codec();

    Liblz4Codec() {
        if (!Liblz4.AVAILABLE) {
            throw new UnsupportedOperationException("system liblz4 (liblz4.so.1) not available: " + Liblz4.LOAD_ERROR);
        }
        this.state = Arena.ofAuto().allocate(Liblz4.STATE_SIZE, 64);
        if (Liblz4.initStream(state.address(), state.byteSize()) == 0) {
            throw new IllegalStateException("LZ4_initStream failed");
        }
    }

    static boolean available() {
        return Liblz4.AVAILABLE;
    }

    @Override
    public String name() {
        return "liblz4-ffm";
    }

    private static boolean inRange(MemorySegment s, long off, long len) {
        return off >= 0 && len >= 0 && off + len <= s.byteSize();
    }

    @Override
    public int compress(MemorySegment src, long srcOff, int srcLen, MemorySegment dst, long dstOff, int dstCap) {
        if (!inRange(src, srcOff, srcLen) || !inRange(dst, dstOff, dstCap) || dst.isReadOnly()) {
            return ERR_MALFORMED;
        }
        if (!src.isNative() || !dst.isNative()) {
            return fallback.compress(src, srcOff, srcLen, dst, dstOff, dstCap);
        }
        int n = Liblz4.compressBlock(state.address(), src.address() + srcOff, dst.address() + dstOff, srcLen, dstCap);
        return n > 0 || srcLen == 0 && n == 0 ? n : ERR_DST_TOO_SMALL;
    }

    @Override
    public int decompress(MemorySegment src, long srcOff, int srcLen, MemorySegment dst, long dstOff, int dstCap) {
        if (!inRange(src, srcOff, srcLen) || !inRange(dst, dstOff, dstCap) || dst.isReadOnly()) {
            return ERR_MALFORMED;
        }
        if (!src.isNative() || !dst.isNative()) {
            return fallback.decompress(src, srcOff, srcLen, dst, dstOff, dstCap);
        }
        int n = Liblz4.decompressSafe(src.address() + srcOff, dst.address() + dstOff, srcLen, dstCap);
        return n >= 0 ? n : JavaLz4Codec.classify(src, srcOff, srcLen, dstCap);
    }

    /** A dependent block whose window is {@code dst[windowOff, dstOff)}, just before the output. */
    int decompressWithPrefix(MemorySegment src, long srcOff, int srcLen,
            MemorySegment dst, long dstOff, int dstCap, long windowOff) {
        if (!inRange(src, srcOff, srcLen) || !inRange(dst, dstOff, dstCap) || windowOff < 0 || windowOff > dstOff
                || dst.isReadOnly()) {
            return ERR_MALFORMED;
        }
        if (!src.isNative() || !dst.isNative()) {
            return JavaLz4Codec.decodeBlock(src, srcOff, srcLen, dst, dstOff, dstCap, windowOff);
        }
        long base = dst.address();
        int n = Liblz4.decompressSafeUsingDict(src.address() + srcOff, base + dstOff, srcLen, dstCap, base + windowOff,
                (int) (dstOff - windowOff));
        return n >= 0 ? n : JavaLz4Codec.classify(src, srcOff, srcLen, dstCap);
    }
}
