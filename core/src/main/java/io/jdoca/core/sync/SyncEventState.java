package io.jdoca.core.sync;

/**
 * Life cycle of a {@link SyncEvent}: configure while CREATED; STARTED for the synchronous API, or
 * AS_CTX once converted to a context for the asynchronous tasks; STOPPED is final.
 */
public enum SyncEventState {
    CREATED,
    STARTED,
    AS_CTX,
    STOPPED;

    public boolean canTransitionTo(SyncEventState next) {
        return switch (this) {
            case CREATED -> next == STARTED || next == AS_CTX || next == STOPPED;
            case STARTED, AS_CTX -> next == STOPPED;
            case STOPPED -> false;
        };
    }
}
