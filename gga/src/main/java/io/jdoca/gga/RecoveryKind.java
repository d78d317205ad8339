package io.jdoca.gga;

/**
 * How one block of a read is fetched (reference §5 "Recovery read" table).
 *
 * <p>Immutable; any thread.
 */
public enum RecoveryKind {
    /** data_1 and data_2, no EC. */
    NONE,
    /** Even recovery count: data_2 and parity → data_1 rebuilt at chunk+0; EC sources [d2, dp]. */
    RECOVER_A,
    /** Odd recovery count: data_1 and parity → data_2 rebuilt at chunk+b; EC sources [d1, dp]. */
    RECOVER_B;

    /** The target role rebuilt by this recovery (-1 for NONE). */
    public int missingRole() {
        return switch (this) {
            case NONE -> -1;
            case RECOVER_A -> TargetRole.DATA_1;
            case RECOVER_B -> TargetRole.DATA_2;
        };
    }
}
