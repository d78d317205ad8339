package io.jdoca.compress;

import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;

/**
 * An LZ4 block codec (the raw format of the LZ4 block spec, no framing) over MemorySegments.
 * Implementations: aircompressor-v3's native liblz4 through FFM (default when it loads), its
 * pure-Java codec (fallback), and lz4-java's JNI binding. All produce standard LZ4 blocks that any
 * LZ4 decoder reads; decompression is always the bounds-checked ("safe") variant.
 *
 * <p>Methods return a length (&ge; 0) or a negative status and never throw for any input: library
 * exceptions are caught at this boundary, so corrupt data cannot escape as an exception onto the
 * data path. An instance holds compressor state: one thread at a time.
 */
public interface Lz4Codec {
    /** Corrupt or truncated input. */
    int ERR_MALFORMED = -1;
    /** The output does not fit in the destination. */
    int ERR_DST_TOO_SMALL = -2;

    /** "liblz4-ffm", "aircompressor-native", "aircompressor-java", "lz4-java-jni", "lz4-java-safe" or "java". */
    String name();

    /** LZ4's worst-case compressed size ({@code LZ4_compressBound}). */
    static int maxCompressedLength(int srcLen) {
        return srcLen + srcLen / 255 + 16;
    }

    /**
     * Compresses {@code src[srcOff, srcOff+srcLen)} into {@code dst} at {@code dstOff}, writing at
     * most {@code dstCap} bytes; returns the compressed length or {@link #ERR_DST_TOO_SMALL}.
     */
    int compress(MemorySegment src, long srcOff, int srcLen, MemorySegment dst, long dstOff, int dstCap);

    /**
     * Decompresses one block; returns the decompressed length, {@link #ERR_MALFORMED} or
     * {@link #ERR_DST_TOO_SMALL}. Never reads outside {@code src[srcOff, srcOff+srcLen)} nor writes
     * outside {@code dst[dstOff, dstOff+dstCap)}.
     */
    int decompress(MemorySegment src, long srcOff, int srcLen, MemorySegment dst, long dstOff, int dstCap);

    /** The system liblz4 (Debian liblz4-1) through jdoca's own critical FFM downcalls; throws if it cannot load. */
    static Lz4Codec liblz4() {
        return new Liblz4Codec();
    }

    /** Whether the system liblz4 loaded. */
    static boolean isLiblz4Available() {
        return Liblz4Codec.available();
    }

    /** lz4-java's pure-Java safe codec (no JNI, no Unsafe; its compressor allocates a hash table per call). */
    static Lz4Codec lz4JavaSafe() {
        return new Lz4JavaCodec(false);
    }

    /** aircompressor-v3 with its bundled native liblz4 (FFM); throws if it cannot load. */
    static Lz4Codec aircompressorNative() {
        return new AirliftLz4Codec(true);
    }

    /** aircompressor-v3's pure-Java LZ4. */
    static Lz4Codec aircompressorJava() {
        return new AirliftLz4Codec(false);
    }

    /** lz4-java (at.yawk.lz4) through JNI; throws if its native library cannot load. */
    static Lz4Codec lz4JavaJni() {
        return new Lz4JavaCodec(true);
    }

    /** jdoca's own bounds-checked, allocation-free pure-Java codec: the fallback when no native LZ4 loads. */
    static Lz4Codec javaSafe() {
        return new JavaLz4Codec();
    }

    /** Whether aircompressor's native liblz4 loaded on this machine. */
    static boolean isNativeAvailable() {
        return AirliftLz4Codec.nativeEnabled();
    }

    /**
     * The codec {@code -Djdoca.compress.lz4.engine} names (liblz4, aircompressor-native,
     * aircompressor-java, lz4-java, lz4-java-safe, pure-java); by default the system liblz4 through FFM,
     * else aircompressor's native codec, else jdoca's pure-Java codec. The default is the one
     * whose data path allocates nothing (aircompressor's MemorySegment API needs slice objects).
     */
    static Lz4Codec create() {
        String p = CompressProperties.LZ4_ENGINE.asString().trim().toLowerCase(java.util.Locale.ROOT);
        switch (p) {
            case "liblz4", "liblz4-ffm":
                return liblz4();
            case "native", "aircompressor-native":
                return aircompressorNative();
            case "java", "aircompressor-java":
                return aircompressorJava();
            case "lz4-java", "lz4-java-jni", "jni":
                return lz4JavaJni();
            case "lz4-java-safe":
                return lz4JavaSafe();
            case "jdoca-java", "pure-java":
                return javaSafe();
            case "auto":
                break;
            default:
                System.getLogger("io.jdoca.compress").log(Level.WARNING,
                        "unknown jdoca.compress.lz4.engine=" + p + ", using auto");
        }
        if (isLiblz4Available()) {
            return liblz4();
        }
        if (isNativeAvailable()) {
            System.getLogger("io.jdoca.compress").log(Level.INFO,
                    "system liblz4 unavailable; using aircompressor's bundled liblz4");
            return aircompressorNative();
        }
        System.getLogger("io.jdoca.compress").log(Level.INFO, "no native LZ4; using jdoca's pure-Java codec");
        return javaSafe();
    }
}
