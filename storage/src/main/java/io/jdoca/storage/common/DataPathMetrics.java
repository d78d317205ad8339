package io.jdoca.storage.common;

import io.jdoca.core.metrics.MetricFamilies;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * The Prometheus metrics of a storage app's data path (target-rdma, zero-copy, gga-offload), a
 * {@link MultiCollector} of Prometheus's client served by core's {@code MetricsHttpServer}: the workers'
 * counters ({@link Series}, one sample per worker), their request latency
 * ({@code jdoca_storage_request_latency_seconds}, a histogram: arrival of an IO request to its response
 * sent), sessions set up and whether a client is connected. Counters and latencies are cumulative over
 * sessions: a session's workers are added to the ended totals when they close.
 *
 * <p>Threads: {@link #sessionStarted} and {@link #sessionEnding} on the app's control thread (the
 * single writer); {@link #collect} on any thread (a metrics server thread). The control thread
 * publishes one immutable state per change through a volatile field; live workers' counters and
 * histograms are read racily ({@link WorkerCounters}): nothing is added to the data path.
 */
public final class DataPathMetrics implements MultiCollector {
    /**
     * One counter column of the workers: family name (Prometheus's: the exposition adds {@code _total}),
     * HELP text, and an optional extra label (name, value; null for none). Consecutive columns of the same
     * family form one family.
     */
    public record Series(String family, String help, String label, String value) {
    }

    /** The request latency family. */
    public static final String LATENCY = "jdoca_storage_request_latency_seconds";

    /** target-rdma's and zero-copy's columns, the order of {@link DataPathWorker#readCounters}. */
    public static final List<Series> DATA_PATH_WORKER = List.of(
            new Series("jdoca_storage_requests",
                    "IO requests the data path completed, by worker (one per --cpu).", null, null),
            new Series("jdoca_storage_errors",
                    "Data-path failures (a failed transfer, send or receive task), by worker and kind.",
                    "kind", "task"),
            new Series("jdoca_storage_engine_polls",
                    "Progress-engine polls of the worker, busy (found work) or idle (found none).", "state", "busy"),
            new Series("jdoca_storage_engine_polls", "", "state", "idle"));

    /** target-rdma's columns: {@link #DATA_PATH_WORKER}, then reads, writes and their bytes. */
    public static final List<Series> TARGET_WORKER = Stream.concat(DATA_PATH_WORKER.stream(), Stream.of(
            new Series("jdoca_storage_ops", "Completed I/Os by worker and op (read, write).", "op", "read"),
            new Series("jdoca_storage_ops", "", "op", "write"),
            new Series("jdoca_storage_bytes", "Bytes moved by completed I/Os, by worker and op.", "op", "read"),
            new Series("jdoca_storage_bytes", "", "op", "write")))
            .toList();

    private final String app;
    private final List<Series> series;
    private volatile State state = new State(List.of(), new long[0][], new Histogram[0], 0);

    /** Live workers plus, per worker index, the ended sessions' totals (one value per series) and latencies. */
    private record State(List<? extends WorkerCounters> live, long[][] ended, Histogram[] endedLatency, long sessions) {
    }

    /** {@code app} labels every sample ({@code target-rdma}, {@code zero-copy}, {@code gga-offload}). */
    public DataPathMetrics(String app, List<Series> series) {
        this.app = app;
        this.series = List.copyOf(series);
    }

    /** Control thread: a session's workers are ready (their counters now show). */
    public void sessionStarted(List<? extends WorkerCounters> workers) {
        State s = state;
        state = new State(List.copyOf(workers), s.ended, s.endedLatency, s.sessions + 1);
    }

    /** Control thread, before the workers close: their counts move to the ended totals. */
    public void sessionEnding() {
        State s = state;
        if (!s.live.isEmpty()) {
            state = new State(List.of(), totals(s), latencies(s), s.sessions);
        }
    }

    private int workerSlots(State s, int ended) {
        int n = ended;
        for (WorkerCounters w : s.live) {
            n = Math.max(n, w.index() + 1);
        }
        return n;
    }

    private long[][] totals(State s) {
        int n = workerSlots(s, s.ended.length);
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

    /** Per worker index: the ended sessions' latencies plus the live worker's (racy copies). */
    private Histogram[] latencies(State s) {
        int n = workerSlots(s, s.endedLatency.length);
        Histogram[] h = new Histogram[n];
        for (int i = 0; i < n; i++) {
            h[i] = i < s.endedLatency.length && s.endedLatency[i] != null ? s.endedLatency[i].copy()
                    : new Histogram(DataPathWorker.MAX_LATENCY_NANOS, 2);
        }
        for (WorkerCounters w : s.live) {
            w.addLatencyTo(h[w.index()]);
        }
        return h;
    }

    /** The families of one scrape (any thread; control path). */
    @Override
    public MetricSnapshots collect() {
        State s = state;
        long[][] v = totals(s);
        MetricFamilies out = new MetricFamilies();
        for (int c = 0; c < series.size(); c++) {
            Series x = series.get(c);
            out.counter(x.family(), x.help());
            for (int i = 0; i < v.length; i++) {
                if (x.label() == null) {
                    out.counter(x.family(), x.help(), v[i][c], "app", app, "worker", Integer.toString(i));
                } else {
                    out.counter(x.family(), x.help(), v[i][c], "app", app, "worker", Integer.toString(i), x.label(),
                            x.value());
                }
            }
        }
        Histogram[] lat = latencies(s);
        out.histogram(LATENCY, "Service time of IO requests, from the request's arrival to its response being sent, "
                + "by worker.");
        for (int i = 0; i < lat.length; i++) {
            out.histogram(LATENCY, "", lat[i], "app", app, "worker", Integer.toString(i));
        }
        out.counter("jdoca_storage_sessions", "Client sessions whose data path was set up.", s.sessions, "app", app);
        out.gauge("jdoca_storage_connected_clients", "Clients with a live data path now (0 or 1).",
                s.live.isEmpty() ? 0 : 1, "app", app);
        out.gauge("jdoca_storage_workers", "Data-path workers running now.", s.live.size(), "app", app);
        return out.snapshots();
    }
}
