package io.jdoca.gga;

/**
 * The gateway's view of one target, kept across sessions (issue 12 item 5, docs/STORAGE-GGA.md
 * "Resync"): UP serves reads and writes; DOWN is lost (reads rebuild its half from the survivors,
 * writes land on the survivors and mark the stripe dirty for it); RESYNCING has rejoined and is
 * being rebuilt from the survivors, so it serves nothing until every dirty stripe is rewritten.
 *
 * <pre>
 *   UP → DOWN (lost)          DOWN → UP (rejoined, nothing dirty)     DOWN → RESYNCING (rejoined, dirty)
 *   RESYNCING → UP (resynced) RESYNCING → DOWN (lost again or resync failed)
 * </pre>
 *
 * <p>Immutable; any thread.
 */
public enum TargetState {
    UP,
    DOWN,
    RESYNCING;

    /** The explicit transition table above. */
    public boolean canTransitionTo(TargetState next) {
        return switch (this) {
            case UP -> next == DOWN;
            case DOWN -> next == UP || next == RESYNCING;
            case RESYNCING -> next == UP || next == DOWN;
        };
    }

    /** Whether reads may use this target's halves. */
    public boolean servesReads() {
        return this == UP;
    }
}
