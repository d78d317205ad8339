package io.jdoca.ec;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The pure-Java engine, three kernels chosen per coefficient matrix:
 * <ul>
 *   <li>all-ones rows (1-parity Vandermonde, e.g. the GGA 2+1 layout): plain XOR;</li>
 *   <li>ISA-L's Vandermonde parity with m &le; 4 (row r = powers of 2^r): Horner's rule with GF
 *       doublings (add, compare, blend, XOR), no table lookups;</li>
 *   <li>anything else (Cauchy, decode and update rows): split-nibble lookups like ISA-L's SIMD
 *       kernels: each byte's low and high nibble index a 16-entry product table
 *       ({@code selectFrom}, a byte permute) and the two lookups XOR into the product; every input
 *       vector is loaded once per pass and feeds up to four output rows.</li>
 * </ul>
 * Species in a static final ({@code -Djdoca.ec.vectorBits} overrides). Allocation-free; one
 * thread at a time.
 */
final class JavaRsEngine implements RsEngine {
    static final VectorSpecies<Byte> SPECIES = species(Integer.getInteger("jdoca.ec.vectorBits", 0));
    /** Lanes per vector; a 64-byte block is a whole number of vectors for every species up to 512 bits. */
    static final int VLEN = SPECIES.length();
    private static final ByteOrder BO = ByteOrder.nativeOrder();
    private static final ByteVector ZERO = ByteVector.zero(SPECIES);
    /** {@code -Djdoca.ec.horner=false} forces the table kernel for Vandermonde rows too (benchmarks, tests). */
    private static final boolean HORNER = Boolean.parseBoolean(System.getProperty("jdoca.ec.horner", "true"));
    private static final boolean WORD_SHIFT = Boolean.parseBoolean(System.getProperty("jdoca.ec.wordShift", String.valueOf(VLEN >= 32)));

    private static VectorSpecies<Byte> species(int bits) {
        VectorSpecies<Byte> pref = ByteVector.SPECIES_PREFERRED;
        VectorSpecies<Byte> s = switch (bits) {
            case 128 -> ByteVector.SPECIES_128;
            case 256 -> ByteVector.SPECIES_256;
            case 512 -> ByteVector.SPECIES_512;
            default -> pref;
        };
        if (s.vectorBitSize() > pref.vectorBitSize() || s.length() < 16) {
            s = pref.length() >= 16 ? pref : ByteVector.SPECIES_128;
        }
        return s;
    }

    @Override
    public String name() {
        return "java";
    }

    @Override
    public void encode(int len, RsTables t, MemorySegment[] src, long[] srcOff, MemorySegment[] dst, long[] dstOff) {
        int rows = t.rows;
        if (t.allXor) {
            for (int r = 0; r < rows; r++) {
                xor(len, t.k, src, srcOff, dst[r], dstOff[r]);
            }
            return;
        }
        if (t.horner && HORNER) {
            horner(len, t, src, srcOff, dst, dstOff);
            return;
        }
        int r = 0;
        while (r < rows) {
            int n = rows - r;
            if (n >= 4) {
                rows4(len, t, r, src, srcOff, dst, dstOff);
                r += 4;
            } else if (n == 3) {
                rows3(len, t, r, src, srcOff, dst, dstOff);
                r += 3;
            } else if (n == 2) {
                rows2(len, t, r, src, srcOff, dst, dstOff);
                r += 2;
            } else {
                rows1(len, t, r, src, srcOff, dst, dstOff);
                r += 1;
            }
        }
    }

    /** GF(2^8) doubling: shift left, reduce by 0x1d where the top bit was set. Add/compare/blend only. */
    private static ByteVector dbl(ByteVector v) {
        return v.add(v).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, v.lt((byte) 0)));
    }

    private static ByteVector x(ByteVector a, ByteVector b) {
        return a.lanewise(VectorOperators.XOR, b);
    }

    /**
     * ISA-L's Vandermonde parity (row r: {@code c_rj = (2^r)^j}) by Horner's rule:
     * {@code p_r = x_0 + 2^r(x_1 + 2^r(x_2 + ...))}. Each input vector is loaded once and costs,
     * per row r, r doublings (four simple instructions each) and one XOR, against two byte permutes
     * per coefficient for the table kernel: this keeps the 4+2 and 8+3 encodes near ISA-L on CPUs
     * whose widest byte permute is AVX2's. One straight-line kernel per row count so every vector
     * stays in a register.
     */
    private static void horner(int len, RsTables t, MemorySegment[] src, long[] srcOff, MemorySegment[] dst, long[] dstOff) {
        int last = t.k - 1;
        switch (t.rows) {
            case 1 -> xor(len, t.k, src, srcOff, dst[0], dstOff[0]);
            case 2 -> horner2(len, last, src, srcOff, dst, dstOff);
            case 3 -> horner3(len, last, src, srcOff, dst, dstOff);
            default -> horner4(len, last, src, srcOff, dst, dstOff);
        }
    }

    private static void horner2(int len, int last, MemorySegment[] src, long[] srcOff, MemorySegment[] dst, long[] dstOff) {
        for (long off = 0; off < len; off += VLEN) {
            ByteVector a0 = load(src[last], srcOff[last] + off);
            ByteVector a1 = a0;
            for (int j = last - 1; j >= 0; j--) {
                ByteVector v = load(src[j], srcOff[j] + off);
                a0 = x(a0, v);
                a1 = x(dbl(a1), v);
            }
            a0.intoMemorySegment(dst[0], dstOff[0] + off, BO);
            a1.intoMemorySegment(dst[1], dstOff[1] + off, BO);
        }
    }

    private static void horner3(int len, int last, MemorySegment[] src, long[] srcOff, MemorySegment[] dst, long[] dstOff) {
        for (long off = 0; off < len; off += VLEN) {
            ByteVector a0 = load(src[last], srcOff[last] + off);
            ByteVector a1 = a0;
            ByteVector a2 = a0;
            for (int j = last - 1; j >= 0; j--) {
                ByteVector v = load(src[j], srcOff[j] + off);
                a0 = x(a0, v);
                a1 = x(dbl(a1), v);
                a2 = x(dbl(dbl(a2)), v);
            }
            a0.intoMemorySegment(dst[0], dstOff[0] + off, BO);
            a1.intoMemorySegment(dst[1], dstOff[1] + off, BO);
            a2.intoMemorySegment(dst[2], dstOff[2] + off, BO);
        }
    }

    private static void horner4(int len, int last, MemorySegment[] src, long[] srcOff, MemorySegment[] dst, long[] dstOff) {
        for (long off = 0; off < len; off += VLEN) {
            ByteVector a0 = load(src[last], srcOff[last] + off);
            ByteVector a1 = a0;
            ByteVector a2 = a0;
            ByteVector a3 = a0;
            for (int j = last - 1; j >= 0; j--) {
                ByteVector v = load(src[j], srcOff[j] + off);
                a0 = x(a0, v);
                a1 = x(dbl(a1), v);
                a2 = x(dbl(dbl(a2)), v);
                a3 = x(dbl(dbl(dbl(a3))), v);
            }
            a0.intoMemorySegment(dst[0], dstOff[0] + off, BO);
            a1.intoMemorySegment(dst[1], dstOff[1] + off, BO);
            a2.intoMemorySegment(dst[2], dstOff[2] + off, BO);
            a3.intoMemorySegment(dst[3], dstOff[3] + off, BO);
        }
    }

    private static ByteVector load(MemorySegment s, long off) {
        return ByteVector.fromMemorySegment(SPECIES, s, off, BO);
    }

    private static ByteVector tbl(byte[] tbl, int off) {
        return ByteVector.fromArray(SPECIES, tbl, off);
    }

    /** c*x with the tables at {@code tOff}: lo-nibble lookup XOR hi-nibble lookup. */
    private static ByteVector mul(byte[] tb, int tOff, ByteVector lo, ByteVector hi) {
        return lo.selectFrom(tbl(tb, tOff)).lanewise(VectorOperators.XOR, hi.selectFrom(tbl(tb, tOff + VLEN)));
    }

    private static ByteVector lo(ByteVector x) {
        return x.and((byte) 0x0f);
    }

    /**
     * High nibbles. x86 has no byte shift: a 16-bit shift plus a mask is one instruction pair,
     * where C2's byte-lane shift widens, shifts and narrows.
     */
    private static ByteVector hi(ByteVector x) {
        if (WORD_SHIFT) {
            return x.reinterpretAsShorts().lanewise(VectorOperators.LSHR, 4).reinterpretAsBytes().and((byte) 0x0f);
        }
        return x.lanewise(VectorOperators.LSHR, 4);
    }

    static void xor(int len, int k, MemorySegment[] src, long[] srcOff, MemorySegment d, long dOff) {
        int step = 2 * VLEN;
        long off = 0;
        for (; off + step <= len; off += step) {
            ByteVector a = load(src[0], srcOff[0] + off);
            ByteVector b = load(src[0], srcOff[0] + off + VLEN);
            for (int j = 1; j < k; j++) {
                a = a.lanewise(VectorOperators.XOR, load(src[j], srcOff[j] + off));
                b = b.lanewise(VectorOperators.XOR, load(src[j], srcOff[j] + off + VLEN));
            }
            a.intoMemorySegment(d, dOff + off, BO);
            b.intoMemorySegment(d, dOff + off + VLEN, BO);
        }
        for (; off < len; off += VLEN) {
            ByteVector a = load(src[0], srcOff[0] + off);
            for (int j = 1; j < k; j++) {
                a = a.lanewise(VectorOperators.XOR, load(src[j], srcOff[j] + off));
            }
            a.intoMemorySegment(d, dOff + off, BO);
        }
    }

    private static void rows1(int len, RsTables t, int r0, MemorySegment[] src, long[] srcOff, MemorySegment[] dst,
            long[] dstOff) {
        int k = t.k;
        byte[] tb = t.vecTbl;
        int rs = 2 * VLEN;
        int t0 = r0 * k * rs;
        for (long off = 0; off < len; off += VLEN) {
            ByteVector a0 = ByteVector.zero(SPECIES);
            for (int j = 0; j < k; j++) {
                ByteVector x = load(src[j], srcOff[j] + off);
                a0 = a0.lanewise(VectorOperators.XOR, mul(tb, t0 + j * rs, lo(x), hi(x)));
            }
            a0.intoMemorySegment(dst[r0], dstOff[r0] + off, BO);
        }
    }

    private static void rows2(int len, RsTables t, int r0, MemorySegment[] src, long[] srcOff, MemorySegment[] dst,
            long[] dstOff) {
        int k = t.k;
        byte[] tb = t.vecTbl;
        int rs = 2 * VLEN;
        int t0 = r0 * k * rs;
        int t1 = t0 + k * rs;
        for (long off = 0; off < len; off += VLEN) {
            ByteVector a0 = ByteVector.zero(SPECIES);
            ByteVector a1 = a0;
            for (int j = 0; j < k; j++) {
                ByteVector x = load(src[j], srcOff[j] + off);
                ByteVector xl = lo(x), xh = hi(x);
                int o = j * rs;
                a0 = a0.lanewise(VectorOperators.XOR, mul(tb, t0 + o, xl, xh));
                a1 = a1.lanewise(VectorOperators.XOR, mul(tb, t1 + o, xl, xh));
            }
            a0.intoMemorySegment(dst[r0], dstOff[r0] + off, BO);
            a1.intoMemorySegment(dst[r0 + 1], dstOff[r0 + 1] + off, BO);
        }
    }

    private static void rows3(int len, RsTables t, int r0, MemorySegment[] src, long[] srcOff, MemorySegment[] dst,
            long[] dstOff) {
        int k = t.k;
        byte[] tb = t.vecTbl;
        int rs = 2 * VLEN;
        int t0 = r0 * k * rs;
        int t1 = t0 + k * rs;
        int t2 = t1 + k * rs;
        for (long off = 0; off < len; off += VLEN) {
            ByteVector a0 = ByteVector.zero(SPECIES);
            ByteVector a1 = a0, a2 = a0;
            for (int j = 0; j < k; j++) {
                ByteVector x = load(src[j], srcOff[j] + off);
                ByteVector xl = lo(x), xh = hi(x);
                int o = j * rs;
                a0 = a0.lanewise(VectorOperators.XOR, mul(tb, t0 + o, xl, xh));
                a1 = a1.lanewise(VectorOperators.XOR, mul(tb, t1 + o, xl, xh));
                a2 = a2.lanewise(VectorOperators.XOR, mul(tb, t2 + o, xl, xh));
            }
            a0.intoMemorySegment(dst[r0], dstOff[r0] + off, BO);
            a1.intoMemorySegment(dst[r0 + 1], dstOff[r0 + 1] + off, BO);
            a2.intoMemorySegment(dst[r0 + 2], dstOff[r0 + 2] + off, BO);
        }
    }

    private static void rows4(int len, RsTables t, int r0, MemorySegment[] src, long[] srcOff, MemorySegment[] dst,
            long[] dstOff) {
        int k = t.k;
        byte[] tb = t.vecTbl;
        int rs = 2 * VLEN;
        int t0 = r0 * k * rs;
        int t1 = t0 + k * rs;
        int t2 = t1 + k * rs;
        int t3 = t2 + k * rs;
        for (long off = 0; off < len; off += VLEN) {
            ByteVector a0 = ByteVector.zero(SPECIES);
            ByteVector a1 = a0, a2 = a0, a3 = a0;
            for (int j = 0; j < k; j++) {
                ByteVector x = load(src[j], srcOff[j] + off);
                ByteVector xl = lo(x), xh = hi(x);
                int o = j * rs;
                a0 = a0.lanewise(VectorOperators.XOR, mul(tb, t0 + o, xl, xh));
                a1 = a1.lanewise(VectorOperators.XOR, mul(tb, t1 + o, xl, xh));
                a2 = a2.lanewise(VectorOperators.XOR, mul(tb, t2 + o, xl, xh));
                a3 = a3.lanewise(VectorOperators.XOR, mul(tb, t3 + o, xl, xh));
            }
            a0.intoMemorySegment(dst[r0], dstOff[r0] + off, BO);
            a1.intoMemorySegment(dst[r0 + 1], dstOff[r0 + 1] + off, BO);
            a2.intoMemorySegment(dst[r0 + 2], dstOff[r0 + 2] + off, BO);
            a3.intoMemorySegment(dst[r0 + 3], dstOff[r0 + 3] + off, BO);
        }
    }
}
