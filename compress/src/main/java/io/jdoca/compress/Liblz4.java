package io.jdoca.compress;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Direct java.lang.foreign bindings to the system liblz4 ({@code liblz4.so.1}, Debian
 * {@code liblz4-1}; override with {@code -Djdoca.compress.liblz4=PATH}). Every data-path call is a
 * critical downcall taking raw addresses as 64-bit integers, which is what makes a call cost a few
 * nanoseconds and allocate nothing (aircompressor's MemorySegment API needs a slice object per
 * argument and a regular downcall). Thread-safe (static handles; state belongs to the caller).
 */
// FFM: this class is a native binding; its downcall handles and reinterpreted segments are the point
@SuppressWarnings("restricted")
final class Liblz4 {
    static final boolean AVAILABLE;
    static final String LOAD_ERROR;
    static final int VERSION;
    static final int STATE_SIZE;
    private static final MethodHandle INIT_STREAM;
    private static final MethodHandle COMPRESS_FAST_EXT_STATE;
    private static final MethodHandle DECOMPRESS_SAFE;
    private static final MethodHandle DECOMPRESS_SAFE_USING_DICT;

    static {
        MethodHandle init = null;
        MethodHandle comp = null;
        MethodHandle dec = null;
        MethodHandle decDict = null;
        String err = null;
        int version = 0;
        int stateSize = 0;
        try {
            SymbolLookup l = SymbolLookup.libraryLookup(CompressProperties.LIBLZ4.asString(), Arena.global());
            Linker linker = Linker.nativeLinker();
            Linker.Option crit = Linker.Option.critical(false);
            ValueLayout.OfInt i = ValueLayout.JAVA_INT;
            ValueLayout.OfLong p = ValueLayout.JAVA_LONG; // pointers as addresses: no MemorySegment per call
            version = (int) linker.downcallHandle(l.findOrThrow("LZ4_versionNumber"), FunctionDescriptor.of(i))
                    .invokeExact();
            stateSize = (int) linker.downcallHandle(l.findOrThrow("LZ4_sizeofState"), FunctionDescriptor.of(i))
                    .invokeExact();
            init = linker.downcallHandle(l.findOrThrow("LZ4_initStream"), FunctionDescriptor.of(p, p, p));
            comp = linker.downcallHandle(l.findOrThrow("LZ4_compress_fast_extState"),
                    FunctionDescriptor.of(i, p, p, p, i, i, i), crit);
            dec = linker.downcallHandle(l.findOrThrow("LZ4_decompress_safe"),
                    FunctionDescriptor.of(i, p, p, i, i), crit);
            decDict = linker.downcallHandle(l.findOrThrow("LZ4_decompress_safe_usingDict"),
                    FunctionDescriptor.of(i, p, p, i, i, p, i), crit);
            if (version < 10900) {
                throw new UnsupportedOperationException("liblz4 " + version + " is older than 1.9.0");
            }
        } catch (Throwable t) {
            err = t.toString();
            comp = null;
        }
        AVAILABLE = comp != null;
        LOAD_ERROR = err;
        VERSION = version;
        STATE_SIZE = stateSize;
        INIT_STREAM = init;
        COMPRESS_FAST_EXT_STATE = comp;
        DECOMPRESS_SAFE = dec;
        DECOMPRESS_SAFE_USING_DICT = decDict;
    }

    private Liblz4() {
    }

    /** {@code LZ4_initStream(buffer, size)}; control path. */
    static long initStream(long buffer, long size) {
        try {
            return (long) INIT_STREAM.invokeExact(buffer, size);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * One independent block: {@code LZ4_compress_fast_extState} at acceleration 1 (what
     * {@code LZ4_compress_fast} and LZ4F at level 1 run; same output as the lz4 CLI at -1), with the
     * state pre-allocated instead of on the C stack. Measured interleaved against the exported
     * alternative ({@code LZ4_resetStream_fast} + {@code LZ4_compress_fast_continue}, which skips
     * the 16 KiB table clear but uses a 32-bit table): extState is ~15 % faster on 4 KiB text here.
     * 0 when the output does not fit.
     */
    static int compressBlock(long state, long src, long dst, int srcLen, int dstCap) {
        try {
            return (int) COMPRESS_FAST_EXT_STATE.invokeExact(state, src, dst, srcLen, dstCap, 1);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code LZ4_decompress_safe}: the decoded length or a negative value. */
    static int decompressSafe(long src, long dst, int srcLen, int dstCap) {
        try {
            return (int) DECOMPRESS_SAFE.invokeExact(src, dst, srcLen, dstCap);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code LZ4_decompress_safe_usingDict}: matches may reach into {@code dict[0, dictLen)}. */
    static int decompressSafeUsingDict(long src, long dst, int srcLen, int dstCap, long dict, int dictLen) {
        try {
            return (int) DECOMPRESS_SAFE_USING_DICT.invokeExact(src, dst, srcLen, dstCap, dict, dictLen);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
