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
    WAIT_QUERY,
    WAIT_INIT,
    WAIT_START,
    RUNNING,
    STOPPED,
    SHUT_DOWN;

    @Override
    public ControlMessageType expected() {
        return switch (this) {
            case WAIT_QUERY -> ControlMessageType.QUERY_STORAGE_REQUEST;
            case WAIT_INIT -> ControlMessageType.INIT_STORAGE_REQUEST;
            case WAIT_START -> ControlMessageType.START_STORAGE_REQUEST;
            case RUNNING -> ControlMessageType.STOP_STORAGE_REQUEST;
            case STOPPED -> ControlMessageType.SHUTDOWN_REQUEST;
            case SHUT_DOWN -> null;
        };
    }


    @Override
    public boolean canTransitionTo(ServiceControlState next) {
        if (next == WAIT_QUERY) {
            return this != WAIT_QUERY;
        }
        return switch (this) {
            case WAIT_QUERY -> next == WAIT_INIT;
            case WAIT_INIT -> next == WAIT_START;
            case WAIT_START -> next == RUNNING;
            case RUNNING -> next == STOPPED;
            case STOPPED -> next == SHUT_DOWN;
            case SHUT_DOWN -> false;
        };
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
