package io.jdoca.gga;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The gateway's dirty-stripe log of one target: one bit per stripe (target block) written while the
 * target was down, or whose write to it was lost with the target. Kept in memory by the gateway for
 * its lifetime; cleared stripe by stripe as the resync rewrites them (docs/STORAGE-GGA.md "Resync").
 *
 * <p>Thread-safe and lock-free: data-path workers set bits with an atomic OR (no allocation), the
 * resync clears them with an atomic AND, the control thread counts.
 */
public final class DirtyStripes {
    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);
    private final long[] words;
    private final long stripes;

    public DirtyStripes(long stripes) {
        if (stripes < 0 || stripes > (long) Integer.MAX_VALUE * 64) {
            throw new IllegalArgumentException("stripe count " + stripes);
        }
        this.stripes = stripes;
        this.words = new long[(int) ((stripes + 63) >>> 6)];
    }

    /** Number of stripes covered. */
    public long stripes() {
        return stripes;
    }

    /** Marks {@code stripe} dirty (data path: allocation- and lock-free); out-of-range is ignored. */
    public void mark(long stripe) {
        if (stripe >= 0 && stripe < stripes) {
            WORDS.getAndBitwiseOr(words, (int) (stripe >>> 6), 1L << (stripe & 63));
        }
    }

    /** Marks it clean (the resync rewrote it). */
    public void clear(long stripe) {
        if (stripe >= 0 && stripe < stripes) {
            WORDS.getAndBitwiseAnd(words, (int) (stripe >>> 6), ~(1L << (stripe & 63)));
        }
    }

    public boolean isDirty(long stripe) {
        return stripe >= 0 && stripe < stripes
                && ((long) WORDS.getVolatile(words, (int) (stripe >>> 6)) & (1L << (stripe & 63))) != 0;
    }

    /** The first dirty stripe at or after {@code from}, or -1. */
    public long nextDirty(long from) {
        if (from < 0) {
            from = 0;
        }
        for (int w = (int) (from >>> 6); w < words.length; w++) {
            long bits = (long) WORDS.getVolatile(words, w);
            if (w == (int) (from >>> 6)) {
                bits &= -1L << (from & 63);
            }
            if (bits != 0) {
                long s = ((long) w << 6) + Long.numberOfTrailingZeros(bits);
                return s < stripes ? s : -1;
            }
        }
        return -1;
    }

    /** Number of dirty stripes. */
    public long count() {
        long n = 0;
        for (int w = 0; w < words.length; w++) {
            n += Long.bitCount((long) WORDS.getVolatile(words, w));
        }
        return n;
    }
}
