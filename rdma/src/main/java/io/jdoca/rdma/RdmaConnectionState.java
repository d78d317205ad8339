package io.jdoca.rdma;

/**
 * Life cycle of one {@link RdmaConnection}.
 *
 * <pre>
 *   IDLE ──connect──▶ CONNECTING ──(peer reached)──▶ ESTABLISHED ──(stop / peer gone)──▶ DISCONNECTED
 *     │                  │ (refused, timeout, RNR)                    └──(fatal error)──▶ FAILED
 *     └──────────────────┴──────────────────────────────────────────────────────────────▶ FAILED / DISCONNECTED
 * </pre>
 * DISCONNECTED and FAILED are final; a new connection is needed (a new {@link Rdma#export()}).
 */
public enum RdmaConnectionState {
    /** Exported, not yet connected ({@link Rdma#export()} done). */
    IDLE,
    /** {@link Rdma#connect} called; waiting for the peer. */
    CONNECTING,
    /** Data may flow. */
    ESTABLISHED,
    /** Closed by either side, or the peer went away. */
    DISCONNECTED,
    /** A fatal error (connection refused, receiver-not-ready retries exceeded). */
    FAILED;

    public boolean canTransitionTo(RdmaConnectionState next) {
        return switch (this) {
            case IDLE -> next == CONNECTING || next == DISCONNECTED || next == FAILED;
            case CONNECTING -> next == ESTABLISHED || next == DISCONNECTED || next == FAILED;
            case ESTABLISHED -> next == DISCONNECTED || next == FAILED;
            case DISCONNECTED, FAILED -> false;
        };
    }

    public boolean isTerminal() {
        return this == DISCONNECTED || this == FAILED;
    }
}
