package io.jdoca.core.exec;

/**
 * Something a {@link ProgressEngine} polls: a context, a graph runner. In the Agrona sense an
 * agent: {@link #doWork()} does a bounded amount of work and says how much it did.
 *
 * <p>Called only on the progress engine's thread.
 */
public interface Pollable {
    /** Does pending work; returns the number of completions delivered (0 = nothing happened). */
    int doWork();

    /** True if {@link #doWork()} would deliver something right now (so a notification wait must not sleep). */
    boolean hasPendingWork();

    /**
     * How long the engine may sleep in notification mode before it must poll this again, in
     * nanoseconds. {@link Long#MAX_VALUE} when this pollable wakes the engine itself through
     * {@link ProgressEngine#notifyWork()} whenever it has new work (threads in this process).
     * Pollables fed by another process (shared-memory rings) return a bounded interval.
     */
    default long maxSleepNanos() {
        return Long.MAX_VALUE;
    }

    /**
     * The engine is about to sleep in {@link ProgressEngine#waitForNotification(long)} and will not
     * poll this until woken. A pollable whose own thread stands in for the engine while the engine
     * sleeps (a transport servicing its socket) hands the work over here. Engine thread; must not block.
     */
    default void beforeWait() {
    }
}
