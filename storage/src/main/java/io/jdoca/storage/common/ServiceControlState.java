package io.jdoca.storage.common;

import io.jdoca.storage.wire.ControlMessageType;

/**
 * The control sequence a storage service (zero-copy relay) follows with its initiator (reference §1
 * "Sequence" 1–2): query, init (which also builds the target connections), start, stop, shutdown.
 * A request out of order gets {@code error_response(UNEXPECTED)} and changes nothing. The end of a
 * session (shutdown done, or the initiator gone) returns any state to WAIT_QUERY for the next
 * initiator. Immutable; the control thread drives it.
 */
public enum ServiceControlState implements ControlSequence<ServiceControlState> {
    WAIT_QUERY(TargetControlState.WAIT_QUERY),
    WAIT_INIT(TargetControlState.WAIT_INIT),
    WAIT_START(TargetControlState.WAIT_START),
    RUNNING(TargetControlState.RUNNING),
    STOPPED(TargetControlState.STOPPED),
    SHUT_DOWN(TargetControlState.SHUT_DOWN);

    /** The target's state this one follows (same request, same transitions but WAIT_INIT's). */
    private final TargetControlState target;

    ServiceControlState(TargetControlState target) {
        this.target = target;
    }

    /** The same request as the target's state of the same name (the service has no connection step). */
    @Override
    public ControlMessageType expected() {
        return asTarget().expected();
    }

    /**
     * The target's transition table ({@link TargetControlState#canTransitionTo}) without its
     * WAIT_RDMA_CONNECTIONS step: the service builds its connections inside init, so WAIT_INIT
     * leads straight to WAIT_START.
     */
    @Override
    public boolean canTransitionTo(ServiceControlState next) {
        if (this == WAIT_INIT && next != WAIT_QUERY) {
            return next == WAIT_START;
        }
        return asTarget().canTransitionTo(next.asTarget());
    }

    private TargetControlState asTarget() {
        return target;
    }

    public ServiceControlState next() {
        return switch (this) {
            case WAIT_QUERY -> WAIT_INIT;
            case WAIT_INIT -> WAIT_START;
            case WAIT_START -> RUNNING;
            case RUNNING -> STOPPED;
            case STOPPED, SHUT_DOWN -> SHUT_DOWN;
        };
    }
}
