package io.jdoca.core.exec;

/**
 * Life cycle of a {@link Task}: FREE (in its pool) → ALLOCATED → SUBMITTED → COMPLETED, then either
 * re-submitted (COMPLETED → SUBMITTED, the re-arm pattern the storage apps use) or freed.
 */
public enum TaskState {
    FREE,
    ALLOCATED,
    SUBMITTED,
    COMPLETED;

    public boolean canTransitionTo(TaskState next) {
        return switch (this) {
            case FREE -> next == ALLOCATED;
            case ALLOCATED -> next == SUBMITTED || next == FREE;
            case SUBMITTED -> next == COMPLETED;
            case COMPLETED -> next == SUBMITTED || next == FREE;
        };
    }
}
