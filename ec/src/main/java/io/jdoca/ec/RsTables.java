package io.jdoca.ec;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Coding coefficients prepared for the engines: {@code rows} output rows over {@code k} inputs,
 * each coefficient expanded once into split-nibble lookup tables, both in the Vector API layout
 * (each 16-entry table replicated across a vector) and in ISA-L's {@code ec_init_tables} layout
 * (32 bytes per coefficient, off-heap). Built on the control path; immutable afterwards, so one
 * instance may be shared by any number of engines and threads.
 */
public final class RsTables {
    final int k;
    final int rows;
    final byte[] coeffs;
    /** Per row: every coefficient is 1, so the row is a plain XOR of the inputs. */
    final boolean[] xorRow;
    final boolean allXor;
    /**
     * Per row, e when the row is geometric with ratio 2^e ({@code c_j = 2^(e*j)}, ISA-L's
     * Vandermonde rows), else -1; {@link #horner} when row r has ratio 2^r for every row and
     * there are at most 4 rows (ISA-L's Vandermonde parity with m &le; 4).
     */
    final int[] hornerShift;
    /** Evaluate by Horner's rule with GF doublings instead of table lookups (see JavaRsEngine). */
    final boolean horner;
    /** Vector layout: for (r, j) at {@code (r*k+j)*2L}: L bytes low-nibble table, L bytes high-nibble table. */
    final byte[] vecTbl;
    /** ISA-L {@code g_tbls} layout, 64-byte aligned native memory. */
    final MemorySegment isalTbl;
    /** For decode rows of a Horner-coded matrix: the Java engine's syndrome decoding of the pattern, else null. */
    final SyndromePlan syndrome;

    private RsTables(int k, int rows, byte[] coeffs, SyndromePlan syndrome) {
        this.k = k;
        this.syndrome = syndrome;
        this.rows = rows;
        this.coeffs = coeffs;
        this.xorRow = new boolean[rows];
        boolean all = true;
        for (int r = 0; r < rows; r++) {
            boolean x = true;
            for (int j = 0; j < k; j++) {
                x &= coeffs[r * k + j] == 1;
            }
            xorRow[r] = x;
            all &= x;
        }
        this.allXor = all;
        this.hornerShift = new int[rows];
        boolean h = k >= 2 && rows <= 4;
        for (int r = 0; r < rows; r++) {
            hornerShift[r] = geometricShift(coeffs, r * k, k);
            h &= hornerShift[r] == r;
        }
        this.horner = h;
        int vl = JavaRsEngine.VLEN;
        this.vecTbl = new byte[rows * k * 2 * vl];
        for (int i = 0; i < rows * k; i++) {
            int c = coeffs[i] & 0xff;
            int base = i * 2 * vl;
            for (int b = 0; b < vl; b++) {
                vecTbl[base + b] = (byte) Gf256.mul(c, b & 15);
                vecTbl[base + vl + b] = (byte) Gf256.mul(c, (b & 15) << 4);
            }
        }
        byte[] g = Gf256.initTables(k, rows, coeffs, 0);
        this.isalTbl = Arena.ofAuto().allocate(Math.max(g.length, 1), 64);
        MemorySegment.copy(g, 0, isalTbl, ValueLayout.JAVA_BYTE, 0, g.length);
    }

    /** e if {@code c[off + j] = (2^e)^j} for every j (e in 0..7), else -1. */
    private static int geometricShift(byte[] c, int off, int k) {
        for (int e = 0; e < 8; e++) {
            int g = 1 << e;
            int p = 1;
            boolean ok = true;
            for (int j = 0; j < k && ok; j++) {
                ok = (c[off + j] & 0xff) == p;
                p = Gf256.mul(p, g);
            }
            if (ok) {
                return e;
            }
        }
        return -1;
    }

    /** Tables for the {@code rows}&times;{@code k} coefficient matrix at {@code coeffs[off..]} (copied). */
    public static RsTables of(int k, int rows, byte[] coeffs, int off) {
        if (k <= 0 || rows <= 0 || coeffs.length - off < k * rows) {
            throw new IllegalArgumentException("bad matrix shape k=" + k + " rows=" + rows);
        }
        byte[] c = new byte[k * rows];
        System.arraycopy(coeffs, off, c, 0, c.length);
        return new RsTables(k, rows, c, null);
    }

    /** Decode rows ({@code rows}&times;{@code k} at {@code coeffs[0..]}) with their syndrome plan (may be null). */
    static RsTables decode(int k, int rows, byte[] coeffs, SyndromePlan syndrome) {
        return new RsTables(k, rows, java.util.Arrays.copyOf(coeffs, k * rows), syndrome);
    }

    public int k() {
        return k;
    }

    public int rows() {
        return rows;
    }

    /** Coefficient of input {@code j} in output row {@code r}. */
    public int coeff(int r, int j) {
        return coeffs[r * k + j] & 0xff;
    }

    /** True when every output is the XOR of the inputs (1-parity Vandermonde). */
    public boolean isXor() {
        return allXor;
    }

    /** Copy of ISA-L's {@code g_tbls} for these coefficients. */
    public byte[] isalTables() {
        return isalTbl.toArray(ValueLayout.JAVA_BYTE);
    }
}
