package io.jdoca.core.mem;

/** Life cycle of a {@link MemoryMap}: configure while CREATED, use while STARTED, then STOPPED (final). */
public enum MmapState {
    CREATED,
    STARTED,
    STOPPED;

    public boolean canTransitionTo(MmapState next) {
        return switch (this) {
            case CREATED -> next == STARTED || next == STOPPED;
            case STARTED -> next == STOPPED;
            case STOPPED -> false;
        };
    }
}
