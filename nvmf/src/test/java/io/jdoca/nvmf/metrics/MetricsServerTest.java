package io.jdoca.nvmf.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.perf.NvmePerfApp;
import io.jdoca.nvmf.rpc.RpcServer;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.testkit.Await;
import io.jdoca.testkit.PrometheusTextParser;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * Issue 16 acceptance 2: scraping {@code /metrics} during I/O shows counters that move and latency
 * quantiles, and the text obeys the Prometheus exposition format (fails on main: there was no
 * metrics endpoint).
 */
class MetricsServerTest {
    static final String NQN = "nqn.2016-06.io.spdk:metrics";
    static final String WRITES = "jdoca_nvmf_namespace_ops_total{bdev=Malloc0, nsid=1, op=write, subsystem="
            + NQN + "}";
    static Map<String, Double> parse(String text) {
        return PrometheusTextParser.parse(text);
    }

    static String scrape(HttpClient c, int port) throws Exception {
        HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"));
        return r.body();
    }

    static double sum(Map<String, Double> m, String prefix) {
        return PrometheusTextParser.sum(m, prefix);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void countersMoveDuringIoAndTheTextParses() throws Exception {
        ObjectMapper om = new ObjectMapper();
        try (NvmfTarget t = new NvmfTarget(TargetConfig.parse("{\"io_threads\":1}"))) {
            t.start();
            RpcServer rpc = new RpcServer(t, null);
            rpc.invoke("bdev_malloc_create",
                    om.readTree("{\"name\":\"Malloc0\",\"num_blocks\":2048,\"block_size\":4096}"));
            rpc.invoke("nvmf_create_subsystem", om.readTree("{\"nqn\":\"" + NQN + "\",\"allow_any_host\":true}"));
            rpc.invoke("nvmf_subsystem_add_ns", om.readTree("{\"nqn\":\"" + NQN
                    + "\",\"namespace\":{\"bdev_name\":\"Malloc0\"}}"));
            int port = t.addSubsystemListener(NQN, "127.0.0.1", 0);
            try (MetricsServer ms = MetricsServer.start(InetAddress.getLoopbackAddress(), 0, () -> t);
                 HttpClient http = HttpClient.newHttpClient()) {
                Map<String, Double> before = parse(scrape(http, ms.port()));
                assertEquals(0.0, sum(before, "jdoca_nvmf_namespace_ops_total"));
                AtomicInteger rc = new AtomicInteger(-1);
                Thread perf = new Thread(() -> rc.set(new CommandLine(new NvmePerfApp()).execute("-r",
                        "trtype:TCP adrfam:IPv4 traddr:127.0.0.1 trsvcid:" + port + " subnqn:" + NQN,
                        "-w", "randrw", "-q", "4", "-o", "4096", "-t", "3", "--warmup", "0")), "perf");
                perf.start();
                double[] w = new double[1];
                Await.until(Duration.ofSeconds(60), () -> {
                    try {
                        Map<String, Double> m = parse(scrape(http, ms.port()));
                        w[0] = m.getOrDefault(WRITES, 0.0);
                        return w[0] > 0 && m.getOrDefault("jdoca_nvmf_connected_hosts{subsystem=" + NQN + "}",
                                0.0) == 1.0;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, "writes to show during the run");
                double first = w[0];
                Await.until(Duration.ofSeconds(60), () -> {
                    try {
                        Map<String, Double> m = parse(scrape(http, ms.port()));
                        return m.get(WRITES) > first;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, "the write counter to move between scrapes");
                perf.join(60_000);
                assertEquals(0, rc.get(), "nvme-perf exit");
                Map<String, Double> after = parse(scrape(http, ms.port()));
                assertTrue(after.get("jdoca_nvmf_namespace_bytes_total{bdev=Malloc0, nsid=1, op=read, subsystem="
                        + NQN + "}") > 0);
                // Latency as a histogram (issue 30): cumulative buckets, every write under 10 s.
                double writes = after.get("jdoca_bdev_latency_seconds_count{bdev=Malloc0, op=write}");
                assertTrue(writes > 0, "write latency samples");
                assertEquals(writes, after.get("jdoca_bdev_latency_seconds_bucket{bdev=Malloc0, le=+Inf, op=write}"));
                assertEquals(writes, after.get("jdoca_bdev_latency_seconds_bucket{bdev=Malloc0, le=10.0, op=write}"));
                assertTrue(after.get("jdoca_bdev_latency_seconds_bucket{bdev=Malloc0, le=5.0E-6, op=write}") <= writes);
                assertTrue(after.get("jdoca_bdev_latency_seconds_count{bdev=Malloc0, op=read}") > 0);
                assertTrue(after.keySet().stream().anyMatch(k -> k.startsWith("jvm_memory_used_bytes")));
                assertTrue(after.keySet().stream().anyMatch(k -> k.startsWith("process_cpu_seconds_total")));
                assertTrue(after.keySet().stream().anyMatch(k -> k.startsWith("jdoca_build_info{app=sta-target")));
                assertTrue(after.get("jdoca_sta_engine_seconds_total{engine=sta_io0, state=busy}") > 0);
                assertTrue(after.containsKey("jdoca_sta_engine_errors_total{engine=sta_io0, kind=digest}"));
            }
        }
    }

    @Test
    void escapesFollowTheFormat() {
        Map<String, Double> m = parse("# HELP a_b x\n# TYPE a_b gauge\na_b{l=\"q\\\"\\\\\\n\"} 1.5e3\n");
        assertEquals(1500.0, m.values().iterator().next());
    }
}
