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
    static Map<String, Double> parse(String text) {
        return PrometheusTextParser.parse(text);
    }

    static String scrape(HttpClient c, int port) throws Exception {
        HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertEquals(MetricsServer.CONTENT_TYPE, r.headers().firstValue("Content-Type").orElse(""));
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
            rpc.invoke("bdev_malloc_create", om.readTree("{\"name\":\"Malloc0\",\"num_blocks\":2048,\"block_size\":4096}"));
            rpc.invoke("nvmf_create_subsystem", om.readTree("{\"nqn\":\"" + NQN + "\",\"allow_any_host\":true}"));
            rpc.invoke("nvmf_subsystem_add_ns", om.readTree("{\"nqn\":\"" + NQN + "\",\"namespace\":{\"bdev_name\":\"Malloc0\"}}"));
            int port = t.addSubsystemListener(NQN, "127.0.0.1", 0);
            try (MetricsServer ms = MetricsServer.start(InetAddress.getLoopbackAddress(), 0, () -> t);
                 HttpClient http = HttpClient.newHttpClient()) {
                Map<String, Double> before = parse(scrape(http, ms.port()));
                assertEquals(0.0, sum(before, "jdoca_nvmf_namespace_writes_total"));
                AtomicInteger rc = new AtomicInteger(-1);
                Thread perf = new Thread(() -> rc.set(new CommandLine(new NvmePerfApp()).execute("-r",
                        "trtype:TCP adrfam:IPv4 traddr:127.0.0.1 trsvcid:" + port + " subnqn:" + NQN,
                        "-w", "randrw", "-q", "4", "-o", "4096", "-t", "3", "--warmup", "0")), "perf");
                perf.start();
                double[] w = new double[1];
                Await.until(Duration.ofSeconds(60), () -> {
                    try {
                        Map<String, Double> m = parse(scrape(http, ms.port()));
                        w[0] = m.getOrDefault("jdoca_nvmf_namespace_writes_total{bdev=Malloc0, nsid=1, subsystem=" + NQN + "}", 0.0);
                        return w[0] > 0 && m.getOrDefault("jdoca_nvmf_connected_hosts{subsystem=" + NQN + "}", 0.0) == 1.0;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, "writes to show during the run");
                double first = w[0];
                Await.until(Duration.ofSeconds(60), () -> {
                    try {
                        Map<String, Double> m = parse(scrape(http, ms.port()));
                        return m.get("jdoca_nvmf_namespace_writes_total{bdev=Malloc0, nsid=1, subsystem=" + NQN + "}") > first;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, "the write counter to move between scrapes");
                perf.join(60_000);
                assertEquals(0, rc.get(), "nvme-perf exit");
                Map<String, Double> after = parse(scrape(http, ms.port()));
                assertTrue(after.get("jdoca_nvmf_namespace_read_bytes_total{bdev=Malloc0, nsid=1, subsystem=" + NQN + "}") > 0);
                double p99 = after.get("jdoca_bdev_write_latency_seconds{bdev=Malloc0, quantile=0.99}");
                assertTrue(p99 > 0 && p99 < 10, "write p99 " + p99);
                assertTrue(after.get("jdoca_bdev_read_latency_seconds_count{bdev=Malloc0}") > 0);
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
