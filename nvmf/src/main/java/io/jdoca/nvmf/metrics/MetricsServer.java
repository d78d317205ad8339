package io.jdoca.nvmf.metrics;

import io.jdoca.core.metrics.MetricFamilies;
import io.jdoca.core.metrics.MetricsHttpServer;
import io.jdoca.nvmf.bdev.Bdev;
import io.jdoca.nvmf.bdev.TimedBackend;
import io.jdoca.nvmf.tgt.NvmfController;
import io.jdoca.nvmf.tgt.NvmfSubsystem;
import io.jdoca.nvmf.tgt.EnginePause;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.sta.StaIo;
import io.jdoca.sta.StaNamespace;
import io.jdoca.sta.backend.StaStats;
import io.prometheus.metrics.model.registry.MultiCollector;
import java.io.IOException;
import java.net.InetAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * sta-target's Prometheus metrics: I/O counts and bytes by subsystem and namespace, errors by kind, the
 * IO engines' counters and busy/idle time, bdev counters and back-end latency histograms, controllers
 * and connected hosts, as a {@link MultiCollector} of Prometheus's client ({@link #collector}), served by
 * core's {@link MetricsHttpServer} with the JVM's, the process's and the build's metrics (its deadlines,
 * connection bound and own threads: never an IO engine's).
 *
 * <p>Reading adds nothing to the I/O path: every value is read from counters the engines already keep
 * (single-writer fields read racily, STA's counters, the bdevs' per-engine latency histograms copied
 * racily); a scrape is a control-path walk over the target through its public stats. Binds where the
 * operator says ({@code --metrics-address}, default 127.0.0.1).
 */
public final class MetricsServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsServer.class);

    private final MetricsHttpServer server;

    private MetricsServer(MetricsHttpServer server) {
        this.server = server;
    }

    /** Starts serving {@code target}'s metrics on address:port (port 0 = any free one). */
    public static MetricsServer start(InetAddress address, int port, Supplier<NvmfTarget> target) throws IOException {
        MetricsHttpServer s = MetricsHttpServer.start("sta-target", address, port, collector(target));
        LOG.info("Prometheus metrics on http://{}:{}/metrics", address.getHostAddress(), s.port());
        return new MetricsServer(s);
    }

    public int port() {
        return server.port();
    }

    /** The target's families as a collector (none while {@code target} gives null). */
    public static MultiCollector collector(Supplier<NvmfTarget> target) {
        return () -> {
            NvmfTarget t = target.get();
            return t == null ? new MetricFamilies().snapshots() : families(t).snapshots();
        };
    }

    /** The families of one scrape of {@code t} (control path). */
    public static MetricFamilies families(NvmfTarget t) {
        MetricFamilies out = new MetricFamilies();
        List<NvmfSubsystem> subs = t.subsystems().stream().filter(s -> !s.isDiscovery()).toList();

        String ops = "jdoca_nvmf_namespace_ops";
        String bytes = "jdoca_nvmf_namespace_bytes";
        String errors = "jdoca_nvmf_namespace_errors";
        out.counter(ops, "I/O commands completed, by namespace and op (read, write, other: flush, write zeroes, DSM).");
        out.counter(bytes, "Bytes moved by I/O commands, by namespace and op (read, write).");
        out.counter(errors, "I/O commands completed with an error status, by namespace.");
        for (NvmfSubsystem s : subs) {
            for (StaNamespace ns : s.sta().namespaces()) {
                Bdev b = t.bdevOf(ns.backend());
                String[] l = {"subsystem", s.nqn(), "nsid", Integer.toString(ns.nsid()),
                    "bdev", b != null ? b.name() : ns.backend().name()};
                StaStats st = ns.stats();
                out.counter(ops, "", st.get("reads"), with(l, "op", "read"));
                out.counter(ops, "", st.get("writes"), with(l, "op", "write"));
                out.counter(ops, "", st.get("other_ops"), with(l, "op", "other"));
                out.counter(bytes, "", st.get("read_bytes"), with(l, "op", "read"));
                out.counter(bytes, "", st.get("write_bytes"), with(l, "op", "write"));
                out.counter(errors, "", st.get("errors"), l);
            }
        }

        out.gauge("jdoca_nvmf_controllers", "Live controllers, by subsystem.");
        out.gauge("jdoca_nvmf_connected_hosts", "Distinct host NQNs with a live controller, by subsystem.");
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
            out.gauge("jdoca_nvmf_controllers", "", n, "subsystem", s.nqn());
            out.gauge("jdoca_nvmf_connected_hosts", "", hosts.size(), "subsystem", s.nqn());
        }

        String eOps = "jdoca_sta_engine_ops";
        String eBytes = "jdoca_sta_engine_bytes";
        out.counter(eOps, "I/O commands completed by the IO engine, by op (read, write).");
        out.counter(eBytes, "Bytes moved through the IO engine, by op (read, write).");
        out.counter("jdoca_sta_engine_non_offloaded_commands",
                "Commands the engine handed to the target (admin, fabrics).");
        out.counter("jdoca_sta_engine_qpairs_accepted", "Queue pairs accepted.");
        out.gauge("jdoca_sta_engine_qpairs", "Queue pairs connected now.");
        out.counter("jdoca_sta_engine_errors", "Errors by kind: I/O status, digest (CRC32C), protocol.");
        for (StaIo io : t.ioContexts()) {
            StaStats st = io.stats();
            String e = io.name();
            out.counter(eOps, "", st.get("reads"), "engine", e, "op", "read");
            out.counter(eOps, "", st.get("writes"), "engine", e, "op", "write");
            out.counter(eBytes, "", st.get("read_bytes"), "engine", e, "op", "read");
            out.counter(eBytes, "", st.get("write_bytes"), "engine", e, "op", "write");
            out.counter("jdoca_sta_engine_non_offloaded_commands", "", st.get("non_offloaded"), "engine", e);
            out.counter("jdoca_sta_engine_qpairs_accepted", "", st.get("qps_accepted"), "engine", e);
            out.gauge("jdoca_sta_engine_qpairs", "", st.get("qps_live"), "engine", e);
            out.counter("jdoca_sta_engine_errors", "", st.get("io_errors"), "engine", e, "kind", "io");
            out.counter("jdoca_sta_engine_errors", "", st.get("digest_errors"), "engine", e, "kind", "digest");
            out.counter("jdoca_sta_engine_errors", "", st.get("protocol_errors"), "engine", e, "kind", "protocol");
        }
        String secs = "jdoca_sta_engine_seconds";
        out.counter(secs,
                "IO engine time since start: busy (polling, working) or idle (asleep waiting for the sockets).");
        for (Object[] e : t.engineTimes()) {
            out.counter(secs, "", (double) e[1], "engine", (String) e[0], "state", "busy");
            out.counter(secs, "", (double) e[2], "engine", (String) e[0], "state", "idle");
        }
        out.gauge("jdoca_sta_engine_max_pause_seconds", "Longest pause of the IO engine since start: "
                + "time between two duty cycles, asleep waiting for work excluded.");
        for (EnginePause p : t.enginePauses()) {
            out.gauge("jdoca_sta_engine_max_pause_seconds", "", p.maxNanos() / 1e9, "engine", p.engine());
        }

        String bOps = "jdoca_bdev_ops";
        String bBytes = "jdoca_bdev_bytes";
        String lat = "jdoca_bdev_latency_seconds";
        out.counter(bOps, "I/Os reaching the bdev, by op (read, write).");
        out.counter(bBytes, "Bytes read from or written to the bdev, by op.");
        out.counter("jdoca_bdev_errors", "Back-end errors of the bdev.");
        out.histogram(lat, "Back-end latency of the bdev's I/Os, by op (the IO engines' histograms, merged).");
        for (Bdev b : t.bdevs()) {
            Map<String, Object> io = b.iostat();
            String[] l = {"bdev", b.name(), "module", b.module().name()};
            out.counter(bOps, "", num(io, "num_read_ops"), with(l, "op", "read"));
            out.counter(bOps, "", num(io, "num_write_ops"), with(l, "op", "write"));
            out.counter(bBytes, "", num(io, "bytes_read"), with(l, "op", "read"));
            out.counter(bBytes, "", num(io, "bytes_written"), with(l, "op", "write"));
            out.counter("jdoca_bdev_errors", "", num(io, "jdoca_errors"), l);
            if (b.backend() instanceof TimedBackend tb) {
                out.histogram(lat, "", tb.readLatency(), "bdev", b.name(), "op", "read");
                out.histogram(lat, "", tb.writeLatency(), "bdev", b.name(), "op", "write");
            }
        }
        return out;
    }

    private static double num(Map<String, Object> m, String key) {
        return m.get(key) instanceof Number n ? n.doubleValue() : 0;
    }

    private static String[] with(String[] labels, String name, String value) {
        String[] l = java.util.Arrays.copyOf(labels, labels.length + 2);
        l[labels.length] = name;
        l[labels.length + 1] = value;
        return l;
    }

    @Override
    public void close() {
        server.close();
    }
}
