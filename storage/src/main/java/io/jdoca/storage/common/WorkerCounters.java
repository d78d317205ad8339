package io.jdoca.storage.common;

/**
 * A data-path worker whose counters a metrics scrape may read: {@link #readCounters} fills the
 * values in the order of the app's {@link DataPathMetrics.Series}.
 *
 * <p>Threads: called on the metrics HTTP thread or the control thread while the worker runs; reads
 * are racy (opaque reads of the worker's plain single-writer longs), never a lock or atomic on the
 * data path.
 */
public interface WorkerCounters {
    /** The worker's index (its {@code --cpu} position). */
    int index();

    /** Writes the current counter values into {@code into} (racy reads). */
    void readCounters(long[] into);

    /** Adds the worker's request latencies (nanoseconds) to {@code into} (a racy copy); none by default. */
    default void addLatencyTo(org.HdrHistogram.Histogram into) {
    }
}
