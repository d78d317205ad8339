package io.jdoca.storage.common;

import io.jdoca.core.metrics.PrometheusText;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * The Prometheus metrics of a storage app's data path (target-rdma, zero-copy, gga-offload): the
 * workers' counters ({@link Series}, one sample per worker), sessions set up and whether a client
 * is connected. Counters are cumulative over sessions: a session's workers are added to the ended
 * totals when they close.
 *
 * <p>Threads: {@link #sessionStarted} and {@link #sessionEnding} on the app's control thread (the
 * single writer); {@link #render} on any thread (the metrics HTTP thread). The control thread
 * publishes one immutable state per change through a volatile field; live workers' counters are
 * read racily ({@link WorkerCounters#readCounters}): nothing is added to the data path.
 */
public final class DataPathMetrics {
    /**
     * One counter column of the workers: family name, HELP text, and an optional extra label
     * (name, value; null for none). Consecutive columns of the same family form one family.
     */
    public record Series(String family, String help, String label, String value) {
    }

    /** target-rdma's and zero-copy's columns, the order of {@link DataPathWorker#readCounters}. */
    public static final List<Series> DATA_PATH_WORKER = List.of(
            new Series("jdoca_storage_operations_total",
                    "Storage operations (IO requests) completed by the data path, by worker (one per --cpu).", null, null),
            new Series("jdoca_storage_errors_total",
                    "Data-path failures (a failed transfer, send or receive task), by worker and kind.", "kind", "task"),
            new Series("jdoca_storage_engine_polls_total",
                    "Progress-engine polls of the worker, busy (found work) or idle (found none).", "state", "busy"),
            new Series("jdoca_storage_engine_polls_total",
                    "Progress-engine polls of the worker, busy (found work) or idle (found none).", "state", "idle"));

    /** target-rdma's columns: {@link #DATA_PATH_WORKER}, then reads, writes and their bytes. */
    public static final List<Series> TARGET_WORKER = Stream.concat(DATA_PATH_WORKER.stream(), Stream.of(
            new Series("jdoca_storage_io_total", "Completed I/Os by worker and kind.", "kind", "read"),
            new Series("jdoca_storage_io_total", "Completed I/Os by worker and kind.", "kind", "write"),
            new Series("jdoca_storage_io_bytes_total", "Bytes moved by completed I/Os, by worker and kind.", "kind", "read"),
            new Series("jdoca_storage_io_bytes_total", "Bytes moved by completed I/Os, by worker and kind.", "kind", "write")))
            .toList();

    private final String app;
    private final List<Series> series;
    private volatile State state = new State(List.of(), new long[0][], 0);

    /** Live workers plus, per worker index, the ended sessions' totals (one value per series). */
    private record State(List<? extends WorkerCounters> live, long[][] ended, long sessions) {
    }

    /** {@code app} labels every sample ({@code target-rdma}, {@code zero-copy}, {@code gga-offload}). */
    public DataPathMetrics(String app, List<Series> series) {
        this.app = app;
        this.series = List.copyOf(series);
    }

    /** Control thread: a session's workers are ready (their counters now show). */
    public void sessionStarted(List<? extends WorkerCounters> workers) {
        State s = state;
        state = new State(List.copyOf(workers), s.ended, s.sessions + 1);
    }

    /** Control thread, before the workers close: their counts move to the ended totals. */
    public void sessionEnding() {
        State s = state;
        if (!s.live.isEmpty()) {
            state = new State(List.of(), totals(s), s.sessions);
        }
    }

    private long[][] totals(State s) {
        int n = s.ended.length;
        for (WorkerCounters w : s.live) {
            n = Math.max(n, w.index() + 1);
        }
        long[][] v = Arrays.copyOf(s.ended, n);
        for (int i = 0; i < n; i++) {
            v[i] = v[i] == null ? new long[series.size()] : v[i].clone();
        }
        long[] now = new long[series.size()];
        for (WorkerCounters w : s.live) {
            w.readCounters(now);
            long[] e = v[w.index()];
            for (int k = 0; k < now.length; k++) {
                e[k] += now[k];
            }
        }
        return v;
    }

    /** The exposition text (any thread; control path). */
    public String render() {
        State s = state;
        long[][] v = totals(s);
        PrometheusText out = new PrometheusText();
        int k = 0;
        while (k < series.size()) {
            String family = series.get(k).family();
            out.family(family, "counter", series.get(k).help());
            int end = k;
            while (end < series.size() && series.get(end).family().equals(family)) {
                end++;
            }
            for (int i = 0; i < v.length; i++) {
                for (int c = k; c < end; c++) {
                    Series x = series.get(c);
                    if (x.label() == null) {
                        out.sample(family, v[i][c], "app", app, "worker", Integer.toString(i));
                    } else {
                        out.sample(family, v[i][c], "app", app, "worker", Integer.toString(i), x.label(), x.value());
                    }
                }
            }
            k = end;
        }
        out.family("jdoca_storage_sessions_total", "counter", "Client sessions whose data path was set up.");
        out.sample("jdoca_storage_sessions_total", s.sessions, "app", app);
        out.family("jdoca_storage_connected_clients", "gauge", "Clients with a live data path now (0 or 1).");
        out.sample("jdoca_storage_connected_clients", s.live.isEmpty() ? 0 : 1, "app", app);
        out.family("jdoca_storage_workers", "gauge", "Data-path workers running now.");
        out.sample("jdoca_storage_workers", s.live.size(), "app", app);
        return out.toString();
    }
}
