package io.jdoca.sta;

import io.jdoca.core.DocaError;

/**
 * The IO transport error event ({@code doca_sta_event_io_transport_error}): a QP failed — peer
 * closed, socket error, fatal protocol error (after a C2HTermReq) — and was torn down.
 *
 * <p>Called on the IO context's progress-engine thread.
 */
@FunctionalInterface
public interface StaTransportErrorCallback {
    /**
     * @param qp        the QP, now CLOSED
     * @param operation what failed: "recv", "send" or "protocol"
     * @param syndrome  why (CONNECTION_RESET for a peer close, IO_FAILED, UNEXPECTED for a protocol error)
     * @param detail    vendor syndrome: the NVMe/TCP FES for protocol errors, else 0
     */
    void onTransportError(StaQp qp, String operation, DocaError syndrome, int detail);
}
