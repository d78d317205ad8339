package io.jdoca.ec;

/**
 * Arithmetic in GF(2^8) with the polynomial x^8+x^4+x^3+x^2+1 (0x11d) and generator 2, exactly as
 * ISA-L's {@code ec_base.c} defines it ({@code gf_mul}, {@code gf_inv}, {@code gf_gen_rs_matrix},
 * {@code gf_gen_cauchy1_matrix}, {@code gf_invert_matrix}, {@code gf_vect_mul_init}), so that
 * coding matrices, and therefore parity, are byte-identical to ISA-L's.
 *
 * <p>Stateless and thread-safe; the tables are built once.
 */
public final class Gf256 {
    /** ISA-L's {@code gff_base}: 2^i for i in 0..254 (index 255 wraps to 1). */
    private static final byte[] EXP = new byte[512];
    /** ISA-L's {@code gflog_base}: log2(a); LOG[0] unused. */
    private static final int[] LOG = new int[256];
    /** Full 64 KiB product table, for the matrix code and the scalar engine. */
    private static final byte[] MUL = new byte[256 * 256];

    static {
        int x = 1;
        for (int i = 0; i < 255; i++) {
            EXP[i] = (byte) x;
            LOG[x] = i;
            x <<= 1;
            if ((x & 0x100) != 0) {
                x ^= 0x11d;
            }
        }
        for (int i = 255; i < EXP.length; i++) {
            EXP[i] = EXP[i - 255];
        }
        for (int a = 1; a < 256; a++) {
            for (int b = 1; b < 256; b++) {
                MUL[(a << 8) | b] = EXP[LOG[a] + LOG[b]];
            }
        }
    }

    private Gf256() {
    }

    /** {@code gf_mul}. */
    public static int mul(int a, int b) {
        return MUL[((a & 0xff) << 8) | (b & 0xff)] & 0xff;
    }

    /** {@code gf_inv}: multiplicative inverse; 0 maps to 0 as in ISA-L. */
    public static int inv(int a) {
        a &= 0xff;
        return a == 0 ? 0 : EXP[255 - LOG[a]] & 0xff;
    }

    /** The 256-entry row of products {@code c * x} (x = 0..255), for scalar code. */
    static int mulRowOffset(int c) {
        return (c & 0xff) << 8;
    }

    static byte[] mulTable() {
        return MUL;
    }

    /**
     * {@code gf_gen_rs_matrix(a, rows, k)}: identity on top, then row i (i &ge; k) is
     * {@code [1, g, g^2, ...]} with {@code g = 2^(i-k)}. The first parity row is all ones (XOR).
     */
    public static byte[] genRsMatrix(int rows, int k) {
        byte[] a = new byte[rows * k];
        for (int i = 0; i < k; i++) {
            a[k * i + i] = 1;
        }
        int gen = 1;
        for (int i = k; i < rows; i++) {
            int p = 1;
            for (int j = 0; j < k; j++) {
                a[k * i + j] = (byte) p;
                p = mul(p, gen);
            }
            gen = mul(gen, 2);
        }
        return a;
    }

    /** {@code gf_gen_cauchy1_matrix(a, rows, k)}: identity on top, then {@code 1 / (i ^ j)}. */
    public static byte[] genCauchy1Matrix(int rows, int k) {
        byte[] a = new byte[rows * k];
        for (int i = 0; i < k; i++) {
            a[k * i + i] = 1;
        }
        int p = k * k;
        for (int i = k; i < rows; i++) {
            for (int j = 0; j < k; j++) {
                a[p++] = (byte) inv(i ^ j);
            }
        }
        return a;
    }

    /**
     * {@code gf_invert_matrix}: Gauss-Jordan inversion of the n&times;n matrix {@code in} (destroyed)
     * into {@code out}; false if singular.
     */
    public static boolean invertMatrix(byte[] in, byte[] out, int n) {
        for (int i = 0; i < n * n; i++) {
            out[i] = 0;
        }
        for (int i = 0; i < n; i++) {
            out[i * n + i] = 1;
        }
        for (int i = 0; i < n; i++) {
            if (in[i * n + i] == 0) {
                int j = i + 1;
                while (j < n && in[j * n + i] == 0) {
                    j++;
                }
                if (j == n) {
                    return false;
                }
                for (int c = 0; c < n; c++) {
                    byte t = in[i * n + c];
                    in[i * n + c] = in[j * n + c];
                    in[j * n + c] = t;
                    t = out[i * n + c];
                    out[i * n + c] = out[j * n + c];
                    out[j * n + c] = t;
                }
            }
            int piv = inv(in[i * n + i]);
            for (int c = 0; c < n; c++) {
                in[i * n + c] = (byte) mul(in[i * n + c], piv);
                out[i * n + c] = (byte) mul(out[i * n + c], piv);
            }
            for (int j = 0; j < n; j++) {
                if (j == i) {
                    continue;
                }
                int t = in[j * n + i] & 0xff;
                if (t == 0) {
                    continue;
                }
                for (int c = 0; c < n; c++) {
                    out[j * n + c] ^= (byte) mul(t, out[i * n + c]);
                    in[j * n + c] ^= (byte) mul(t, in[i * n + c]);
                }
            }
        }
        return true;
    }

    /**
     * {@code gf_vect_mul_init(c, tbl)}: the 32-byte split-nibble table of ISA-L,
     * {@code c*{0..15}} then {@code c*{0,16,..,240}}, written at {@code tbl[off..off+32)}.
     */
    public static void vectMulInit(int c, byte[] tbl, int off) {
        for (int i = 0; i < 16; i++) {
            tbl[off + i] = (byte) mul(c, i);
            tbl[off + 16 + i] = (byte) mul(c, i << 4);
        }
    }

    /** {@code ec_init_tables(k, rows, a, g_tbls)}: 32 bytes per coefficient, row-major. */
    public static byte[] initTables(int k, int rows, byte[] a, int aOff) {
        byte[] t = new byte[32 * k * rows];
        for (int i = 0; i < k * rows; i++) {
            vectMulInit(a[aOff + i], t, 32 * i);
        }
        return t;
    }
}
