package io.jdoca.compress;

import io.airlift.compress.v3.lz4.Lz4Compressor;
import io.airlift.compress.v3.lz4.Lz4Decompressor;
import io.airlift.compress.v3.lz4.Lz4JavaCompressor;
import io.airlift.compress.v3.lz4.Lz4JavaDecompressor;
import io.airlift.compress.v3.lz4.Lz4NativeCompressor;
import io.airlift.compress.v3.lz4.Lz4NativeDecompressor;
import java.lang.foreign.MemorySegment;

/**
 * LZ4 through aircompressor-v3 (io.airlift:aircompressor-v3). Its native codec is liblz4 bundled
 * in the jar ({@code aircompressor/linux-amd64/liblz4.so}, extracted to {@code aircompressor.tmpdir}
 * or {@code java.io.tmpdir} and bound with FFM; {@code -Dio.airlift.compress.v3.disable-native=true}
 * turns it off), not Debian's liblz4-1. Its MemorySegment API takes exact slices; the slices are
 * short-lived and scalar-replaced by C2. One thread at a time (the compressor owns LZ4 state).
 */
final class AirliftLz4Codec implements Lz4Codec {
    private final Lz4Compressor compressor;
    private final Lz4Decompressor decompressor;
    private final boolean nativeImpl;

    AirliftLz4Codec(boolean nativeImpl) {
        this.nativeImpl = nativeImpl;
        if (nativeImpl) {
            if (!nativeEnabled()) {
                throw new UnsupportedOperationException("aircompressor native liblz4 is not available on this machine");
            }
            this.compressor = new Lz4NativeCompressor();
            this.decompressor = new Lz4NativeDecompressor();
        } else {
            this.compressor = new Lz4JavaCompressor();
            this.decompressor = new Lz4JavaDecompressor();
        }
    }

    static boolean nativeEnabled() {
        try {
            return Lz4NativeCompressor.isEnabled() && Lz4NativeDecompressor.isEnabled();
        } catch (Throwable t) {
            return false;
        }
    }

    @Override
    public String name() {
        return nativeImpl ? "aircompressor-native" : "aircompressor-java";
    }

    @Override
    public int compress(MemorySegment src, long srcOff, int srcLen, MemorySegment dst, long dstOff, int dstCap) {
        if (dstCap < Lz4Codec.maxCompressedLength(srcLen)) {
            // Both aircompressor codecs fail by exception when the output may not fit; stay off that path.
            return ERR_DST_TOO_SMALL;
        }
        try {
            return compressor.compress(src.asSlice(srcOff, srcLen), dst.asSlice(dstOff, dstCap));
        } catch (RuntimeException e) {
            return ERR_DST_TOO_SMALL;
        }
    }

    @Override
    public int decompress(MemorySegment src, long srcOff, int srcLen, MemorySegment dst, long dstOff, int dstCap) {
        try {
            int n = decompressor.decompress(src.asSlice(srcOff, srcLen), dst.asSlice(dstOff, dstCap));
            return n >= 0 ? n : JavaLz4Codec.classify(src, srcOff, srcLen, dstCap);
        } catch (RuntimeException e) {
            // liblz4 cannot tell "corrupt" from "output full"; the safe Java decoder can (error path only).
            return JavaLz4Codec.classify(src, srcOff, srcLen, dstCap);
        }
    }
}
