package io.jdoca.core.mem;

/** Life cycle of the buffer inventories: configure while CREATED, hand out buffers while STARTED. */
public enum InventoryState {
    CREATED,
    STARTED,
    STOPPED;

    public boolean canTransitionTo(InventoryState next) {
        return switch (this) {
            case CREATED -> next == STARTED || next == STOPPED;
            case STARTED -> next == STOPPED;
            case STOPPED -> false;
        };
    }
}
