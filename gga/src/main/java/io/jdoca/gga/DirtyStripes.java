package io.jdoca.gga;

import io.jdoca.storage.common.Msync;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The gateway's dirty-stripe log of one target: one bit per stripe (target block) written while the
 * target was down, or whose write to it was lost with the target; cleared stripe by stripe as the
 * resync rewrites them (docs/STORAGE-GGA.md "Resync"). The bits live in memory, or (issue 29 item 6)
 * in a slice of the gateway's write-ahead file ({@link DirtyLog}): then a stripe that becomes dirty
 * is flushed to the file ({@code msync}) before {@link #mark} returns, i.e. before the degraded write
 * is acknowledged, and the log survives a crash of the gateway or of the host.
 *
 * <p>Thread-safe and lock-free: data-path workers set bits with an atomic OR (no allocation), the
 * resync clears them with an atomic AND, the control thread counts.
 */
public final class DirtyStripes {
    /** Coordinates (segment, byte offset): atomic access to one aligned 64-bit word. */
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();
    private final MemorySegment words;
    private final long stripes;
    private final boolean persistent;

    /** An in-memory log of {@code stripes} stripes (nothing survives the process). */
    public DirtyStripes(long stripes) {
        this(stripes, Arena.ofAuto().allocate(bytesFor(stripes), 8), false);
    }

    /**
     * A log over {@code words} (at least {@link #bytesFor} bytes, 8-byte aligned); {@code persistent}:
     * a shared file mapping, flushed when a stripe becomes dirty.
     */
    DirtyStripes(long stripes, MemorySegment words, boolean persistent) {
        if (stripes < 0 || stripes > (long) Integer.MAX_VALUE * 64) {
            throw new IllegalArgumentException("stripe count " + stripes);
        }
        if (words.byteSize() < bytesFor(stripes)) {
            throw new IllegalArgumentException("a log of " + stripes + " stripes needs " + bytesFor(stripes)
                    + " bytes");
        }
        this.stripes = stripes;
        this.words = words;
        this.persistent = persistent;
    }

    /** Bytes of the bitmap of {@code stripes} stripes (whole 64-bit words). */
    static long bytesFor(long stripes) {
        return ((stripes + 63) >>> 6) * 8;
    }

    /** Number of stripes covered. */
    public long stripes() {
        return stripes;
    }

    /** True when the log is kept in the gateway's write-ahead file. */
    public boolean persistent() {
        return persistent;
    }

    /**
     * Marks {@code stripe} dirty (data path: allocation- and lock-free); out-of-range is ignored. A
     * persistent log flushes the word's page when the bit is new. Returns false only if that flush
     * failed (the write must then not be acknowledged as safe).
     */
    public boolean mark(long stripe) {
        if (stripe < 0 || stripe >= stripes) {
            return true;
        }
        long off = (stripe >>> 6) << 3;
        long bit = 1L << (stripe & 63);
        long before = (long) WORD.getAndBitwiseOr(words, off, bit);
        if (persistent && (before & bit) == 0) {
            return Msync.sync(words.address() + off, 8) == 0;
        }
        return true;
    }

    /** Marks it clean (the resync rewrote it); flushed with the next {@link DirtyLog#force()}. */
    public void clear(long stripe) {
        if (stripe >= 0 && stripe < stripes) {
            WORD.getAndBitwiseAnd(words, (stripe >>> 6) << 3, ~(1L << (stripe & 63)));
        }
    }

    public boolean isDirty(long stripe) {
        return stripe >= 0 && stripe < stripes
                && ((long) WORD.getVolatile(words, (stripe >>> 6) << 3) & (1L << (stripe & 63))) != 0;
    }

    /** The first dirty stripe at or after {@code from}, or -1. */
    public long nextDirty(long from) {
        if (from < 0) {
            from = 0;
        }
        long n = (stripes + 63) >>> 6;
        for (long w = from >>> 6; w < n; w++) {
            long bits = (long) WORD.getVolatile(words, w << 3);
            if (w == from >>> 6) {
                bits &= -1L << (from & 63);
            }
            if (bits != 0) {
                long s = (w << 6) + Long.numberOfTrailingZeros(bits);
                return s < stripes ? s : -1;
            }
        }
        return -1;
    }

    /** Number of dirty stripes. */
    public long count() {
        long n = 0;
        long words64 = (stripes + 63) >>> 6;
        for (long w = 0; w < words64; w++) {
            n += Long.bitCount((long) WORD.getVolatile(words, w << 3));
        }
        return n;
    }
}
