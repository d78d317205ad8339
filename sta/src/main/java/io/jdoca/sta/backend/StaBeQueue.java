package io.jdoca.sta.backend;

import static io.jdoca.sta.backend.StaCounters.Field;

/**
 * A back-end queue ({@code doca_sta_be_q}): the path from IO engines to a {@link StaBackend},
 * with its statistics. Destroyed asynchronously with the main context's destroy-queue task
 * ({@code StaTaskDestroyBeQueue}); from then on commands routed to it complete with an error.
 *
 * <p>Thread-safe: the destroyed flag is volatile; counters are per-engine blocks
 * ({@link StaCounters}: each IO engine writes its own, readers sum them).
 */
public final class StaBeQueue {
    private final StaBackend backend;
    private final int index;
    private volatile boolean destroyed;
    /** One counter block per IO engine, indexed by the engine's index. */
    private final StaCounters[] counters = StaCounters.perEngine();

    StaBeQueue(StaBackend backend, int index) {
        this.backend = backend;
        this.index = index;
    }

    public StaBackend backend() {
        return backend;
    }

    public int index() {
        return index;
    }

    public boolean isDestroyed() {
        return destroyed;
    }

    /** Marks the queue destroyed: new commands routed to it fail (the destroy-queue task's submit). Control path. */
    public void markDestroyed() {
        destroyed = true;
    }

    /** Engine {@code engine}'s counter block (that engine's thread writes it). */
    public StaCounters counters(int engine) {
        return counters[engine];
    }

    /** Counter snapshot ({@code doca_sta_stats} for a back-end queue). */
    public StaStats stats() {
        return StaStats.of("be_queue", backend.name() + "/" + index,
                "reads", sum(Field.READS), "writes", sum(Field.WRITES), "read_bytes", sum(Field.READ_BYTES),
                "write_bytes", sum(Field.WRITE_BYTES), "other_ops", sum(Field.OTHER_OPS), "errors", sum(Field.ERRORS),
                "timeouts", sum(Field.TIMEOUTS), "inflight", sum(Field.INFLIGHT));
    }

    /** Commands executing on this queue now (all engines). */
    public long inflight() {
        return sum(Field.INFLIGHT);
    }

    private long sum(Field f) {
        return StaCounters.sum(counters, f);
    }
}
