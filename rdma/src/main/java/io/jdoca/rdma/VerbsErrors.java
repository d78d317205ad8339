package io.jdoca.rdma;

import io.jdoca.core.DocaError;
import io.jdoca.verbs.VerbsConstants;

/**
 * Work-completion status ({@code enum ibv_wc_status}) → DOCA error, and whether it is fatal for the
 * connection (docs/RDMA-VERBS.md, "Errors"; DOCA's rule: a fatal error stops the context, a non-fatal one
 * is the task's status only). An RC QP moves to the error state on any failed completion, so on verbs every
 * error but a flush ends the connection: the mapping keeps DOCA's status, {@link #fatal} says whether it is
 * the cause (the QP error) or a consequence (a flush). Stateless; allocation-free.
 */
final class VerbsErrors {
    private VerbsErrors() {
    }

    /**
     * The DOCA error for a failed completion. {@code flushReason} is what a flushed request reports: SHUTDOWN
     * after a local stop, CONNECTION_RESET when the peer or the QP failed first.
     */
    static DocaError map(int wcStatus, DocaError flushReason) {
        return switch (wcStatus) {
            case VerbsConstants.IBV_WC_SUCCESS -> DocaError.SUCCESS;
            case VerbsConstants.IBV_WC_LOC_LEN_ERR -> DocaError.INVALID_VALUE;
            case VerbsConstants.IBV_WC_LOC_PROT_ERR, VerbsConstants.IBV_WC_LOC_ACCESS_ERR,
                    VerbsConstants.IBV_WC_REM_ACCESS_ERR -> DocaError.NOT_PERMITTED;
            case VerbsConstants.IBV_WC_REM_INV_REQ_ERR -> DocaError.INVALID_VALUE;
            case VerbsConstants.IBV_WC_RNR_RETRY_EXC_ERR -> DocaError.TIME_OUT;
            case VerbsConstants.IBV_WC_RETRY_EXC_ERR, VerbsConstants.IBV_WC_RESP_TIMEOUT_ERR,
                    VerbsConstants.IBV_WC_REM_ABORT_ERR -> DocaError.CONNECTION_RESET;
            case VerbsConstants.IBV_WC_WR_FLUSH_ERR -> flushReason == null ? DocaError.CONNECTION_RESET : flushReason;
            default -> DocaError.DRIVER; // REM_OP_ERR, FATAL_ERR, GENERAL_ERR, LOC_QP_OP_ERR, BAD_RESP_ERR, ...
        };
    }

    /**
     * The DOCA error of a failed <em>receive</em>: a message longer than the posted buffers is INVALID_VALUE
     * (DOCA's "receive too small"), however the provider reports it: LOC_LEN_ERR (the IBA's local length error),
     * REM_INV_REQ_ERR (rxe's RC responder, class C) or LOC_QP_OP_ERR (rxe when the copy into the receive's SGEs
     * fails). Anything else as {@link #map}.
     */
    static DocaError mapRecv(int wcStatus, DocaError flushReason) {
        return switch (wcStatus) {
            case VerbsConstants.IBV_WC_LOC_LEN_ERR, VerbsConstants.IBV_WC_REM_INV_REQ_ERR,
                    VerbsConstants.IBV_WC_LOC_QP_OP_ERR -> DocaError.INVALID_VALUE;
            default -> map(wcStatus, flushReason);
        };
    }

    /**
     * True when the status is the connection's own failure (the QP is in error because of it): the connection
     * breaks and, when it was the context's last, the context stops. A flush is the consequence of an
     * earlier failure or of a stop, never a cause.
     */
    static boolean fatal(int wcStatus) {
        return wcStatus != VerbsConstants.IBV_WC_SUCCESS && wcStatus != VerbsConstants.IBV_WC_WR_FLUSH_ERR;
    }

    /**
     * The DOCA error a connection-breaking completion stops the context with: TIME_OUT for receiver-not-ready
     * retries exceeded (as the other transports' RNR), CONNECTION_RESET for a peer that stopped answering,
     * the mapped status otherwise.
     */
    static DocaError connectionReason(int wcStatus) {
        return switch (wcStatus) {
            case VerbsConstants.IBV_WC_RNR_RETRY_EXC_ERR -> DocaError.TIME_OUT;
            case VerbsConstants.IBV_WC_RETRY_EXC_ERR, VerbsConstants.IBV_WC_RESP_TIMEOUT_ERR ->
                    DocaError.CONNECTION_RESET;
            default -> map(wcStatus, DocaError.CONNECTION_RESET);
        };
    }

    /**
     * The IB RNR timer code (IBA Vol. 1, table 45 "Encoding for RNR NAK Timer Field") whose delay × 7 retries
     * comes closest to {@code totalNanos} without going under it, so a send the peer has no receive for fails
     * after about the context's RNR retry time; code 0 (655.36 ms, the longest) when nothing is long enough.
     */
    static int rnrTimerCode(long totalNanos) {
        long perTry = totalNanos / 7;
        for (int code = 1; code < RNR_MICROS.length; code++) {
            if (RNR_MICROS[code] * 1000L >= perTry) {
                return code;
            }
        }
        return 0;
    }

    /** RNR NAK timer values in microseconds by code (code 0 = 655360 µs). */
    static final long[] RNR_MICROS = {655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1_280, 1_920,
        2_560, 3_840, 5_120, 7_680, 10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880, 163_840, 245_760,
        327_680, 491_520};
}
