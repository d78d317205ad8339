package io.jdoca.ec;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import java.util.Arrays;

/**
 * An erasure-coding matrix ({@code doca_ec_matrix}). Three kinds, as in DOCA:
 * <ul>
 *   <li><b>coding</b> ({@code doca_ec_matrix_create}, {@code _create_from_raw}): k data blocks,
 *       m redundancy blocks; the full (k+m)&times;k generator is identity on top of the m parity rows.</li>
 *   <li><b>recover</b> ({@code doca_ec_matrix_create_recover}): for a set of missing block indices
 *       (data 0..k-1, redundancy k..k+m-1), the decode rows that rebuild them from the first k
 *       surviving blocks in index order. Built once per loss pattern and cached in the coding
 *       matrix, so a recovery costs one coding pass.</li>
 *   <li><b>update</b> ({@code doca_ec_matrix_create_update}): for changed data block indices, rows
 *       that compute new redundancy from (old data, new data) pairs and the old redundancy.</li>
 * </ul>
 * Immutable after creation except for the recover cache, which is filled on the control path or,
 * for {@link Ec#taskRecoverAllocInit(EcMatrix, long, io.jdoca.core.mem.Buf, io.jdoca.core.mem.Buf, long)},
 * on the first use of a loss pattern. Use from one thread (the context's).
 */
public final class EcMatrix {
    /** What the matrix computes. */
    public enum Kind {
        CODING,
        RECOVER,
        UPDATE
    }

    /** Largest number of data blocks. */
    public static final int MAX_DATA_BLOCKS = 32;
    /** Largest number of redundancy blocks. */
    public static final int MAX_RDNC_BLOCKS = 8;

    private final Kind kind;
    private final EcMatrixType type;
    private final int k;
    private final int m;
    /** The (k+m)&times;k generator (identity on top). */
    private final byte[] generator;
    private final RsTables tables;
    private final int[] indices;
    private final EcMatrix base;
    private final Object owner;
    private long[] cacheKeys = new long[0];
    private EcMatrix[] cacheVals = new EcMatrix[0];

    private EcMatrix(Kind kind, EcMatrixType type, int k, int m, byte[] generator, RsTables tables, int[] indices,
            EcMatrix base, Object owner) {
        this.kind = kind;
        this.type = type;
        this.k = k;
        this.m = m;
        this.generator = generator;
        this.tables = tables;
        this.indices = indices;
        this.base = base;
        this.owner = owner;
    }

    // ------------------------------------------------------------------ factories (control path)

    /** A coding matrix of ISA-L's Vandermonde or Cauchy kind; INVALID_VALUE outside the limits. */
    public static EcMatrix create(EcMatrixType type, int k, int m) {
        return create(type, k, m, null);
    }

    static EcMatrix create(EcMatrixType type, int k, int m, Object owner) {
        checkShape(k, m);
        byte[] g = switch (type) {
            case VANDERMONDE -> Gf256.genRsMatrix(k + m, k);
            case CAUCHY -> Gf256.genCauchy1Matrix(k + m, k);
            case RAW -> throw new DocaException(DocaError.INVALID_VALUE, "RAW matrices come from createFromRaw");
        };
        return new EcMatrix(Kind.CODING, type, k, m, g, RsTables.of(k, m, g, k * k), null, null, owner);
    }

    /**
     * {@code doca_ec_matrix_create_from_raw}: {@code coding} holds the m&times;k redundancy
     * coefficients row by row (the identity part is implied).
     */
    public static EcMatrix createFromRaw(byte[] coding, int k, int m) {
        return createFromRaw(coding, k, m, null);
    }

    static EcMatrix createFromRaw(byte[] coding, int k, int m, Object owner) {
        checkShape(k, m);
        if (coding == null || coding.length != k * m) {
            throw new DocaException(DocaError.INVALID_VALUE, "raw coding matrix must have k*m = " + k * m + " bytes");
        }
        byte[] g = new byte[(k + m) * k];
        for (int i = 0; i < k; i++) {
            g[i * k + i] = 1;
        }
        System.arraycopy(coding, 0, g, k * k, k * m);
        return new EcMatrix(Kind.CODING, EcMatrixType.RAW, k, m, g, RsTables.of(k, m, g, k * k), null, null, owner);
    }

    private static void checkShape(int k, int m) {
        if (k < 1 || k > MAX_DATA_BLOCKS || m < 1 || m > MAX_RDNC_BLOCKS) {
            throw new DocaException(DocaError.INVALID_VALUE,
                    "EC matrix needs 1 <= k <= " + MAX_DATA_BLOCKS + " and 1 <= m <= " + MAX_RDNC_BLOCKS
                            + ", got k=" + k + " m=" + m);
        }
    }

    /**
     * {@code doca_ec_matrix_create_recover}: decode rows for the given missing indices (any order;
     * the recovered blocks come out in ascending index order). INVALID_VALUE if an index is out of
     * range or repeated, more than m are missing, or the surviving rows are singular (possible with
     * ISA-L's Vandermonde matrix for large k and m; never with Cauchy). Cached per loss pattern.
     */
    public EcMatrix createRecover(int[] missing) {
        requireCoding();
        long mask = 0;
        for (int idx : missing) {
            if (idx < 0 || idx >= k + m || (mask & (1L << idx)) != 0) {
                throw new DocaException(DocaError.INVALID_VALUE, "bad missing index " + idx + " in "
                        + Arrays.toString(missing));
            }
            mask |= 1L << idx;
        }
        EcMatrix r = recoverFor(mask);
        if (r == null) {
            throw new DocaException(DocaError.INVALID_VALUE,
                    "cannot recover " + Arrays.toString(missing) + " with a " + k + "+" + m + " " + type + " matrix");
        }
        return r;
    }

    /**
     * The cached recover matrix for a loss bitmask (bit i = block i missing); built on the first
     * request of a pattern. Null when the pattern cannot be recovered. Allocation-free on a hit.
     */
    EcMatrix recoverFor(long mask) {
        long[] keys = cacheKeys;
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] == mask) {
                return cacheVals[i];
            }
        }
        EcMatrix r = buildRecover(mask);
        int n = keys.length;
        cacheKeys = Arrays.copyOf(keys, n + 1);
        cacheVals = Arrays.copyOf(cacheVals, n + 1);
        cacheKeys[n] = mask;
        cacheVals[n] = r;
        return r;
    }

    private EcMatrix buildRecover(long mask) {
        int nMiss = Long.bitCount(mask);
        if (nMiss == 0 || nMiss > m || (mask >>> (k + m)) != 0) {
            return null;
        }
        byte[] b = new byte[k * k];
        int row = 0;
        for (int r = 0; r < k + m && row < k; r++) {
            if ((mask & (1L << r)) == 0) {
                System.arraycopy(generator, r * k, b, row * k, k);
                row++;
            }
        }
        byte[] inv = new byte[k * k];
        if (!Gf256.invertMatrix(b, inv, k)) {
            return null;
        }
        int[] miss = new int[nMiss];
        byte[] dec = new byte[nMiss * k];
        int p = 0;
        for (int e = 0; e < k + m; e++) {
            if ((mask & (1L << e)) == 0) {
                continue;
            }
            miss[p] = e;
            if (e < k) {
                System.arraycopy(inv, e * k, dec, p * k, k);
            } else {
                // A lost redundancy row: its generator row applied to the recovered data.
                for (int i = 0; i < k; i++) {
                    int s = 0;
                    for (int j = 0; j < k; j++) {
                        s ^= Gf256.mul(inv[j * k + i], generator[e * k + j]);
                    }
                    dec[p * k + i] = (byte) s;
                }
            }
            p++;
        }
        return new EcMatrix(Kind.RECOVER, type, k, m, generator,
                RsTables.decode(k, nMiss, dec, SyndromePlan.build(generator, k, m, mask)), miss, this, owner);
    }

    /**
     * {@code doca_ec_matrix_create_update}: rows that turn, for each updated data index u (in the
     * order given), the pair (old block u, new block u), followed by the m old redundancy blocks,
     * into the m new redundancy blocks: {@code p'_r = p_r + c_ru * (old_u + new_u)}.
     */
    public EcMatrix createUpdate(int[] updated) {
        requireCoding();
        int n = updated.length;
        if (n == 0 || 2 * n + m > RsEngine.MAX_INPUTS) {
            throw new DocaException(DocaError.INVALID_VALUE, "update needs 1.." + (RsEngine.MAX_INPUTS - m) / 2
                    + " indices");
        }
        long seen = 0;
        int inputs = 2 * n + m;
        byte[] c = new byte[m * inputs];
        for (int u = 0; u < n; u++) {
            int idx = updated[u];
            if (idx < 0 || idx >= k || (seen & (1L << idx)) != 0) {
                throw new DocaException(DocaError.INVALID_VALUE, "bad update index " + idx);
            }
            seen |= 1L << idx;
            for (int r = 0; r < m; r++) {
                byte coef = generator[(k + r) * k + idx];
                c[r * inputs + 2 * u] = coef;
                c[r * inputs + 2 * u + 1] = coef;
            }
        }
        for (int r = 0; r < m; r++) {
            c[r * inputs + 2 * n + r] = 1;
        }
        return new EcMatrix(Kind.UPDATE, type, k, m, generator, RsTables.of(inputs, m, c, 0),
                updated.clone(), this, owner);
    }

    private void requireCoding() {
        if (kind != Kind.CODING) {
            throw new DocaException(DocaError.INVALID_VALUE, "needs a coding matrix, got a " + kind + " matrix");
        }
    }

    // ------------------------------------------------------------------ accessors

    public Kind kind() {
        return kind;
    }

    public EcMatrixType type() {
        return type;
    }

    /** Data blocks. */
    public int dataBlockCount() {
        return k;
    }

    /** Redundancy blocks. */
    public int rdncBlockCount() {
        return m;
    }

    /** Missing indices (RECOVER, ascending) or updated indices (UPDATE); empty for CODING. */
    public int[] indices() {
        return indices == null ? new int[0] : indices.clone();
    }

    int indexCount() {
        return indices == null ? 0 : indices.length;
    }

    /** The coding matrix this one was derived from (itself for CODING). */
    public EcMatrix base() {
        return base == null ? this : base;
    }

    /** Copy of the (k+m)&times;k generator matrix, row-major. */
    public byte[] generator() {
        return generator.clone();
    }

    /** The coefficients the engines run for this matrix. */
    public RsTables tables() {
        return tables;
    }

    Object owner() {
        return owner;
    }

    @Override
    public String toString() {
        return "EcMatrix[" + kind + ", " + type + ", " + k + "+" + m
                + (indices == null ? "" : ", " + Arrays.toString(indices)) + "]";
    }
}
