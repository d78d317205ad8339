package io.jdoca.gga;

import io.jdoca.core.DocaError;

/**
 * What the service does when targets are gone (beyond DOCA, which assumes three healthy targets).
 * Reads: a lost data half is rebuilt from the other half and the parity (recover_a for data_1,
 * recover_b for data_2); a lost parity target does not matter to reads; two lost targets fail the
 * read with NOT_CONNECTED. Writes: with one target down they land on the two survivors and the
 * stripe is marked dirty for the lost one ({@link DirtyStripes}), which is rebuilt from the
 * survivors when it rejoins (resync) before it serves reads again; with two down they are refused
 * with NOT_CONNECTED (documented in docs/STORAGE-GGA.md). Nothing returned as data is ever
 * unverified: see {@link CompressedContainer#unpack}.
 *
 * <p>Stateless; any thread; allocation-free.
 */
public final class DegradedPolicy {
    /** Result code of IOs the policy refuses. */
    public static final DocaError REFUSED = DocaError.NOT_CONNECTED;

    private DegradedPolicy() {
    }

    /**
     * The fetch plan of a read block given the scheduled kind and the mask of targets that are
     * down ({@link TargetRole#bit}); null when the read cannot be served.
     */
    public static RecoveryKind readPlan(RecoveryKind scheduled, int downMask) {
        boolean d1 = (downMask & TargetRole.bit(TargetRole.DATA_1)) != 0;
        boolean d2 = (downMask & TargetRole.bit(TargetRole.DATA_2)) != 0;
        boolean dp = (downMask & TargetRole.bit(TargetRole.DATA_P)) != 0;
        int down = (d1 ? 1 : 0) + (d2 ? 1 : 0) + (dp ? 1 : 0);
        if (down >= 2) {
            return null;
        }
        if (d1) {
            return RecoveryKind.RECOVER_A;
        }
        if (d2) {
            return RecoveryKind.RECOVER_B;
        }
        if (dp) {
            return RecoveryKind.NONE;
        }
        return scheduled;
    }

    /** Targets a read plan fetches from, as a mask. */
    public static int targetsOf(RecoveryKind plan) {
        return switch (plan) {
            case NONE -> TargetRole.bit(TargetRole.DATA_1) | TargetRole.bit(TargetRole.DATA_2);
            case RECOVER_A -> TargetRole.bit(TargetRole.DATA_2) | TargetRole.bit(TargetRole.DATA_P);
            case RECOVER_B -> TargetRole.bit(TargetRole.DATA_1) | TargetRole.bit(TargetRole.DATA_P);
        };
    }

    /** Whether writes are accepted with these targets down: at most one (its half is logged dirty). */
    public static boolean writeAllowed(int downMask) {
        return Integer.bitCount(downMask & TargetRole.ALL_MASK) <= 1;
    }
}
