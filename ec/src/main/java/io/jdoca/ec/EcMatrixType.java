package io.jdoca.ec;

/**
 * {@code enum doca_ec_matrix_type}, with DOCA's numeric values. The coefficients are ISA-L's
 * ({@code gf_gen_cauchy1_matrix}, {@code gf_gen_rs_matrix}), so parity is byte-identical to
 * ISA-L's for the same k and m. Immutable.
 */
public enum EcMatrixType {
    /** Cauchy: {@code 1 / (i ^ j)}; every square sub-matrix invertible (MDS) for k + m &le; 256. */
    CAUCHY(1),
    /** ISA-L's Vandermonde-like matrix: row i is powers of 2^(i-k); row 0 is all ones (parity = XOR for m = 1). */
    VANDERMONDE(2),
    /** A coding matrix supplied by the user ({@code doca_ec_matrix_create_from_raw}). */
    RAW(0);

    private final int value;

    EcMatrixType(int value) {
        this.value = value;
    }

    /** DOCA's value ({@code DOCA_EC_MATRIX_TYPE_CAUCHY = 1}, {@code VANDERMONDE = 2}). */
    public int value() {
        return value;
    }

    /** Parses {@code cauchy} / {@code vandermonde} (the apps' {@code --matrix-type}). */
    public static EcMatrixType parse(String s) {
        return switch (s.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "cauchy" -> CAUCHY;
            case "vandermonde" -> VANDERMONDE;
            default -> throw new IllegalArgumentException("matrix type must be cauchy or vandermonde, got '" + s + "'");
        };
    }
}
