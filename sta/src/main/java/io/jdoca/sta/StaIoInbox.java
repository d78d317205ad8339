package io.jdoca.sta;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.agent.CommandQueue;
import java.util.function.Consumer;

/**
 * An IO context's hand-overs from other threads (new QPs, posted actions): a bounded,
 * allocation-free core {@link CommandQueue} the engine drains in every pass, whose waker ends the
 * engine's sleep. Room for every QP twice over, so a full one means a stuck engine: an offer is
 * retried for up to a second, then FULL.
 *
 * <p>{@link #handOver} from any thread; {@link #drain} and {@link #poll} on the engine thread.
 */
final class StaIoInbox {
    static final int CAPACITY = 2 * Sta.MAX_QPS;
    private static final long HAND_OVER_NANOS = 1_000_000_000L;

    private final String owner;
    private final CommandQueue<Object> queue;

    StaIoInbox(String owner, Runnable waker) {
        this.owner = owner;
        this.queue = new CommandQueue<>(CAPACITY, waker);
    }

    /** Queues {@code o} for the engine thread; FULL after a second of a full queue. Any thread; control path. */
    <T> T handOver(T o) {
        if (!queue.offer(o)) {
            long deadline = System.nanoTime() + HAND_OVER_NANOS;
            while (!queue.offer(o)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new DocaException(DocaError.FULL, owner + ": " + queue.capacity()
                            + " hand-overs already waiting");
                }
                Thread.yield();
            }
        }
        return o;
    }

    /** Hands up to {@link #CAPACITY} waiting items to {@code action}; returns how many. Engine thread. */
    int drain(Consumer<Object> action) {
        return queue.drain(action, CAPACITY);
    }

    /** The next waiting item, or null. Engine thread. */
    Object poll() {
        return queue.poll();
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }
}
