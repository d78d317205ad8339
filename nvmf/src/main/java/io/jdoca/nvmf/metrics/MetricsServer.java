package io.jdoca.nvmf.metrics;

import io.jdoca.core.metrics.MetricsHttpServer;
import io.jdoca.core.metrics.PrometheusText;
import io.jdoca.sta.StaIo;
import io.jdoca.sta.StaNamespace;
import io.jdoca.sta.StaStats;
import io.jdoca.nvmf.bdev.Bdev;
import io.jdoca.nvmf.tgt.NvmfController;
import io.jdoca.nvmf.tgt.NvmfSubsystem;
import io.jdoca.nvmf.tgt.NvmfTarget;
import java.io.IOException;
import java.net.InetAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Prometheus scrape endpoint ({@code GET /metrics}, text exposition format 0.0.4) on the JDK's
 * {@code HttpServer} (core {@link MetricsHttpServer}, {@link PrometheusText}): I/O counts and
 * bytes by subsystem and namespace, errors by kind, the IO engines' counters and busy/idle time,
 * bdev counters, controllers and connected hosts.
 *
 * <p>Reading adds nothing to the I/O path: every value is read from counters the engines already
 * keep (single-writer fields read racily, or STA's existing counters); a scrape is a control-path
 * walk over the target, taken as one command on {@code sta-main} (the owner of the target state).
 * Binds where the operator says ({@code --metrics-address}, default 127.0.0.1). Threads: one HTTP
 * thread.
 */
public final class MetricsServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsServer.class);
    public static final String CONTENT_TYPE = PrometheusText.CONTENT_TYPE;

    private final MetricsHttpServer server;

    private MetricsServer(MetricsHttpServer server) {
        this.server = server;
    }

    /** Starts serving {@code target}'s metrics on address:port (port 0 = any free one). */
    public static MetricsServer start(InetAddress address, int port, Supplier<NvmfTarget> target) throws IOException {
        MetricsHttpServer s = MetricsHttpServer.start("sta", address, port, () -> {
            NvmfTarget t = target.get();
            // One consistent view, taken on sta-main (the target state's owner).
            return t == null ? "" : t.query("metrics", () -> render(t));
        });
        LOG.info("Prometheus metrics on http://{}:{}/metrics", address.getHostAddress(), s.port());
        return new MetricsServer(s);
    }

    public int port() {
        return server.port();
    }

    /** The exposition text for {@code t} (control path). */
    public static String render(NvmfTarget t) {
        PrometheusText out = new PrometheusText();
        List<NvmfSubsystem> subs = t.subsystems().stream().filter(s -> !s.isDiscovery()).toList();

        String[][] nsCounters = {
            {"reads", "jdoca_nvmf_namespace_reads_total", "Read commands completed, by namespace."},
            {"writes", "jdoca_nvmf_namespace_writes_total", "Write commands completed, by namespace."},
            {"read_bytes", "jdoca_nvmf_namespace_read_bytes_total", "Bytes read, by namespace."},
            {"write_bytes", "jdoca_nvmf_namespace_write_bytes_total", "Bytes written, by namespace."},
            {"other_ops", "jdoca_nvmf_namespace_other_ops_total",
                "Other I/O commands (flush, write zeroes, DSM), by namespace."},
            {"errors", "jdoca_nvmf_namespace_errors_total",
                "I/O commands completed with an error status, by namespace."},
        };
        for (String[] c : nsCounters) {
            out.family(c[1], "counter", c[2]);
            for (NvmfSubsystem s : subs) {
                for (StaNamespace ns : s.sta().namespaces()) {
                    Bdev b = t.bdevOf(ns.backend());
                    out.sample(c[1], ns.stats().get(c[0]), "subsystem", s.nqn(), "nsid", Integer.toString(ns.nsid()),
                            "bdev", b != null ? b.name() : ns.backend().name());
                }
            }
        }

        out.family("jdoca_nvmf_controllers", "gauge", "Live controllers, by subsystem.");
        out.family("jdoca_nvmf_connected_hosts", "gauge", "Distinct host NQNs with a live controller, by subsystem.");
        List<NvmfController> ctrls = t.controllers();
        for (NvmfSubsystem s : subs) {
            Set<String> hosts = new HashSet<>();
            long n = 0;
            for (NvmfController c : ctrls) {
                if (c.subsystem() == s) {
                    n++;
                    hosts.add(c.hostNqn());
                }
            }
            out.sample("jdoca_nvmf_controllers", n, "subsystem", s.nqn());
            out.sample("jdoca_nvmf_connected_hosts", hosts.size(), "subsystem", s.nqn());
        }

        String[][] engine = {
            {"reads", "jdoca_sta_engine_reads_total", "counter", "Reads completed by the IO engine."},
            {"writes", "jdoca_sta_engine_writes_total", "counter", "Writes completed by the IO engine."},
            {"read_bytes", "jdoca_sta_engine_read_bytes_total", "counter", "Bytes read through the IO engine."},
            {"write_bytes", "jdoca_sta_engine_write_bytes_total", "counter", "Bytes written through the IO engine."},
            {"non_offloaded", "jdoca_sta_engine_non_offloaded_total", "counter",
                "Commands handed to the target (admin, fabrics)."},
            {"qps_accepted", "jdoca_sta_engine_qpairs_accepted_total", "counter", "Queue pairs accepted."},
            {"qps_live", "jdoca_sta_engine_qpairs", "gauge", "Queue pairs connected now."},
        };
        List<StaIo> ios = t.ioContexts();
        for (String[] c : engine) {
            out.family(c[1], c[2], c[3]);
            for (StaIo io : ios) {
                out.sample(c[1], io.stats().get(c[0]), "engine", io.name());
            }
        }
        out.family("jdoca_sta_engine_errors_total", "counter",
                "Errors by kind: I/O status, digest (CRC32C), protocol.");
        for (StaIo io : ios) {
            StaStats st = io.stats();
            out.sample("jdoca_sta_engine_errors_total", st.get("io_errors"), "engine", io.name(), "kind", "io");
            out.sample("jdoca_sta_engine_errors_total", st.get("digest_errors"), "engine", io.name(), "kind", "digest");
            out.sample("jdoca_sta_engine_errors_total", st.get("protocol_errors"), "engine", io.name(),
                    "kind", "protocol");
        }
        out.family("jdoca_sta_engine_seconds_total", "counter", "IO engine time since start: busy (polling, working) "
                + "or idle (asleep waiting for the sockets).");
        for (Object[] e : t.engineTimes()) {
            out.sample("jdoca_sta_engine_seconds_total", (double) e[1], "engine", (String) e[0], "state", "busy");
            out.sample("jdoca_sta_engine_seconds_total", (double) e[2], "engine", (String) e[0], "state", "idle");
        }
        out.family("jdoca_sta_engine_max_pause_seconds", "gauge", "Longest pause of the IO engine since start: "
                + "time between two duty cycles, asleep waiting for work excluded.");
        for (NvmfTarget.EnginePause p : t.enginePauses()) {
            out.sample("jdoca_sta_engine_max_pause_seconds", p.maxNanos() / 1e9, "engine", p.engine());
        }

        List<Bdev> bdevs = t.bdevs();
        String[][] bd = {
            {"num_read_ops", "jdoca_bdev_read_ops_total", "Reads reaching the bdev."},
            {"bytes_read", "jdoca_bdev_read_bytes_total", "Bytes read from the bdev."},
            {"num_write_ops", "jdoca_bdev_write_ops_total", "Writes reaching the bdev."},
            {"bytes_written", "jdoca_bdev_write_bytes_total", "Bytes written to the bdev."},
            {"jdoca_errors", "jdoca_bdev_errors_total", "Back-end errors of the bdev."},
        };
        for (String[] c : bd) {
            out.family(c[1], "counter", c[2]);
            for (Bdev b : bdevs) {
                out.sample(c[1], ((Number) b.iostat().get(c[0])).doubleValue(), "bdev", b.name(),
                        "module", b.module().name());
            }
        }
        for (String kind : List.of("read", "write")) {
            String name = "jdoca_bdev_" + kind + "_latency_seconds";
            out.family(name, "summary", "Back-end " + kind + " latency of the bdev (HdrHistogram of the IO engines).");
            for (Bdev b : bdevs) {
                if (b.backend() instanceof io.jdoca.nvmf.bdev.TimedBackend tb) {
                    org.HdrHistogram.Histogram h = kind.equals("read") ? tb.readLatency() : tb.writeLatency();
                    for (double q : new double[] {0.5, 0.9, 0.99, 0.999}) {
                        out.sample(name, h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(q * 100) / 1e9,
                                "bdev", b.name(), "quantile", Double.toString(q));
                    }
                    out.sample(name + "_sum", h.getTotalCount() == 0 ? 0 : h.getMean() * h.getTotalCount() / 1e9,
                            "bdev", b.name());
                    out.sample(name + "_count", h.getTotalCount(), "bdev", b.name());
                }
            }
        }
        return out.toString();
    }

    @Override
    public void close() {
        server.close();
    }
}
