package io.jdoca.sta;

/**
 * Life cycle of an NVMe/TCP queue pair: CONNECTING (waiting for ICReq) → READY (capsules flow) →
 * DISCONNECTING (no new commands; draining) → CLOSED. TERMINATING is entered after a fatal
 * protocol error: the C2HTermReq is flushed, then the connection closes.
 *
 * <p>Immutable; safe from any thread.
 */
public enum StaQpState {
    CONNECTING,
    READY,
    DISCONNECTING,
    TERMINATING,
    CLOSED;

    /** The allowed transitions. */
    public boolean canTransitionTo(StaQpState next) {
        return switch (this) {
            case CONNECTING -> next == READY || next == TERMINATING || next == CLOSED;
            case READY -> next == DISCONNECTING || next == TERMINATING || next == CLOSED;
            case DISCONNECTING -> next == TERMINATING || next == CLOSED;
            case TERMINATING -> next == CLOSED;
            case CLOSED -> false;
        };
    }
}
