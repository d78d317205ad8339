package io.jdoca.ec;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The pure-Java engine, kernels chosen per coefficient matrix:
 * <ul>
 *   <li>all-ones rows (1-parity Vandermonde, e.g. the GGA 2+1 layout): plain XOR;</li>
 *   <li>ISA-L's Vandermonde parity with m &le; 4 (row r = powers of 2^r): Horner's rule with GF
 *       doublings (add, compare, blend, XOR), no table lookups;</li>
 *   <li>anything else (Cauchy, decode and update rows): split-nibble lookups like ISA-L's SIMD
 *       kernels: each byte's low and high nibble index a 16-entry product table
 *       ({@code selectFrom}, a byte permute) and the two lookups XOR into the product; every input
 *       vector is loaded once per pass and feeds up to four output rows;</li>
 *   <li>decode rows of a Horner-coded matrix with a {@link SyndromePlan} (several lost blocks):
 *       syndrome decoding, a Horner pass over the survivors plus an e&times;e solve, instead of
 *       e&middot;k lookups (see the syndrome section below).</li>
 * </ul>
 * Species in a static final ({@code -Djdoca.ec.vectorBits} overrides). Allocation-free; one
 * thread at a time.
 */
final class JavaRsEngine implements RsEngine {
    static final VectorSpecies<Byte> SPECIES = species(EcProperties.VECTOR_BITS.asInt());
    /** Lanes per vector; a 64-byte block is a whole number of vectors for every species up to 512 bits. */
    static final int VLEN = SPECIES.length();
    private static final ByteOrder BO = ByteOrder.nativeOrder();
    private static final ByteVector ZERO = ByteVector.zero(SPECIES);
    private static final ByteVector NIBBLE = ByteVector.broadcast(SPECIES, (byte) 0x0f);
    /** {@code -Djdoca.ec.horner=false} forces the table kernel for Vandermonde rows too (benchmarks, tests). */
    private static final boolean HORNER = EcProperties.HORNER.asBoolean();
    private static final boolean WORD_SHIFT = EcProperties.WORD_SHIFT.asString().isBlank() ? VLEN >= 32
            : EcProperties.WORD_SHIFT.asBoolean();
    /** {@code -Djdoca.ec.syndrome=false} forces the generic decode for Horner-coded patterns (benchmarks, tests). */
    static final boolean SYNDROME = EcProperties.SYNDROME.asBoolean();
    /**
     * Multi-pass syndrome decoding runs its passes chunk by chunk, each reading back what the
     * previous one wrote to the output blocks: a chunk's inputs and outputs stay in L1.
     */
    private static final int CHUNK = 1024;

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
        if (t.syndrome != null && SYNDROME) {
            syndrome(len, t.syndrome, src, srcOff, dst, dstOff);
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
    private static void horner(int len, RsTables t, MemorySegment[] src, long[] srcOff,
            MemorySegment[] dst, long[] dstOff) {
        int last = t.k - 1;
        switch (t.rows) {
            case 1 -> xor(len, t.k, src, srcOff, dst[0], dstOff[0]);
            case 2 -> horner2(len, last, src, srcOff, dst, dstOff);
            case 3 -> horner3(len, last, src, srcOff, dst, dstOff);
            default -> horner4(len, last, src, srcOff, dst, dstOff);
        }
    }

    private static void horner2(int len, int last, MemorySegment[] src, long[] srcOff,
            MemorySegment[] dst, long[] dstOff) {
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

    private static void horner3(int len, int last, MemorySegment[] src, long[] srcOff,
            MemorySegment[] dst, long[] dstOff) {
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

    private static void horner4(int len, int last, MemorySegment[] src, long[] srcOff,
            MemorySegment[] dst, long[] dstOff) {
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

    // ------------------------------------------------------------------ syndrome decoding
    //
    // Kernel shape rules (each learnt from an allocating kernel; EcAllocationTest checks them):
    // - no helper methods of our own: a helper compiled on its own early (the interpreter calls it
    //   a lot) and grown large is no longer inlined ("already compiled into a big method"), and a
    //   kernel calling it boxes every vector; the Vector API's own methods are always inlined;
    // - few load, store and lookup sites per kernel: past C2's inlining node budget (smaller once
    //   other code made the segment accesses polymorphic) the rest is not intrinsified either.
    // Hence the four-loss and matrix paths run as short passes over chunks of CHUNK bytes (in L1).

    /**
     * Recover through {@link SyndromePlan}. Bjorck-Pereyra plans (2 to 4 lost data blocks, the
     * common worst case): Horner rows 0..e-1 over the surviving data plus the parity blocks give
     * the syndromes, solved in registers (e = 2, 3) or in a second pass per chunk (e = 4). Other
     * patterns, per chunk: a Horner pass writes each output slot with its row (a lost data block:
     * the row of its parity block in P; a lost parity block: its own), the parity blocks are
     * added, and the matrix solve turns the slots, in place, into the recovered blocks. The output
     * blocks are the only scratch: nothing is allocated.
     */
    private static void syndrome(int len, SyndromePlan p, MemorySegment[] src, long[] srcOff, MemorySegment[] dst,
            long[] dstOff) {
        if (p.bpDbl != null) {
            switch (p.e) {
                case 2 -> bpFused2(0, len, p, src, srcOff, dst, dstOff);
                case 3 -> bpFused3(0, len, p, src, srcOff, dst, dstOff);
                default -> {
                    for (long c = 0; c < len; c += CHUNK) {
                        long end = Math.min(len, c + CHUNK);
                        bpHorner4(c, end, p, src, srcOff, dst, dstOff);
                        bpBack4(c, end, p, dst, dstOff);
                    }
                }
            }
            return;
        }
        for (long c = 0; c < len; c += CHUNK) {
            long end = Math.min(len, c + CHUNK);
            if (p.top < 0) {
                synNoData(c, end, p, dst, dstOff);
            } else {
                switch (p.nAcc) {
                    case 1 -> synHorner1(c, end, p, src, srcOff, dst, dstOff);
                    case 2 -> synHorner2(c, end, p, src, srcOff, dst, dstOff);
                    case 3 -> synHorner3(c, end, p, src, srcOff, dst, dstOff);
                    default -> synHorner4(c, end, p, src, srcOff, dst, dstOff);
                }
            }
            addParity(c, end, p, src, srcOff, dst, dstOff);
            switch (p.nOut) {
                case 1 -> solve1(c, end, p, dst, dstOff);
                case 2 -> solve2(c, end, p, dst, dstOff);
                case 3 -> solve3(c, end, p, dst, dstOff);
                default -> solve4(c, end, p, dst, dstOff);
            }
        }
    }

    /** Every data block lost (k &le; m): the Horner rows are zero. */
    private static void synNoData(long from, long to, SyndromePlan p, MemorySegment[] dst, long[] dstOff) {
        for (long off = from; off < to; off += VLEN) {
            for (int r = 0; r < p.nAcc; r++) {
                int o = p.rowOut[r];
                if (o >= 0) {
                    ByteVector.zero(SPECIES).intoMemorySegment(dst[o], dstOff[o] + off, BO);
                }
            }
        }
    }

    /** Horner row 0 (the XOR of the surviving data) into its output slot. */
    private static void synHorner1(long from, long to, SyndromePlan p, MemorySegment[] src, long[] srcOff,
            MemorySegment[] dst, long[] dstOff) {
        int top = p.top;
        int[] sof = p.srcOf;
        MemorySegment ts = src[sof[top]];
        long tso = srcOff[sof[top]];
        int s0 = p.rowOut[0];
        MemorySegment g0 = dst[Math.max(s0, 0)];
        long go0 = dstOff[Math.max(s0, 0)];
        for (long off = from; off < to; off += VLEN) {
            ByteVector a0 = ByteVector.fromMemorySegment(SPECIES, ts, tso + off, BO);
            for (int j = top - 1; j >= 0; j--) {
                int i = sof[j];
                if (i >= 0) {
                    ByteVector v = ByteVector.fromMemorySegment(SPECIES, src[i], srcOff[i] + off, BO);
                    a0 = a0.lanewise(VectorOperators.XOR, v);
                }
            }
            if (s0 >= 0) {
                a0.intoMemorySegment(g0, go0 + off, BO);
            }
        }
    }

    /** Horner rows 0..1 over the surviving data (lost inputs: doublings only) into their output slots. */
    private static void synHorner2(long from, long to, SyndromePlan p, MemorySegment[] src, long[] srcOff,
            MemorySegment[] dst, long[] dstOff) {
        int top = p.top;
        int[] sof = p.srcOf;
        MemorySegment ts = src[sof[top]];
        long tso = srcOff[sof[top]];
        int s0 = p.rowOut[0];
        MemorySegment g0 = dst[Math.max(s0, 0)];
        long go0 = dstOff[Math.max(s0, 0)];
        int s1 = p.rowOut[1];
        MemorySegment g1 = dst[Math.max(s1, 0)];
        long go1 = dstOff[Math.max(s1, 0)];
        for (long off = from; off < to; off += VLEN) {
            ByteVector a0 = ByteVector.fromMemorySegment(SPECIES, ts, tso + off, BO);
            ByteVector a1 = a0;
            for (int j = top - 1; j >= 0; j--) {
                a1 = a1.add(a1).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, a1.lt((byte) 0)));
                int i = sof[j];
                if (i >= 0) {
                    ByteVector v = ByteVector.fromMemorySegment(SPECIES, src[i], srcOff[i] + off, BO);
                    a0 = a0.lanewise(VectorOperators.XOR, v);
                    a1 = a1.lanewise(VectorOperators.XOR, v);
                }
            }
            if (s0 >= 0) {
                a0.intoMemorySegment(g0, go0 + off, BO);
            }
            if (s1 >= 0) {
                a1.intoMemorySegment(g1, go1 + off, BO);
            }
        }
    }

    /** Horner rows 0..2 over the surviving data (lost inputs: doublings only) into their output slots. */
    private static void synHorner3(long from, long to, SyndromePlan p, MemorySegment[] src, long[] srcOff,
            MemorySegment[] dst, long[] dstOff) {
        int top = p.top;
        int[] sof = p.srcOf;
        MemorySegment ts = src[sof[top]];
        long tso = srcOff[sof[top]];
        int s0 = p.rowOut[0];
        MemorySegment g0 = dst[Math.max(s0, 0)];
        long go0 = dstOff[Math.max(s0, 0)];
        int s1 = p.rowOut[1];
        MemorySegment g1 = dst[Math.max(s1, 0)];
        long go1 = dstOff[Math.max(s1, 0)];
        int s2 = p.rowOut[2];
        MemorySegment g2 = dst[Math.max(s2, 0)];
        long go2 = dstOff[Math.max(s2, 0)];
        for (long off = from; off < to; off += VLEN) {
            ByteVector a0 = ByteVector.fromMemorySegment(SPECIES, ts, tso + off, BO);
            ByteVector a1 = a0;
            ByteVector a2 = a0;
            for (int j = top - 1; j >= 0; j--) {
                a1 = a1.add(a1).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, a1.lt((byte) 0)));
                a2 = a2.add(a2).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, a2.lt((byte) 0)));
                a2 = a2.add(a2).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, a2.lt((byte) 0)));
                int i = sof[j];
                if (i >= 0) {
                    ByteVector v = ByteVector.fromMemorySegment(SPECIES, src[i], srcOff[i] + off, BO);
                    a0 = a0.lanewise(VectorOperators.XOR, v);
                    a1 = a1.lanewise(VectorOperators.XOR, v);
                    a2 = a2.lanewise(VectorOperators.XOR, v);
                }
            }
            if (s0 >= 0) {
                a0.intoMemorySegment(g0, go0 + off, BO);
            }
            if (s1 >= 0) {
                a1.intoMemorySegment(g1, go1 + off, BO);
            }
            if (s2 >= 0) {
                a2.intoMemorySegment(g2, go2 + off, BO);
            }
        }
    }

    /** Horner rows 0..3 over the surviving data (lost inputs: doublings only) into their output slots. */
    private static void synHorner4(long from, long to, SyndromePlan p, MemorySegment[] src, long[] srcOff,
            MemorySegment[] dst, long[] dstOff) {
        int top = p.top;
        int[] sof = p.srcOf;
        MemorySegment ts = src[sof[top]];
        long tso = srcOff[sof[top]];
        int s0 = p.rowOut[0];
        MemorySegment g0 = dst[Math.max(s0, 0)];
        long go0 = dstOff[Math.max(s0, 0)];
        int s1 = p.rowOut[1];
        MemorySegment g1 = dst[Math.max(s1, 0)];
        long go1 = dstOff[Math.max(s1, 0)];
        int s2 = p.rowOut[2];
        MemorySegment g2 = dst[Math.max(s2, 0)];
        long go2 = dstOff[Math.max(s2, 0)];
        int s3 = p.rowOut[3];
        MemorySegment g3 = dst[Math.max(s3, 0)];
        long go3 = dstOff[Math.max(s3, 0)];
        for (long off = from; off < to; off += VLEN) {
            ByteVector a0 = ByteVector.fromMemorySegment(SPECIES, ts, tso + off, BO);
            ByteVector a1 = a0;
            ByteVector a2 = a0;
            ByteVector a3 = a0;
            for (int j = top - 1; j >= 0; j--) {
                a1 = a1.add(a1).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, a1.lt((byte) 0)));
                a2 = a2.add(a2).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, a2.lt((byte) 0)));
                a2 = a2.add(a2).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, a2.lt((byte) 0)));
                a3 = a3.add(a3).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, a3.lt((byte) 0)));
                a3 = a3.add(a3).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, a3.lt((byte) 0)));
                a3 = a3.add(a3).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, a3.lt((byte) 0)));
                int i = sof[j];
                if (i >= 0) {
                    ByteVector v = ByteVector.fromMemorySegment(SPECIES, src[i], srcOff[i] + off, BO);
                    a0 = a0.lanewise(VectorOperators.XOR, v);
                    a1 = a1.lanewise(VectorOperators.XOR, v);
                    a2 = a2.lanewise(VectorOperators.XOR, v);
                    a3 = a3.lanewise(VectorOperators.XOR, v);
                }
            }
            if (s0 >= 0) {
                a0.intoMemorySegment(g0, go0 + off, BO);
            }
            if (s1 >= 0) {
                a1.intoMemorySegment(g1, go1 + off, BO);
            }
            if (s2 >= 0) {
                a2.intoMemorySegment(g2, go2 + off, BO);
            }
            if (s3 >= 0) {
                a3.intoMemorySegment(g3, go3 + off, BO);
            }
        }
    }

    /** Syndromes in place: slot i (Horner row P[i] over the surviving data) plus parity block P[i]. */
    private static void addParity(long from, long to, SyndromePlan p, MemorySegment[] src, long[] srcOff,
            MemorySegment[] dst, long[] dstOff) {
        int e = p.e;
        int pin = p.k - e;
        for (long off = from; off < to; off += VLEN) {
            for (int i = 0; i < e; i++) {
                ByteVector.fromMemorySegment(SPECIES, dst[i], dstOff[i] + off, BO)
                        .lanewise(VectorOperators.XOR,
                                ByteVector.fromMemorySegment(SPECIES, src[pin + i], srcOff[pin + i] + off, BO))
                        .intoMemorySegment(dst[i], dstOff[i] + off, BO);
            }
        }
    }

    /** The matrix solve for 1 output slot, in place: every slot of an offset is loaded before any is stored. */
    private static void solve1(long from, long to, SyndromePlan p, MemorySegment[] dst, long[] dstOff) {
        byte[] tb = p.solve.vecTbl;
        int rs = 2 * VLEN;
        int step = 1 * rs;
        MemorySegment g0 = dst[0];
        long go0 = dstOff[0];
        for (long off = from; off < to; off += VLEN) {
            ByteVector a0 = ByteVector.zero(SPECIES);
            for (int i = 0; i < 1; i++) {
                ByteVector v = ByteVector.fromMemorySegment(SPECIES, dst[i], dstOff[i] + off, BO);
                ByteVector l = v.and(NIBBLE);
                ByteVector h = v.reinterpretAsShorts().lanewise(VectorOperators.LSHR, 4)
                        .reinterpretAsBytes().and(NIBBLE);
                int o = i * rs;
                a0 = a0.lanewise(VectorOperators.XOR, l.selectFrom(ByteVector.fromArray(SPECIES, tb, 0 * step + o))
                        .lanewise(VectorOperators.XOR,
                                h.selectFrom(ByteVector.fromArray(SPECIES, tb, 0 * step + o + VLEN))));
            }
            a0.intoMemorySegment(g0, go0 + off, BO);
        }
    }

    /** The matrix solve for 2 output slots, in place: every slot of an offset is loaded before any is stored. */
    private static void solve2(long from, long to, SyndromePlan p, MemorySegment[] dst, long[] dstOff) {
        byte[] tb = p.solve.vecTbl;
        int rs = 2 * VLEN;
        int step = 2 * rs;
        MemorySegment g0 = dst[0];
        long go0 = dstOff[0];
        MemorySegment g1 = dst[1];
        long go1 = dstOff[1];
        for (long off = from; off < to; off += VLEN) {
            ByteVector a0 = ByteVector.zero(SPECIES);
            ByteVector a1 = ByteVector.zero(SPECIES);
            for (int i = 0; i < 2; i++) {
                ByteVector v = ByteVector.fromMemorySegment(SPECIES, dst[i], dstOff[i] + off, BO);
                ByteVector l = v.and(NIBBLE);
                ByteVector h = v.reinterpretAsShorts().lanewise(VectorOperators.LSHR, 4)
                        .reinterpretAsBytes().and(NIBBLE);
                int o = i * rs;
                a0 = a0.lanewise(VectorOperators.XOR, l.selectFrom(ByteVector.fromArray(SPECIES, tb, 0 * step + o))
                        .lanewise(VectorOperators.XOR,
                                h.selectFrom(ByteVector.fromArray(SPECIES, tb, 0 * step + o + VLEN))));
                a1 = a1.lanewise(VectorOperators.XOR, l.selectFrom(ByteVector.fromArray(SPECIES, tb, 1 * step + o))
                        .lanewise(VectorOperators.XOR,
                                h.selectFrom(ByteVector.fromArray(SPECIES, tb, 1 * step + o + VLEN))));
            }
            a0.intoMemorySegment(g0, go0 + off, BO);
            a1.intoMemorySegment(g1, go1 + off, BO);
        }
    }

    /** The matrix solve for 3 output slots, in place: every slot of an offset is loaded before any is stored. */
    private static void solve3(long from, long to, SyndromePlan p, MemorySegment[] dst, long[] dstOff) {
        byte[] tb = p.solve.vecTbl;
        int rs = 2 * VLEN;
        int step = 3 * rs;
        MemorySegment g0 = dst[0];
        long go0 = dstOff[0];
        MemorySegment g1 = dst[1];
        long go1 = dstOff[1];
        MemorySegment g2 = dst[2];
        long go2 = dstOff[2];
        for (long off = from; off < to; off += VLEN) {
            ByteVector a0 = ByteVector.zero(SPECIES);
            ByteVector a1 = ByteVector.zero(SPECIES);
            ByteVector a2 = ByteVector.zero(SPECIES);
            for (int i = 0; i < 3; i++) {
                ByteVector v = ByteVector.fromMemorySegment(SPECIES, dst[i], dstOff[i] + off, BO);
                ByteVector l = v.and(NIBBLE);
                ByteVector h = v.reinterpretAsShorts().lanewise(VectorOperators.LSHR, 4)
                        .reinterpretAsBytes().and(NIBBLE);
                int o = i * rs;
                a0 = a0.lanewise(VectorOperators.XOR, l.selectFrom(ByteVector.fromArray(SPECIES, tb, 0 * step + o))
                        .lanewise(VectorOperators.XOR,
                                h.selectFrom(ByteVector.fromArray(SPECIES, tb, 0 * step + o + VLEN))));
                a1 = a1.lanewise(VectorOperators.XOR, l.selectFrom(ByteVector.fromArray(SPECIES, tb, 1 * step + o))
                        .lanewise(VectorOperators.XOR,
                                h.selectFrom(ByteVector.fromArray(SPECIES, tb, 1 * step + o + VLEN))));
                a2 = a2.lanewise(VectorOperators.XOR, l.selectFrom(ByteVector.fromArray(SPECIES, tb, 2 * step + o))
                        .lanewise(VectorOperators.XOR,
                                h.selectFrom(ByteVector.fromArray(SPECIES, tb, 2 * step + o + VLEN))));
            }
            a0.intoMemorySegment(g0, go0 + off, BO);
            a1.intoMemorySegment(g1, go1 + off, BO);
            a2.intoMemorySegment(g2, go2 + off, BO);
        }
    }

    /** The matrix solve for 4 output slots, in place: every slot of an offset is loaded before any is stored. */
    private static void solve4(long from, long to, SyndromePlan p, MemorySegment[] dst, long[] dstOff) {
        byte[] tb = p.solve.vecTbl;
        int rs = 2 * VLEN;
        int step = 4 * rs;
        MemorySegment g0 = dst[0];
        long go0 = dstOff[0];
        MemorySegment g1 = dst[1];
        long go1 = dstOff[1];
        MemorySegment g2 = dst[2];
        long go2 = dstOff[2];
        MemorySegment g3 = dst[3];
        long go3 = dstOff[3];
        for (long off = from; off < to; off += VLEN) {
            ByteVector a0 = ByteVector.zero(SPECIES);
            ByteVector a1 = ByteVector.zero(SPECIES);
            ByteVector a2 = ByteVector.zero(SPECIES);
            ByteVector a3 = ByteVector.zero(SPECIES);
            for (int i = 0; i < 4; i++) {
                ByteVector v = ByteVector.fromMemorySegment(SPECIES, dst[i], dstOff[i] + off, BO);
                ByteVector l = v.and(NIBBLE);
                ByteVector h = v.reinterpretAsShorts().lanewise(VectorOperators.LSHR, 4)
                        .reinterpretAsBytes().and(NIBBLE);
                int o = i * rs;
                a0 = a0.lanewise(VectorOperators.XOR, l.selectFrom(ByteVector.fromArray(SPECIES, tb, 0 * step + o))
                        .lanewise(VectorOperators.XOR,
                                h.selectFrom(ByteVector.fromArray(SPECIES, tb, 0 * step + o + VLEN))));
                a1 = a1.lanewise(VectorOperators.XOR, l.selectFrom(ByteVector.fromArray(SPECIES, tb, 1 * step + o))
                        .lanewise(VectorOperators.XOR,
                                h.selectFrom(ByteVector.fromArray(SPECIES, tb, 1 * step + o + VLEN))));
                a2 = a2.lanewise(VectorOperators.XOR, l.selectFrom(ByteVector.fromArray(SPECIES, tb, 2 * step + o))
                        .lanewise(VectorOperators.XOR,
                                h.selectFrom(ByteVector.fromArray(SPECIES, tb, 2 * step + o + VLEN))));
                a3 = a3.lanewise(VectorOperators.XOR, l.selectFrom(ByteVector.fromArray(SPECIES, tb, 3 * step + o))
                        .lanewise(VectorOperators.XOR,
                                h.selectFrom(ByteVector.fromArray(SPECIES, tb, 3 * step + o + VLEN))));
            }
            a0.intoMemorySegment(g0, go0 + off, BO);
            a1.intoMemorySegment(g1, go1 + off, BO);
            a2.intoMemorySegment(g2, go2 + off, BO);
            a3.intoMemorySegment(g3, go3 + off, BO);
        }
    }

    /*
     * Bjorck-Pereyra for the Vandermonde system sum_l x_l^p d_l = S_p (p = 0..e-1, x_l = 2^l_l):
     * stage 1 multiplies by x_0..x_{e-2}, as doublings (the plan picks this path only when they
     * are few), stage 2 divides by x_i + x_j: e(e-1)/2 lookups where the matrix solve needs e^2.
     */

    /**
     * Two lost data blocks, one pass: Horner rows 0 and 1, syndromes, then b1 = (S1 + x0 S0) / (x1 + x0),
     * b0 = S0 + b1.
     */
    private static void bpFused2(long from, long to, SyndromePlan p, MemorySegment[] src, long[] srcOff,
            MemorySegment[] dst, long[] dstOff) {
        int top = p.top;
        int[] sof = p.srcOf;
        MemorySegment ts = src[sof[top]];
        long tso = srcOff[sof[top]];
        int pin = p.k - 2;
        byte[] tb = p.bpTbl;
        int x0 = p.bpDbl[0];
        MemorySegment ps0 = src[pin];
        long pso0 = srcOff[pin];
        MemorySegment ps1 = src[pin + 1];
        long pso1 = srcOff[pin + 1];
        MemorySegment g0 = dst[0];
        long go0 = dstOff[0];
        MemorySegment g1 = dst[1];
        long go1 = dstOff[1];
        for (long off = from; off < to; off += VLEN) {
            ByteVector b0 = ByteVector.fromMemorySegment(SPECIES, ts, tso + off, BO);
            ByteVector b1 = b0;
            for (int j = top - 1; j >= 0; j--) {
                b1 = b1.add(b1).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, b1.lt((byte) 0)));
                int i = sof[j];
                if (i >= 0) {
                    ByteVector v = ByteVector.fromMemorySegment(SPECIES, src[i], srcOff[i] + off, BO);
                    b0 = b0.lanewise(VectorOperators.XOR, v);
                    b1 = b1.lanewise(VectorOperators.XOR, v);
                }
            }
            b0 = b0.lanewise(VectorOperators.XOR, ByteVector.fromMemorySegment(SPECIES, ps0, pso0 + off, BO));
            b1 = b1.lanewise(VectorOperators.XOR, ByteVector.fromMemorySegment(SPECIES, ps1, pso1 + off, BO));
            ByteVector m = b0;
            for (int t = 0; t < x0; t++) {
                m = m.add(m).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, m.lt((byte) 0)));
            }
            b1 = b1.lanewise(VectorOperators.XOR, m);
            b1 = b1.and(NIBBLE).selectFrom(ByteVector.fromArray(SPECIES, tb, 0))
                    .lanewise(VectorOperators.XOR, b1.reinterpretAsShorts().lanewise(VectorOperators.LSHR, 4)
                            .reinterpretAsBytes().and(NIBBLE).selectFrom(ByteVector.fromArray(SPECIES, tb, 0 + VLEN)));
            b0 = b0.lanewise(VectorOperators.XOR, b1);
            b0.intoMemorySegment(g0, go0 + off, BO);
            b1.intoMemorySegment(g1, go1 + off, BO);
        }
    }

    /** Three lost data blocks, one pass: Horner rows 0..2, syndromes, stages 1 and 2. */
    private static void bpFused3(long from, long to, SyndromePlan p, MemorySegment[] src, long[] srcOff,
            MemorySegment[] dst, long[] dstOff) {
        int top = p.top;
        int[] sof = p.srcOf;
        MemorySegment ts = src[sof[top]];
        long tso = srcOff[sof[top]];
        int pin = p.k - 3;
        byte[] tb = p.bpTbl;
        int rs = 2 * VLEN;
        int x0 = p.bpDbl[0];
        int x1 = p.bpDbl[1];
        MemorySegment ps0 = src[pin];
        long pso0 = srcOff[pin];
        MemorySegment g0 = dst[0];
        long go0 = dstOff[0];
        MemorySegment ps1 = src[pin + 1];
        long pso1 = srcOff[pin + 1];
        MemorySegment g1 = dst[1];
        long go1 = dstOff[1];
        MemorySegment ps2 = src[pin + 2];
        long pso2 = srcOff[pin + 2];
        MemorySegment g2 = dst[2];
        long go2 = dstOff[2];
        for (long off = from; off < to; off += VLEN) {
            ByteVector b0 = ByteVector.fromMemorySegment(SPECIES, ts, tso + off, BO);
            ByteVector b1 = b0;
            ByteVector b2 = b0;
            for (int j = top - 1; j >= 0; j--) {
                b1 = b1.add(b1).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, b1.lt((byte) 0)));
                b2 = b2.add(b2).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, b2.lt((byte) 0)));
                b2 = b2.add(b2).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, b2.lt((byte) 0)));
                int i = sof[j];
                if (i >= 0) {
                    ByteVector v = ByteVector.fromMemorySegment(SPECIES, src[i], srcOff[i] + off, BO);
                    b0 = b0.lanewise(VectorOperators.XOR, v);
                    b1 = b1.lanewise(VectorOperators.XOR, v);
                    b2 = b2.lanewise(VectorOperators.XOR, v);
                }
            }
            b0 = b0.lanewise(VectorOperators.XOR, ByteVector.fromMemorySegment(SPECIES, ps0, pso0 + off, BO));
            b1 = b1.lanewise(VectorOperators.XOR, ByteVector.fromMemorySegment(SPECIES, ps1, pso1 + off, BO));
            b2 = b2.lanewise(VectorOperators.XOR, ByteVector.fromMemorySegment(SPECIES, ps2, pso2 + off, BO));
            ByteVector m;
            m = b1;
            for (int t = 0; t < x0; t++) {
                m = m.add(m).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, m.lt((byte) 0)));
            }
            b2 = b2.lanewise(VectorOperators.XOR, m);
            m = b0;
            for (int t = 0; t < x0; t++) {
                m = m.add(m).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, m.lt((byte) 0)));
            }
            b1 = b1.lanewise(VectorOperators.XOR, m);
            m = b1;
            for (int t = 0; t < x1; t++) {
                m = m.add(m).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, m.lt((byte) 0)));
            }
            b2 = b2.lanewise(VectorOperators.XOR, m);
            b2 = b2.and(NIBBLE).selectFrom(ByteVector.fromArray(SPECIES, tb, 0 * rs))
                    .lanewise(VectorOperators.XOR, b2.reinterpretAsShorts().lanewise(VectorOperators.LSHR, 4)
                            .reinterpretAsBytes().and(NIBBLE)
                            .selectFrom(ByteVector.fromArray(SPECIES, tb, 0 * rs + VLEN)));
            b1 = b1.lanewise(VectorOperators.XOR, b2);
            b1 = b1.and(NIBBLE).selectFrom(ByteVector.fromArray(SPECIES, tb, 1 * rs))
                    .lanewise(VectorOperators.XOR, b1.reinterpretAsShorts().lanewise(VectorOperators.LSHR, 4)
                            .reinterpretAsBytes().and(NIBBLE)
                            .selectFrom(ByteVector.fromArray(SPECIES, tb, 1 * rs + VLEN)));
            b2 = b2.and(NIBBLE).selectFrom(ByteVector.fromArray(SPECIES, tb, 2 * rs))
                    .lanewise(VectorOperators.XOR, b2.reinterpretAsShorts().lanewise(VectorOperators.LSHR, 4)
                            .reinterpretAsBytes().and(NIBBLE)
                            .selectFrom(ByteVector.fromArray(SPECIES, tb, 2 * rs + VLEN)));
            b0 = b0.lanewise(VectorOperators.XOR, b1);
            b1 = b1.lanewise(VectorOperators.XOR, b2);
            b0.intoMemorySegment(g0, go0 + off, BO);
            b1.intoMemorySegment(g1, go1 + off, BO);
            b2.intoMemorySegment(g2, go2 + off, BO);
        }
    }

    /** Four lost data blocks, first pass: Horner rows 0..3 plus the parity blocks, the syndromes, into slots 0..3. */
    private static void bpHorner4(long from, long to, SyndromePlan p, MemorySegment[] src, long[] srcOff,
            MemorySegment[] dst, long[] dstOff) {
        int top = p.top;
        int[] sof = p.srcOf;
        MemorySegment ts = src[sof[top]];
        long tso = srcOff[sof[top]];
        int pin = p.k - 4;
        MemorySegment ps0 = src[pin];
        long pso0 = srcOff[pin];
        MemorySegment g0 = dst[0];
        long go0 = dstOff[0];
        MemorySegment ps1 = src[pin + 1];
        long pso1 = srcOff[pin + 1];
        MemorySegment g1 = dst[1];
        long go1 = dstOff[1];
        MemorySegment ps2 = src[pin + 2];
        long pso2 = srcOff[pin + 2];
        MemorySegment g2 = dst[2];
        long go2 = dstOff[2];
        MemorySegment ps3 = src[pin + 3];
        long pso3 = srcOff[pin + 3];
        MemorySegment g3 = dst[3];
        long go3 = dstOff[3];
        for (long off = from; off < to; off += VLEN) {
            ByteVector b0 = ByteVector.fromMemorySegment(SPECIES, ts, tso + off, BO);
            ByteVector b1 = b0;
            ByteVector b2 = b0;
            ByteVector b3 = b0;
            for (int j = top - 1; j >= 0; j--) {
                b1 = b1.add(b1).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, b1.lt((byte) 0)));
                b2 = b2.add(b2).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, b2.lt((byte) 0)));
                b2 = b2.add(b2).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, b2.lt((byte) 0)));
                b3 = b3.add(b3).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, b3.lt((byte) 0)));
                b3 = b3.add(b3).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, b3.lt((byte) 0)));
                b3 = b3.add(b3).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, b3.lt((byte) 0)));
                int i = sof[j];
                if (i >= 0) {
                    ByteVector v = ByteVector.fromMemorySegment(SPECIES, src[i], srcOff[i] + off, BO);
                    b0 = b0.lanewise(VectorOperators.XOR, v);
                    b1 = b1.lanewise(VectorOperators.XOR, v);
                    b2 = b2.lanewise(VectorOperators.XOR, v);
                    b3 = b3.lanewise(VectorOperators.XOR, v);
                }
            }
            b0.lanewise(VectorOperators.XOR, ByteVector.fromMemorySegment(SPECIES, ps0, pso0 + off, BO))
                    .intoMemorySegment(g0, go0 + off, BO);
            b1.lanewise(VectorOperators.XOR, ByteVector.fromMemorySegment(SPECIES, ps1, pso1 + off, BO))
                    .intoMemorySegment(g1, go1 + off, BO);
            b2.lanewise(VectorOperators.XOR, ByteVector.fromMemorySegment(SPECIES, ps2, pso2 + off, BO))
                    .intoMemorySegment(g2, go2 + off, BO);
            b3.lanewise(VectorOperators.XOR, ByteVector.fromMemorySegment(SPECIES, ps3, pso3 + off, BO))
                    .intoMemorySegment(g3, go3 + off, BO);
        }
    }

    /** Four lost data blocks, second pass: stages 1 and 2 in place over the syndromes in slots 0..3. */
    private static void bpBack4(long from, long to, SyndromePlan p, MemorySegment[] dst, long[] dstOff) {
        byte[] tb = p.bpTbl;
        int rs = 2 * VLEN;
        int x0 = p.bpDbl[0];
        int x1 = p.bpDbl[1];
        int x2 = p.bpDbl[2];
        MemorySegment g0 = dst[0];
        long go0 = dstOff[0];
        MemorySegment g1 = dst[1];
        long go1 = dstOff[1];
        MemorySegment g2 = dst[2];
        long go2 = dstOff[2];
        MemorySegment g3 = dst[3];
        long go3 = dstOff[3];
        for (long off = from; off < to; off += VLEN) {
            ByteVector b0 = ByteVector.fromMemorySegment(SPECIES, g0, go0 + off, BO);
            ByteVector b1 = ByteVector.fromMemorySegment(SPECIES, g1, go1 + off, BO);
            ByteVector b2 = ByteVector.fromMemorySegment(SPECIES, g2, go2 + off, BO);
            ByteVector b3 = ByteVector.fromMemorySegment(SPECIES, g3, go3 + off, BO);
            ByteVector m;
            m = b2;
            for (int t = 0; t < x0; t++) {
                m = m.add(m).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, m.lt((byte) 0)));
            }
            b3 = b3.lanewise(VectorOperators.XOR, m);
            m = b1;
            for (int t = 0; t < x0; t++) {
                m = m.add(m).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, m.lt((byte) 0)));
            }
            b2 = b2.lanewise(VectorOperators.XOR, m);
            m = b0;
            for (int t = 0; t < x0; t++) {
                m = m.add(m).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, m.lt((byte) 0)));
            }
            b1 = b1.lanewise(VectorOperators.XOR, m);
            m = b2;
            for (int t = 0; t < x1; t++) {
                m = m.add(m).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, m.lt((byte) 0)));
            }
            b3 = b3.lanewise(VectorOperators.XOR, m);
            m = b1;
            for (int t = 0; t < x1; t++) {
                m = m.add(m).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, m.lt((byte) 0)));
            }
            b2 = b2.lanewise(VectorOperators.XOR, m);
            m = b2;
            for (int t = 0; t < x2; t++) {
                m = m.add(m).lanewise(VectorOperators.XOR, ZERO.blend((byte) 0x1d, m.lt((byte) 0)));
            }
            b3 = b3.lanewise(VectorOperators.XOR, m);
            b3 = b3.and(NIBBLE).selectFrom(ByteVector.fromArray(SPECIES, tb, 0 * rs))
                    .lanewise(VectorOperators.XOR, b3.reinterpretAsShorts().lanewise(VectorOperators.LSHR, 4)
                            .reinterpretAsBytes().and(NIBBLE)
                            .selectFrom(ByteVector.fromArray(SPECIES, tb, 0 * rs + VLEN)));
            b2 = b2.lanewise(VectorOperators.XOR, b3);
            b2 = b2.and(NIBBLE).selectFrom(ByteVector.fromArray(SPECIES, tb, 1 * rs))
                    .lanewise(VectorOperators.XOR, b2.reinterpretAsShorts().lanewise(VectorOperators.LSHR, 4)
                            .reinterpretAsBytes().and(NIBBLE)
                            .selectFrom(ByteVector.fromArray(SPECIES, tb, 1 * rs + VLEN)));
            b3 = b3.and(NIBBLE).selectFrom(ByteVector.fromArray(SPECIES, tb, 2 * rs))
                    .lanewise(VectorOperators.XOR, b3.reinterpretAsShorts().lanewise(VectorOperators.LSHR, 4)
                            .reinterpretAsBytes().and(NIBBLE)
                            .selectFrom(ByteVector.fromArray(SPECIES, tb, 2 * rs + VLEN)));
            b1 = b1.lanewise(VectorOperators.XOR, b2);
            b2 = b2.lanewise(VectorOperators.XOR, b3);
            b1 = b1.and(NIBBLE).selectFrom(ByteVector.fromArray(SPECIES, tb, 3 * rs))
                    .lanewise(VectorOperators.XOR, b1.reinterpretAsShorts().lanewise(VectorOperators.LSHR, 4)
                            .reinterpretAsBytes().and(NIBBLE)
                            .selectFrom(ByteVector.fromArray(SPECIES, tb, 3 * rs + VLEN)));
            b2 = b2.and(NIBBLE).selectFrom(ByteVector.fromArray(SPECIES, tb, 4 * rs))
                    .lanewise(VectorOperators.XOR, b2.reinterpretAsShorts().lanewise(VectorOperators.LSHR, 4)
                            .reinterpretAsBytes().and(NIBBLE)
                            .selectFrom(ByteVector.fromArray(SPECIES, tb, 4 * rs + VLEN)));
            b3 = b3.and(NIBBLE).selectFrom(ByteVector.fromArray(SPECIES, tb, 5 * rs))
                    .lanewise(VectorOperators.XOR, b3.reinterpretAsShorts().lanewise(VectorOperators.LSHR, 4)
                            .reinterpretAsBytes().and(NIBBLE)
                            .selectFrom(ByteVector.fromArray(SPECIES, tb, 5 * rs + VLEN)));
            b0 = b0.lanewise(VectorOperators.XOR, b1);
            b1 = b1.lanewise(VectorOperators.XOR, b2);
            b2 = b2.lanewise(VectorOperators.XOR, b3);
            b0.intoMemorySegment(g0, go0 + off, BO);
            b1.intoMemorySegment(g1, go1 + off, BO);
            b2.intoMemorySegment(g2, go2 + off, BO);
            b3.intoMemorySegment(g3, go3 + off, BO);
        }
    }

}
