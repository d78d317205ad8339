package io.jdoca.storage.common;

import io.jdoca.storage.wire.ControlMessageType;

/**
 * The strict control sequence of target-rdma (reference §1 "Sequence" 3, DOCA's {@code target_rdma.cpp}
 * main): accept, query, init, {@code core_count × 2} create_rdma_connection, start, stop, shutdown.
 * A message the current state does not expect is answered with {@code error_response(UNEXPECTED)} and
 * changes nothing. The end of a session (shutdown done, or the client gone) returns any state to
 * WAIT_QUERY for the next client. Immutable; the control thread drives it.
 */
public enum TargetControlState implements ControlSequence<TargetControlState> {
    WAIT_QUERY,
    WAIT_INIT,
    WAIT_RDMA_CONNECTIONS,
    WAIT_START,
    RUNNING,
    STOPPED,
    SHUT_DOWN;

    @Override
    public ControlMessageType expected() {
        return switch (this) {
            case WAIT_QUERY -> ControlMessageType.QUERY_STORAGE_REQUEST;
            case WAIT_INIT -> ControlMessageType.INIT_STORAGE_REQUEST;
            case WAIT_RDMA_CONNECTIONS -> ControlMessageType.CREATE_RDMA_CONNECTION_REQUEST;
            case WAIT_START -> ControlMessageType.START_STORAGE_REQUEST;
            case RUNNING -> ControlMessageType.STOP_STORAGE_REQUEST;
            case STOPPED -> ControlMessageType.SHUTDOWN_REQUEST;
            case SHUT_DOWN -> null;
        };
    }


    /**
     * The explicit transition table (WAIT_RDMA_CONNECTIONS loops until every connection exists;
     * any state may go back to WAIT_QUERY when its session ends).
     */
    @Override
    public boolean canTransitionTo(TargetControlState next) {
        if (next == WAIT_QUERY) {
            return this != WAIT_QUERY;
        }
        return switch (this) {
            case WAIT_QUERY -> next == WAIT_INIT;
            case WAIT_INIT -> next == WAIT_RDMA_CONNECTIONS;
            case WAIT_RDMA_CONNECTIONS -> next == WAIT_RDMA_CONNECTIONS || next == WAIT_START;
            case WAIT_START -> next == RUNNING;
            case RUNNING -> next == STOPPED;
            case STOPPED -> next == SHUT_DOWN;
            case SHUT_DOWN -> false;
        };
    }

    /** The state after successfully handling this state's request. */
    public TargetControlState next(int connectionsMade, int connectionsNeeded) {
        return switch (this) {
            case WAIT_QUERY -> WAIT_INIT;
            case WAIT_INIT -> WAIT_RDMA_CONNECTIONS;
            case WAIT_RDMA_CONNECTIONS -> connectionsMade >= connectionsNeeded ? WAIT_START : WAIT_RDMA_CONNECTIONS;
            case WAIT_START -> RUNNING;
            case RUNNING -> STOPPED;
            case STOPPED, SHUT_DOWN -> SHUT_DOWN;
        };
    }
}
