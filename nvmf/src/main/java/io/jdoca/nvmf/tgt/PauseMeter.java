package io.jdoca.nvmf.tgt;

/**
 * An IO engine's measure of its own pauses. A <b>pause</b> is the time between the starts of two
 * duty cycles, the time asleep by choice (in StaIo's wait, idle, up to the timeout it asked for)
 * taken out: how long the engine did not look at its QPs while it had reason to. A sleep that
 * overruns its timeout (the thread could not run when it was due: a safepoint, the OS) counts the
 * overrun. A <b>stall</b> is the part of a pause the OS
 * does not explain: the pause less the time the thread waited, runnable, for a CPU
 * ({@link RunQueueDelay}; on a busy machine other threads run first). What remains is the
 * engine's own doing or the JVM's: a long duty cycle, a lock, a safepoint. Each is kept since
 * start and since the last {@link #resetWindow}.
 *
 * <p>Cost: one comparison per cycle on top of the engine's {@code nanoTime}; the run-queue wait is
 * read (a procfs read, about a microsecond) at most once a millisecond and after every pause
 * longer than that. The wait read after a pause may include up to a millisecond from before it,
 * so a stall may be under-counted by that much. Without the kernel's statistics a stall is the
 * whole pause.
 *
 * <p>Threads: {@link #start}, {@link #cycle} and {@link #slept} on the engine thread, the only
 * writer of the figures (read racily by metrics); {@link #resetWindow} from any thread.
 */
final class PauseMeter {
    /** Run-queue wait is sampled at most this often, and after every pause longer than this. */
    static final long SAMPLE_NANOS = 1_000_000L;
    /** How late a sleep may end and still be the sleep asked for (the wait has millisecond granularity). */
    static final long SLEEP_SLACK_NANOS = 1_000_000L;

    private RunQueueDelay runQueue;
    /** Start of the last duty cycle, moved forward by the time slept since. */
    private long mark;
    private long lastSample;
    private long runDelayMark;
    long maxPauseNanos;
    long windowMaxPauseNanos;
    long maxStallNanos;
    long windowMaxStallNanos;
    /** Bumped by {@link #resetWindow}; the engine starts a new window when it sees a new value. */
    private volatile int windowEpoch;
    private int windowEpochSeen;

    /** The engine thread starts: opens its scheduler statistics (if the kernel keeps them). */
    void start(long now) {
        runQueue = RunQueueDelay.ofCurrentThread();
        mark = now;
        sample(now);
    }

    /** A duty cycle starts at {@code now}. Engine thread; allocation-free. */
    void cycle(long now) {
        long pause = now - mark;
        mark = now;
        int epoch = windowEpoch;
        if (epoch != windowEpochSeen) {
            windowEpochSeen = epoch;
            windowMaxPauseNanos = 0;
            windowMaxStallNanos = 0;
        }
        long stall = pause;
        if (pause > SAMPLE_NANOS) {
            long before = runDelayMark;
            if (sample(now)) {
                stall = Math.max(0, pause - (runDelayMark - before));
            }
        } else if (now - lastSample > SAMPLE_NANOS) {
            sample(now);
        }
        if (pause > windowMaxPauseNanos) {
            windowMaxPauseNanos = pause;
            maxPauseNanos = Math.max(maxPauseNanos, pause);
        }
        if (stall > windowMaxStallNanos) {
            windowMaxStallNanos = stall;
            maxStallNanos = Math.max(maxStallNanos, stall);
        }
    }

    /**
     * The engine slept {@code nanos}, having asked for at most {@code requested}, and woke at
     * {@code now}: the sleep asked for is not a pause, an overrun is. Engine thread.
     */
    void slept(long nanos, long requested, long now) {
        long chosen = Math.min(nanos, requested + SLEEP_SLACK_NANOS);
        mark += chosen;
        if (chosen == nanos && now - lastSample > SAMPLE_NANOS) {
            sample(now); // waiting to be scheduled after waking is not the next pause's
        }
    }

    /** Starts a new window (from the engine's next duty cycle). Any thread. */
    void resetWindow() {
        windowEpoch++; // a lost increment from two racing readers still starts a new window
    }

    /** Reads the run-queue wait; false when it cannot be read. */
    private boolean sample(long now) {
        lastSample = now;
        long v = runQueue == null ? -1 : runQueue.nanos();
        if (v < 0) {
            return false;
        }
        runDelayMark = v;
        return true;
    }

    /** The engine thread ends. */
    void close() {
        if (runQueue != null) {
            runQueue.close();
        }
    }
}
