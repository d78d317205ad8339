package io.jdoca.ec;

/**
 * Syndrome decoding of one loss pattern of a coding matrix whose parity rows are Horner rows
 * (ISA-L's Vandermonde with m &le; 4: parity row r has {@code c_rj = (2^r)^j}), for the Java engine.
 *
 * <p>The generic decode multiplies k survivors by e decode rows: e&middot;k table lookups, and
 * without a one-instruction 256-bit byte permute a lookup costs about three Horner steps. Here the
 * surviving parity rows P (the first e, as the decode matrix's inputs are) are re-evaluated by
 * Horner's rule over the surviving data only (lost inputs count as zero: their XOR is skipped,
 * their doublings kept), which gives the syndromes {@code S_p = parity_p + sum_{l lost} c_pl d_l};
 * the lost data then is {@code (C_{P,L})^-1 S}, an e&times;e lookup multiply, and a lost parity row
 * q is its own Horner row plus {@code sum_l c_ql d_l}. When P is rows 0..e-1 the system is a
 * Vandermonde one in {@code x_l = 2^l}, and Bjorck-Pereyra solves it with e(e-1)/2 lookups plus
 * multiplications by the x_l (doublings when the lost positions are small, as for the lowest
 * blocks). The result is unique, so it equals the generic decode byte for byte.
 *
 * <p>Built on the control path by {@link EcMatrix} for each cached pattern with at least one lost
 * data block; immutable.
 */
final class SyndromePlan {

    /** Data blocks (= the decode matrix's inputs). */
    final int k;
    /** Lost data blocks; outputs 0..e-1. */
    final int e;
    /** Recovered blocks: the e lost data blocks, then the lost parity rows (ascending). */
    final int nOut;
    /** Highest surviving data position; -1 when every data block is lost. */
    final int top;
    /** Per data position: its index among the decode inputs, or -1 when lost. */
    final int[] srcOf;
    /** Horner accumulators: rows 0..nAcc-1 (the highest row used or lost, plus one). */
    final int nAcc;
    /**
     * Per Horner row: the output slot it is written to (a row in P: the slot of its syndrome, the
     * surviving parity block being decode input k-e+i for P[i]; a lost row: its own output), else -1.
     */
    final int[] rowOut = {-1, -1, -1, -1};
    /**
     * The solve for patterns without a Bjorck-Pereyra plan: an nOut&times;nOut matrix over the
     * output slots (syndromes of the lost data, then partial parity rows), run in place by the
     * engine's rows kernels.
     */
    RsTables solve;
    /**
     * Bjorck-Pereyra path (P = rows 0..e-1, e &ge; 2, no parity lost, and stage 1's doublings
     * cheaper than the matrix solve's extra lookups): {@code bpDbl[kk]} = the kk-th lowest lost
     * position (x_kk = 2^bpDbl[kk]); else null.
     */
    int[] bpDbl;
    /** Stage 2 divisors' lookup tables, engine VLEN layout, in the kernels' order (kk = e-2 down to 0, i ascending). */
    byte[] bpTbl;

    private SyndromePlan(int k, int e, int nOut, int top, int[] srcOf, int nAcc) {
        this.k = k;
        this.e = e;
        this.nOut = nOut;
        this.top = top;
        this.srcOf = srcOf;
        this.nAcc = nAcc;
    }

    /**
     * The plan for loss bitmask {@code mask} (bit i = block i lost) of the (k+m)&times;k generator
     * {@code gen}, or null when the parity rows are not Horner rows, no data block is lost, or the
     * pattern is not recoverable.
     */
    static SyndromePlan build(byte[] gen, int k, int m, long mask) {
        if (m > 4 || k < 1) {
            return null;
        }
        for (int r = 0; r < m; r++) {
            int g = 1 << r;
            int p = 1;
            for (int j = 0; j < k; j++) {
                if ((gen[(k + r) * k + j] & 0xff) != p) {
                    return null;
                }
                p = Gf256.mul(p, g);
            }
        }
        int e = Long.bitCount(mask & ((1L << k) - 1));
        int nLost = Long.bitCount(mask);
        if (e == 0 || nLost > m) {
            return null;
        }
        int[] lostData = new int[e];
        int[] srcOf = new int[k];
        int in = 0;
        int nl = 0;
        int top = -1;
        for (int j = 0; j < k; j++) {
            if ((mask & (1L << j)) != 0) {
                lostData[nl++] = j;
                srcOf[j] = -1;
            } else {
                srcOf[j] = in++;
                top = j;
            }
        }
        int[] usedRows = new int[e];
        int[] lostRows = new int[nLost - e];
        int nu = 0;
        int nq = 0;
        for (int r = 0; r < m; r++) {
            if ((mask & (1L << (k + r))) != 0) {
                lostRows[nq++] = r;
            } else if (nu < e) {
                usedRows[nu++] = r;
            }
        }
        if (nu < e) {
            return null;
        }
        // C_{P,L} and its inverse: d_L = inv * S.
        byte[] c = new byte[e * e];
        for (int i = 0; i < e; i++) {
            for (int l = 0; l < e; l++) {
                c[i * e + l] = gen[(k + usedRows[i]) * k + lostData[l]];
            }
        }
        byte[] inv = new byte[e * e];
        if (!Gf256.invertMatrix(c, inv, e)) {
            return null;
        }
        int nOut = nLost;
        // Output coefficients over the syndromes: lost data rows of inv; a lost parity row q adds
        // sum_l c_ql d_l = sum_i (sum_l c_ql inv[l][i]) S_i to its own Horner row.
        int[][] coef = new int[nOut][e];
        for (int o = 0; o < e; o++) {
            for (int i = 0; i < e; i++) {
                coef[o][i] = inv[o * e + i] & 0xff;
            }
        }
        for (int q = 0; q < lostRows.length; q++) {
            for (int i = 0; i < e; i++) {
                int s = 0;
                for (int l = 0; l < e; l++) {
                    s ^= Gf256.mul(gen[(k + lostRows[q]) * k + lostData[l]], inv[l * e + i]);
                }
                coef[e + q][i] = s;
            }
        }
        if (usedRows[0] == 0 && nLost == 1) {
            return null; // the decode row is all ones: the engine's XOR kernel is cheaper
        }
        int nAcc = 1;
        for (int i = 0; i < e; i++) {
            nAcc = Math.max(nAcc, usedRows[i] + 1);
        }
        for (int r : lostRows) {
            nAcc = Math.max(nAcc, r + 1);
        }
        SyndromePlan p = new SyndromePlan(k, e, nOut, top, srcOf, nAcc);
        for (int i = 0; i < e; i++) {
            p.rowOut[usedRows[i]] = i;
        }
        for (int q = 0; q < lostRows.length; q++) {
            p.rowOut[lostRows[q]] = e + q;
        }
        p.planBjorckPereyra(usedRows, lostData, lostRows);
        if (p.bpDbl == null) {
            byte[] mm = new byte[nOut * nOut];
            for (int o = 0; o < nOut; o++) {
                for (int i = 0; i < e; i++) {
                    mm[o * nOut + i] = (byte) coef[o][i];
                }
                if (o >= e) {
                    mm[o * nOut + o] = 1;
                }
            }
            p.solve = RsTables.of(nOut, nOut, mm, 0);
        }
        return p;
    }

    private void planBjorckPereyra(int[] usedRows, int[] lostData, int[] lostRows) {
        if (e < 2 || lostRows.length > 0 || top < 0) {
            return;
        }
        for (int i = 0; i < e; i++) {
            if (usedRows[i] != i) {
                return;
            }
        }
        // Stage 1 multiplies by x_kk = 2^lostData[kk], e-1-kk times, as that many doublings (four
        // simple instructions each); the matrix solve instead costs about e^2 - e(e-1)/2 more
        // lookups (~15 instructions each) and extra passes. Low lost positions (the worst case
        // of losing the first m data blocks) cost a handful of doublings.
        int dbl = 0;
        for (int i = 0; i < e - 1; i++) {
            dbl += (e - 1 - i) * lostData[i];
        }
        if (dbl > 4 * e * e) {
            return;
        }
        int vl = JavaRsEngine.VLEN;
        int[] x = new int[e];
        for (int i = 0; i < e; i++) {
            x[i] = 1;
            for (int t = 0; t < lostData[i]; t++) {
                x[i] = Gf256.mul(x[i], 2);
            }
        }
        int n = e - 1;
        byte[] tb = new byte[n * (n + 1) / 2 * 2 * vl];
        int cnt = 0;
        for (int kk = n - 1; kk >= 0; kk--) {
            for (int i = kk + 1; i <= n; i++) {
                fill(tb, cnt++ * 2 * vl, Gf256.inv(x[i] ^ x[i - kk - 1]), vl);
            }
        }
        this.bpTbl = tb;
        this.bpDbl = java.util.Arrays.copyOf(lostData, e - 1);
    }

    /** Split-nibble tables of {@code c} at {@code t[off..off+2*vl)}, each 16-entry table repeated across vl bytes. */
    static void fill(byte[] t, int off, int c, int vl) {
        for (int b = 0; b < vl; b++) {
            t[off + b] = (byte) Gf256.mul(c, b & 15);
            t[off + vl + b] = (byte) Gf256.mul(c, (b & 15) << 4);
        }
    }
}
