package io.jdoca.systemtests.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jdoca.testkit.Await;
import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30, "What it must show" 3: {@code promtool check metrics} finds nothing to say about the
 * /metrics of any app that serves one (two sta-targets, target-rdma, zero-copy, gga-offload), each
 * scraped after I/O went through it; and Prometheus (Debian's, scraping 127.0.0.1 only) answers a
 * {@code histogram_quantile} over both sta-targets' bdev latency histograms, which summaries could
 * not (they do not aggregate across targets). Debian's prometheus package (promtool with it) comes
 * through scripts/ensure-packages.sh; without it the test is skipped with a message.
 */
class PrometheusSystemTest {
    static final Duration T = Duration.ofSeconds(120);
    static final ObjectMapper M = new ObjectMapper();

    @TempDir
    Path dir;

    private final List<JavaProcess> procs = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        for (JavaProcess p : procs) {
            p.close();
        }
    }

    private JavaProcess app(String name, List<String> args, String ready) throws IOException {
        JavaProcess p = JavaProcess.start(name, "io.jdoca.cli.Main", args);
        procs.add(p);
        if (ready != null) {
            p.awaitOutput(ready, T);
        }
        return p;
    }

    /** sta-target serving a 64 MiB malloc namespace on {@code port} from an SPDK -c configuration. */
    private void staTarget(String name, int port, int metricsPort) throws IOException {
        Path cfg = dir.resolve(name + ".json");
        String shipped = Files.readString(JavaProcess.repoRoot().resolve("packaging/sta-target.json"));
        Files.writeString(cfg, shipped.replace("\"4420\"", "\"" + port + "\""));
        // Each target its own RPC socket: the shipped config leaves SPDK's shared /var/tmp/spdk.sock default.
        app(name, List.of("sta-target", "-c", cfg.toString(), "-r", dir.resolve(name + ".sock").toString(),
                "--metrics-port", String.valueOf(metricsPort)), "STA TARGET READY");
    }

    private JavaProcess targetRdma(String name, int port, int metricsPort) throws IOException {
        List<String> a = new ArrayList<>(List.of("target-rdma", "-d", "sw0", "--cpu", "0", "--listen-address",
                "127.0.0.1", "--listen-port", String.valueOf(port), "--block-size", "2048", "--block-count", "256"));
        if (metricsPort > 0) {
            a.addAll(List.of("--metrics-port", String.valueOf(metricsPort)));
        }
        return app(name, a, "listening on TCP port");
    }

    @Test
    void promtoolIsCleanOnEveryAppAndHistogramQuantileAggregatesTwoTargets() throws Exception {
        Path ensure = JavaProcess.repoRoot().resolve("scripts/ensure-packages.sh");
        run(List.of(ensure.toString(), "prometheus"), Duration.ofMinutes(5));
        assumeTrue(onPath("promtool") && onPath("prometheus"),
                "promtool/prometheus not available (Debian package prometheus could not be installed): skipped");

        Map<String, Integer> endpoints = new LinkedHashMap<>();
        int[] nvmf = {JavaProcess.freePort(), JavaProcess.freePort()};
        for (int i = 0; i < 2; i++) {
            endpoints.put("sta-target-" + i, JavaProcess.freePort());
            staTarget("sta-target-" + i, nvmf[i], endpoints.get("sta-target-" + i));
        }
        // zero-copy in front of one target; gga-offload in front of three more.
        int zcTarget = JavaProcess.freePort();
        endpoints.put("target-rdma", JavaProcess.freePort());
        targetRdma("target-rdma", zcTarget, endpoints.get("target-rdma"));
        String zcChannel = "prom-zc-" + UUID.randomUUID();
        endpoints.put("zero-copy", JavaProcess.freePort());
        app("zero-copy", List.of("zero-copy", "-d", "sw0", "-r", "hpf0", "--cpu", "0", "--storage-server",
                "127.0.0.1:" + zcTarget, "--command-channel-name", zcChannel, "--metrics-port",
                String.valueOf(endpoints.get("zero-copy"))), "serving comch channel");
        int[] gga = {JavaProcess.freePort(), JavaProcess.freePort(), JavaProcess.freePort()};
        for (int i = 0; i < 3; i++) {
            targetRdma("gga-target-" + i, gga[i], 0);
        }
        endpoints.put("gga-offload", JavaProcess.freePort());
        app("gga-offload", List.of("gga-offload", "-d", "sw0", "-r", "hpf0", "--cpu", "0",
                "--data-1-storage", "127.0.0.1:" + gga[0], "--data-2-storage", "127.0.0.1:" + gga[1],
                "--data-p-storage", "127.0.0.1:" + gga[2],
                "--command-channel-name", "prom-gga-" + UUID.randomUUID(), "--trigger-recovery-read-every-n", "0",
                "--metrics-port", String.valueOf(endpoints.get("gga-offload"))), "serving comch channel");

        // Prometheus scrapes both sta-targets every second, on 127.0.0.1 only.
        int promPort = JavaProcess.freePort();
        Path yml = dir.resolve("prometheus.yml");
        Files.writeString(yml, "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n"
                + "  - job_name: sta-target\n    static_configs:\n      - targets: ['127.0.0.1:"
                + endpoints.get("sta-target-0") + "', '127.0.0.1:" + endpoints.get("sta-target-1") + "']\n");
        JavaProcess prom = JavaProcess.startCommand("prometheus", List.of("prometheus", "--config.file=" + yml,
                "--storage.tsdb.path=" + dir.resolve("tsdb"), "--web.listen-address=127.0.0.1:" + promPort));
        procs.add(prom);
        try (HttpClient http = HttpClient.newHttpClient()) {
            // Scraping both before the I/O starts, so the histograms' increase falls between two scrapes.
            Await.until(Duration.ofSeconds(90), () -> {
                JsonNode up = query(http, promPort, "count(up{job=\"sta-target\"} == 1)");
                return up.size() == 1 && up.get(0).get("value").get(1).asInt() == 2;
            }, () -> pause(prom), "Prometheus to scrape both sta-targets");
        }

        // I/O through everything: nvme-perf against each sta-target, an initiator through zero-copy.
        for (int i = 0; i < 2; i++) {
            String trid = "trtype:TCP adrfam:IPv4 traddr:127.0.0.1 trsvcid:" + nvmf[i]
                    + " subnqn:nqn.2016-06.io.spdk:cnode1";
            JavaProcess perf = app("nvme-perf-" + i, List.of("nvme-perf", "-r", trid, "-w", "randrw", "-q", "4",
                    "-o", "4096", "-t", "4", "--warmup", "0", "--range-mb", "16"), null);
            assertThat(perf.awaitExit(T)).as(perf.output()).isZero();
        }
        JavaProcess ini = app("initiator", List.of("initiator-comch", "-d", "sw0", "--cpu", "0",
                "--execution-strategy", "read_write_data_validity_test", "--command-channel-name", zcChannel,
                "--transaction-count", "8"), null);
        assertThat(ini.awaitExit(T)).as(ini.output()).isZero();

        try (HttpClient http = HttpClient.newHttpClient()) {
            for (Map.Entry<String, Integer> e : endpoints.entrySet()) {
                String text = get(http, "http://127.0.0.1:" + e.getValue() + "/metrics");
                Path f = dir.resolve(e.getKey() + ".prom");
                Files.writeString(f, text);
                Run check = run(List.of("sh", "-c", "promtool check metrics < '" + f + "'"), T);
                assertThat(check.out()).as(e.getKey() + ": promtool check metrics").isEmpty();
                assertThat(check.rc()).as(e.getKey() + ": promtool check metrics exit").isZero();
                assertThat(text).as(e.getKey()).contains("# TYPE process_cpu_seconds_total counter",
                        "# TYPE jvm_memory_used_bytes gauge", "jdoca_build_info{");
                if (e.getKey().startsWith("sta-target")) {
                    assertThat(text).contains("# TYPE jdoca_bdev_latency_seconds histogram");
                } else if (!e.getKey().equals("gga-offload")) { // gga-offload had no session: no worker families
                    assertThat(text).contains("# TYPE jdoca_storage_request_latency_seconds histogram");
                }
            }
            assertThat(get(http, "http://127.0.0.1:" + endpoints.get("zero-copy") + "/metrics"))
                    .containsPattern(
                            "jdoca_storage_request_latency_seconds_count\\{app=\"zero-copy\",worker=\"0\"} [1-9]");

            // Both targets scraped, and a p99 over their histograms together.
            String q = "histogram_quantile(0.99, sum by (le) "
                    + "(rate(jdoca_bdev_latency_seconds_bucket{op=\"read\"}[1m])))";
            String targets = "count(count by (instance) (jdoca_bdev_latency_seconds_count{op=\"read\"} > 0))";
            double[] p99 = new double[1];
            Await.until(Duration.ofSeconds(90), () -> {
                JsonNode n = query(http, promPort, targets);
                JsonNode v = query(http, promPort, q);
                if (n.size() != 1 || n.get(0).get("value").get(1).asInt() != 2 || v.size() != 1) {
                    return false;
                }
                p99[0] = Double.parseDouble(v.get(0).get("value").get(1).asText());
                return !Double.isNaN(p99[0]);
            }, () -> pause(prom), "Prometheus to have scraped both targets' read latency histograms");
            assertThat(p99[0]).as("p99 read latency over both targets, seconds").isPositive().isLessThan(10);
            System.out.println("PrometheusSystemTest: " + q + " over 2 targets = " + p99[0] + " s");
        }
    }

    /** Between two polls of Prometheus: it is still alive, and half a second passes (it scrapes every second). */
    private static void pause(JavaProcess prom) {
        assertThat(prom.process().isAlive()).as(prom.output()).isTrue();
        try {
            Thread.sleep(500);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private JsonNode query(HttpClient http, int port, String promql) {
        try {
            String body = get(http, "http://127.0.0.1:" + port + "/api/v1/query?query="
                    + URLEncoder.encode(promql, StandardCharsets.UTF_8));
            JsonNode r = M.readTree(body);
            assertThat(r.get("status").asText()).as(body).isEqualTo("success");
            return r.get("data").get("result");
        } catch (IOException e) {
            return M.createArrayNode(); // Prometheus not up yet
        }
    }

    private static String get(HttpClient http, String url) throws IOException {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                    .build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IOException(url + ": HTTP " + r.statusCode() + " " + r.body());
            }
            return r.body();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    record Run(int rc, String out) {
    }

    private Run run(List<String> cmd, Duration timeout) throws Exception {
        Path log = Files.createTempFile(dir, "run", ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(cmd + " did not finish within " + timeout);
        }
        return new Run(p.exitValue(), Files.readString(log));
    }

    private static boolean onPath(String cmd) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(d, cmd))) {
                return true;
            }
        }
        return false;
    }
}
