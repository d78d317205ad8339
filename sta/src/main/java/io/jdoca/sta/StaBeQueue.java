package io.jdoca.sta;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A back-end queue ({@code doca_sta_be_q}): the path from IO engines to a {@link StaBackend},
 * with its statistics. Destroyed asynchronously with {@link StaTaskDestroyBeQueue}; from then on
 * commands routed to it complete with an error.
 *
 * <p>Thread-safe: counters are atomic, the destroyed flag volatile.
 */
public final class StaBeQueue {
    private final StaBackend backend;
    private final int index;
    volatile boolean destroyed;
    final AtomicLong inflight = new AtomicLong();
    final AtomicLong reads = new AtomicLong();
    final AtomicLong writes = new AtomicLong();
    final AtomicLong readBytes = new AtomicLong();
    final AtomicLong writeBytes = new AtomicLong();
    final AtomicLong otherOps = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    final AtomicLong timeouts = new AtomicLong();

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

    /** Counter snapshot ({@code doca_sta_stats} for a back-end queue). */
    public StaStats stats() {
        return StaStats.of("be_queue", backend.name() + "/" + index,
                "reads", reads.get(), "writes", writes.get(), "read_bytes", readBytes.get(),
                "write_bytes", writeBytes.get(), "other_ops", otherOps.get(), "errors", errors.get(),
                "timeouts", timeouts.get(), "inflight", inflight.get());
    }
}
