package io.jdoca.ec;

import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;

/**
 * A Reed-Solomon coding engine: computes {@code rows} output blocks as GF(2^8) linear combinations
 * of {@code k} input blocks ({@code out[r] = sum_j c[r][j] * in[j]}), which is encode, decode
 * (with a decode matrix) and update (with an update matrix) alike. Two implementations, byte
 * identical: {@linkplain #isal() ISA-L} through java.lang.foreign, and a
 * {@linkplain #java() Vector API} engine.
 *
 * <p>{@link #create()} picks ISA-L when {@code libisal.so.2} loads, else Java; the system
 * property {@code jdoca.ec.engine=java|native} overrides. An engine instance holds scratch memory:
 * one thread at a time. {@link #encode} allocates nothing and throws nothing for valid arguments.
 */
public interface RsEngine {
    /** Block length granularity: DOCA requires multiples of 64 bytes. */
    int BLOCK_ALIGN = 64;
    /** Largest k (inputs) an engine accepts. */
    int MAX_INPUTS = 64;
    /** Largest number of outputs per call. */
    int MAX_OUTPUTS = 32;

    /** "java" or "native". */
    String name();

    /**
     * Computes {@code t.rows()} output blocks of {@code len} bytes (a positive multiple of 64) at
     * {@code dst[r] + dstOff[r]} from {@code t.k()} input blocks at {@code src[j] + srcOff[j]}.
     * The caller guarantees bounds. Outputs must not overlap inputs.
     */
    void encode(int len, RsTables t, MemorySegment[] src, long[] srcOff, MemorySegment[] dst, long[] dstOff);

    /** The Vector API engine (always available). */
    static RsEngine java() {
        return new JavaRsEngine();
    }

    /** The ISA-L engine; throws UnsupportedOperationException when libisal.so.2 cannot be loaded. */
    static RsEngine isal() {
        if (!Isal.AVAILABLE) {
            throw new UnsupportedOperationException("ISA-L (libisal.so.2) not available: " + Isal.LOAD_ERROR);
        }
        return new IsalRsEngine();
    }

    /** Whether the native (ISA-L) engine can be used on this machine. */
    static boolean isNativeAvailable() {
        return Isal.AVAILABLE;
    }

    /** The engine chosen by {@code -Djdoca.ec.engine} (java|native|auto), default auto. */
    static RsEngine create() {
        String p = EcProperties.ENGINE.asString().trim();
        if (p.equalsIgnoreCase("java")) {
            return java();
        }
        if (p.equalsIgnoreCase("native") || p.equalsIgnoreCase("isal")) {
            return isal();
        }
        if (!p.equalsIgnoreCase("auto")) {
            System.getLogger("io.jdoca.ec").log(Level.WARNING, "unknown jdoca.ec.engine=" + p + ", using auto");
        }
        return Isal.AVAILABLE ? isal() : java();
    }
}
