package io.jdoca.core.graph;

/** Life cycle of a {@link Graph}: nodes and dependencies are added while CREATED; instances run while STARTED. */
public enum GraphState {
    CREATED,
    STARTED,
    STOPPED;

    public boolean canTransitionTo(GraphState next) {
        return switch (this) {
            case CREATED -> next == STARTED || next == STOPPED;
            case STARTED -> next == STOPPED;
            case STOPPED -> false;
        };
    }
}
