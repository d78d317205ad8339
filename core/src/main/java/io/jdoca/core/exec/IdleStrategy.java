package io.jdoca.core.exec;

/**
 * How a polling loop backs off when {@link ProgressEngine#progress()} found nothing (after Agrona's
 * {@code IdleStrategy}). Call {@code idle(workCount)} after every duty cycle; work resets the
 * back-off. On a 2-core machine running a pipeline of processes, use {@link #backoff()} or
 * {@link #notifying(ProgressEngine)} rather than {@link #busySpin()}.
 *
 * <p>Instances hold per-loop state: one per thread.
 */
public interface IdleStrategy {
    /** Backs off if {@code workCount} is 0, else resets. */
    void idle(int workCount);

    /** Resets the back-off state. */
    void reset();

    /**
     * Ends a sleep in progress early where the strategy sleeps on something other than the thread
     * (the notifying strategy wakes its engine). Any thread; allocation-free. Parking strategies need
     * nothing here: the owner unparks the thread itself (as {@code AgentRunner.close} does).
     */
    default void wake() {
    }

    /** Spins with {@link Thread#onSpinWait()}: lowest latency, a whole core. */
    static IdleStrategy busySpin() {
        return new IdleStrategies.BusySpin();
    }

    /** Yields the CPU on every idle cycle. */
    static IdleStrategy yielding() {
        return new IdleStrategies.Yielding();
    }

    /** Spins, then yields, then parks with exponential back-off from 1 µs up to 1 ms. */
    static IdleStrategy backoff() {
        return new IdleStrategies.Backoff(64, 32, 1_000, 1_000_000);
    }

    static IdleStrategy backoff(int spins, int yields, long minParkNanos, long maxParkNanos) {
        return new IdleStrategies.Backoff(spins, yields, minParkNanos, maxParkNanos);
    }

    /** Parks for a fixed period on every idle cycle. */
    static IdleStrategy park(long nanos) {
        return new IdleStrategies.Park(nanos);
    }

    /**
     * Spins and yields briefly, then sleeps in the engine's notification mode until work arrives
     * (at most {@code maxWaitNanos} at a time): near-zero CPU when idle, a wake-up on work.
     */
    static IdleStrategy notifying(ProgressEngine pe) {
        return notifying(pe, 64, 16, 100_000_000L);
    }

    static IdleStrategy notifying(ProgressEngine pe, int spins, int yields, long maxWaitNanos) {
        return new IdleStrategies.Sleeping(new IdleStrategies.PeSleeper(pe), spins, yields, maxWaitNanos);
    }

    /**
     * Spins {@code spins} idle cycles, yields {@code yields}, then on every further idle cycle sleeps
     * in the owner's own wait ({@code sleeper}: a selector, a completion channel, a progress
     * engine's notification) for at most {@code maxSleepNanos}; {@link #wake()} ends that sleep.
     * For agents whose work arrives on something the thread can block on: near-zero CPU when idle.
     */
    static IdleStrategy sleeping(Sleeper sleeper, int spins, int yields, long maxSleepNanos) {
        return new IdleStrategies.Sleeping(sleeper, spins, yields, maxSleepNanos);
    }

    /**
     * Where a {@link #sleeping} strategy sleeps: the agent's own blocking wait.
     *
     * <p>Threads: {@link #sleep} on the owner (agent) thread only; {@link #wake} from any thread.
     * Both allocation-free.
     */
    interface Sleeper {
        /**
         * Blocks until the owner may have work (a readable socket, a completion, a hand-over) or
         * {@code maxNanos} pass; returns at once when work is already pending.
         */
        void sleep(long maxNanos);

        /** Ends a {@link #sleep} in progress early (or makes the next one return at once). */
        void wake();
    }

    /**
     * Sleeps in {@code selector} (an I/O agent's sockets) for at most {@code maxSleepNanos} (asked
     * on every idle cycle: the owner's next deadline; under 1 ms, 0 included = yield, do not
     * select); {@link #wake()} wakes the selector. Ready keys go to {@code onReady} while it sleeps
     * (no selected-key set, no allocation); with {@code yieldAfterWork} it also yields after a duty
     * cycle that did work.
     */
    static IdleStrategy selecting(java.nio.channels.Selector selector, java.util.function.LongSupplier maxSleepNanos,
                                  java.util.function.Consumer<java.nio.channels.SelectionKey> onReady,
                                          boolean yieldAfterWork) {
        return new IdleStrategies.Selecting(selector, maxSleepNanos, onReady, yieldAfterWork);
    }
}
