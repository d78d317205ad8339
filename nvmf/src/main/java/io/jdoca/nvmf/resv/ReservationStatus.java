package io.jdoca.nvmf.resv;

import io.jdoca.sta.nvme.NvmeStatus;

/**
 * The completion statuses the reservation commands answer, as {@link NvmeStatus} encodes them
 * ({@code DNR << 15 | SCT << 9 | SC << 1}).
 *
 * <p>Constants only; safe from any thread.
 */
public final class ReservationStatus {
    public static final int SUCCESS = NvmeStatus.SUCCESS;
    public static final int INVALID_FIELD = NvmeStatus.INVALID_FIELD;
    public static final int INTERNAL_ERROR = NvmeStatus.INTERNAL_ERROR;
    /**
     * Command Sequence Error (generic 0Ch): the answer to a reservation command from a host whose
     * Host Identifier is all zeros (it has not identified itself, so it cannot be a registrant).
     */
    public static final int COMMAND_SEQUENCE_ERROR = NvmeStatus.COMMAND_SEQUENCE_ERROR;
    /** Reservation Conflict, generic 83h with DNR. */
    public static final int RESERVATION_CONFLICT = NvmeStatus.RESERVATION_CONFLICT;
    /**
     * Host Identifier Inconsistent Format, generic 18h with DNR: Reservation Report with EDS cleared
     * (the 64-bit host identifier form) while hosts have 128-bit identifiers, as every NVMe-oF host does.
     */
    public static final int HOST_ID_INCONSISTENT_FORMAT = NvmeStatus.HOST_ID_INCONSISTENT_FORMAT;
    /**
     * Command Aborted due to Preempt and Abort, generic 1Bh: what the caller completes the preempted
     * hosts' outstanding commands with after a successful Preempt and Abort.
     */
    public static final int ABORTED_PREEMPT = NvmeStatus.of(NvmeStatus.SCT_GENERIC, 0x1b, false);

    private ReservationStatus() {
    }
}
