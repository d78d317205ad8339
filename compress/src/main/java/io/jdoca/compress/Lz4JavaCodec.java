package io.jdoca.compress;

import java.lang.foreign.MemorySegment;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * LZ4 through lz4-java (at.yawk.lz4, the maintained fork): its JNI binding, or its pure-Java safe codec.
 * lz4-java works on ByteBuffers: the segments are viewed through cached whole-segment direct buffers
 * ({@link SegmentBuffers}), so a call allocates nothing once a segment has been seen. Segments
 * that are not native or larger than 2 GiB go to aircompressor's pure-Java codec. One thread at a time.
 */
final class Lz4JavaCodec implements Lz4Codec {
    private final LZ4Compressor compressor;
    private final LZ4SafeDecompressor decompressor;
    private final SegmentBuffers buffers = new SegmentBuffers();
    private final JavaLz4Codec fallback = new JavaLz4Codec();
    private final boolean jni;

    /** {@code jni}: the native instance (JNI); otherwise the pure-Java safe instance. */
    Lz4JavaCodec(boolean jni) {
        this.jni = jni;
        LZ4Factory f = jni ? LZ4Factory.nativeInstance() : LZ4Factory.safeInstance();
        this.compressor = f.fastCompressor();
        this.decompressor = f.safeDecompressor();
    }

    @Override
    public String name() {
        return jni ? "lz4-java-jni" : "lz4-java-safe";
    }

    @Override
    public int compress(MemorySegment src, long srcOff, int srcLen, MemorySegment dst, long dstOff, int dstCap) {
        java.nio.ByteBuffer in = buffers.in(src);
        java.nio.ByteBuffer out = buffers.out(dst);
        if (in == null || out == null) {
            return fallback.compress(src, srcOff, srcLen, dst, dstOff, dstCap);
        }
        if (dstCap < Lz4Codec.maxCompressedLength(srcLen)) {
            return ERR_DST_TOO_SMALL;
        }
        try {
            return compressor.compress(in, (int) srcOff, srcLen, out, (int) dstOff, dstCap);
        } catch (RuntimeException e) {
            return ERR_DST_TOO_SMALL;
        }
    }

    @Override
    public int decompress(MemorySegment src, long srcOff, int srcLen, MemorySegment dst, long dstOff, int dstCap) {
        java.nio.ByteBuffer in = buffers.in(src);
        java.nio.ByteBuffer out = buffers.out(dst);
        if (in == null || out == null) {
            return fallback.decompress(src, srcOff, srcLen, dst, dstOff, dstCap);
        }
        try {
            int n = decompressor.decompress(in, (int) srcOff, srcLen, out, (int) dstOff, dstCap);
            return n >= 0 ? n : JavaLz4Codec.classify(src, srcOff, srcLen, dstCap);
        } catch (RuntimeException e) {
            return JavaLz4Codec.classify(src, srcOff, srcLen, dstCap);
        }
    }
}
