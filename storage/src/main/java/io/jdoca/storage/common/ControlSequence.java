package io.jdoca.storage.common;

import io.jdoca.storage.wire.ControlMessageType;

/**
 * A storage app's control state machine (an enum): which request each state accepts and its
 * explicit transition table. The first constant is "waiting for a client's query" (no session);
 * the state whose {@link #expected()} is null is the end of a session (shut down). Immutable.
 */
public interface ControlSequence<S extends Enum<S>> {

    /** The request type this state accepts; null once the session is shut down. */
    ControlMessageType expected();

    /** True if a request of type {@code t} is the one this state expects. */
    default boolean accepts(ControlMessageType t) {
        return t != null && t == expected();
    }

    /** The explicit transition table (any state may go back to the first one when its session ends). */
    boolean canTransitionTo(S next);
}
