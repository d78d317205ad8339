package io.jdoca.sta.nvmf;

/**
 * Life cycle of a queue pair ({@link NvmfQpair}): ALLOCATED (a handle without a connection,
 * {@code doca_sta_io_qp_alloc}) → CONNECTING (a connection attached; NVMe/TCP waits for ICReq,
 * NVMe/RDMA for the first capsule) → READY (capsules flow) → DISCONNECTING (no new commands;
 * draining) → CLOSED. TERMINATING is entered after a fatal protocol error: the notice
 * (C2HTermReq) is flushed, then the connection closes. An ALLOCATED handle may be destroyed
 * without ever connecting (→ CLOSED).
 *
 * <p>Immutable; safe from any thread.
 */
public enum NvmfQpairState {
    ALLOCATED,
    CONNECTING,
    READY,
    DISCONNECTING,
    TERMINATING,
    CLOSED;

    /** The allowed transitions. */
    public boolean canTransitionTo(NvmfQpairState next) {
        return switch (this) {
            case ALLOCATED -> next == CONNECTING || next == CLOSED;
            case CONNECTING -> next == READY || next == TERMINATING || next == CLOSED;
            case READY -> next == DISCONNECTING || next == TERMINATING || next == CLOSED;
            case DISCONNECTING -> next == TERMINATING || next == CLOSED;
            case TERMINATING -> next == CLOSED;
            case CLOSED -> false;
        };
    }
}
