package io.jdoca.sta.nvme;

/**
 * NVMe completion status values as the 16-bit CQE status field (phase tag 0): {@code DNR << 15 |
 * SCT << 9 | SC << 1} (NVMe Base 2.0 §4.6.1, figures 95-101; NVMe-oF 1.1 figure 18 for the Fabrics
 * command-specific codes).
 *
 * <p>Constants only; safe from any thread.
 */
public final class NvmeStatus {
    public static final int SCT_GENERIC = 0;
    public static final int SCT_COMMAND_SPECIFIC = 1;
    public static final int SCT_MEDIA = 2;
    /** Path related status (Base 2.0 figure 101): the host may retry on another path, so never DNR. */
    public static final int SCT_PATH = 3;

    public static final int SUCCESS = 0;
    // Generic command status (SCT 0), Base 2.0 figure 97.
    public static final int INVALID_OPCODE = of(SCT_GENERIC, 0x01, true);
    public static final int INVALID_FIELD = of(SCT_GENERIC, 0x02, true);
    public static final int DATA_TRANSFER_ERROR = of(SCT_GENERIC, 0x04, false);
    public static final int INTERNAL_ERROR = of(SCT_GENERIC, 0x06, false);
    public static final int ABORTED_BY_REQUEST = of(SCT_GENERIC, 0x07, false);
    public static final int ABORTED_SQ_DELETION = of(SCT_GENERIC, 0x08, false);
    public static final int INVALID_NAMESPACE = of(SCT_GENERIC, 0x0b, true);
    public static final int COMMAND_SEQUENCE_ERROR = of(SCT_GENERIC, 0x0c, true);
    public static final int DATA_SGL_LENGTH_INVALID = of(SCT_GENERIC, 0x0f, true);
    public static final int SGL_DESCRIPTOR_TYPE_INVALID = of(SCT_GENERIC, 0x11, true);
    public static final int COMMAND_INTERRUPTED = of(SCT_GENERIC, 0x21, false);
    public static final int TRANSIENT_TRANSPORT_ERROR = of(SCT_GENERIC, 0x22, false);
    /** Host Identifier Inconsistent Format (18h): e.g. a Reservation Report asking for 64-bit host ids. */
    public static final int HOST_ID_INCONSISTENT_FORMAT = of(SCT_GENERIC, 0x18, true);
    public static final int LBA_OUT_OF_RANGE = of(SCT_GENERIC, 0x80, true);
    public static final int CAPACITY_EXCEEDED = of(SCT_GENERIC, 0x81, true);
    public static final int NAMESPACE_NOT_READY = of(SCT_GENERIC, 0x82, false);
    /** Reservation Conflict (83h, Base 2.0 §8.19): the command will not succeed until the reservation changes. */
    public static final int RESERVATION_CONFLICT = of(SCT_GENERIC, 0x83, true);
    // Command specific (SCT 1).
    public static final int INVALID_QUEUE_IDENTIFIER = of(SCT_COMMAND_SPECIFIC, 0x01, true);
    public static final int INVALID_QUEUE_SIZE = of(SCT_COMMAND_SPECIFIC, 0x02, true);
    public static final int ASYNC_EVENT_REQUEST_LIMIT_EXCEEDED = of(SCT_COMMAND_SPECIFIC, 0x05, true);
    public static final int INVALID_LOG_PAGE = of(SCT_COMMAND_SPECIFIC, 0x09, true);
    public static final int FEATURE_NOT_SAVEABLE = of(SCT_COMMAND_SPECIFIC, 0x0d, true);
    public static final int FEATURE_NOT_CHANGEABLE = of(SCT_COMMAND_SPECIFIC, 0x0e, true);
    // Fabrics command-specific status (NVMe-oF 1.1 figure 18).
    public static final int CONNECT_INCOMPATIBLE_FORMAT = of(SCT_COMMAND_SPECIFIC, 0x80, true);
    public static final int CONNECT_CONTROLLER_BUSY = of(SCT_COMMAND_SPECIFIC, 0x81, true);
    public static final int CONNECT_INVALID_PARAMETERS = of(SCT_COMMAND_SPECIFIC, 0x82, true);
    public static final int CONNECT_INVALID_HOST = of(SCT_COMMAND_SPECIFIC, 0x84, true);
    // Media errors (SCT 2).
    public static final int COMPARE_FAILURE = of(SCT_MEDIA, 0x85, false);
    // Path related (SCT 3): Asymmetric Namespace Access states a path reports (Base 2.0 §8.1.3).
    public static final int ANA_PERSISTENT_LOSS = of(SCT_PATH, 0x01, false);
    public static final int ANA_INACCESSIBLE = of(SCT_PATH, 0x02, false);
    public static final int ANA_TRANSITION = of(SCT_PATH, 0x03, false);

    private NvmeStatus() {
    }

    public static int of(int sct, int sc, boolean dnr) {
        return (dnr ? 0x8000 : 0) | ((sct & 7) << 9) | ((sc & 0xff) << 1);
    }

    public static int sct(int status) {
        return (status >>> 9) & 7;
    }

    public static int sc(int status) {
        return (status >>> 1) & 0xff;
    }

    public static boolean dnr(int status) {
        return (status & 0x8000) != 0;
    }
}
