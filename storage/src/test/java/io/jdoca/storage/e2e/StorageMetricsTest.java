package io.jdoca.storage.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.metrics.MetricsHttpServer;
import io.jdoca.storage.initiator.ExecutionStrategy;
import io.jdoca.storage.initiator.InitiatorComch;
import io.jdoca.storage.targetrdma.TargetRdma;
import io.jdoca.storage.zerocopy.ZeroCopyService;
import io.jdoca.testkit.Await;
import io.jdoca.testkit.JavaProcess;
import io.jdoca.testkit.PrometheusTextParser;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 16: target-rdma's and zero-copy's Prometheus endpoints scraped while an initiator runs
 * I/O through them (in one JVM): the operation counters move between scrapes, a client shows as
 * connected, and the text obeys the exposition format (fails on main: the storage apps had no
 * metrics).
 */
class StorageMetricsTest {
    static final String OPS = "jdoca_storage_requests_total{app=%s, worker=0}";
    static final String LATENCY = "jdoca_storage_request_latency_seconds_count{app=%s, worker=0}";

    static Map<String, Double> scrape(HttpClient c, int port) {
        try {
            HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain; version=0.0.4");
            return PrometheusTextParser.parse(r.body());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void countersMoveDuringIoAndTheTextParses() throws Exception {
        String channel = "m-" + UUID.randomUUID();
        int port = JavaProcess.freePort();
        AtomicBoolean abort = new AtomicBoolean();
        TargetRdma target = new TargetRdma(new TargetRdma.Config("sw0", List.of(0), port, null, 64, 4096, null,
                10_000_000_000L), abort);
        ZeroCopyService relay = new ZeroCopyService(new ZeroCopyService.Config("sw0", null, List.of(0), "127.0.0.1:"
                + port,
                channel, 5_000_000_000L), abort);
        InitiatorComch ini = new InitiatorComch(new InitiatorComch.Config("sw0", List.of(0),
                ExecutionStrategy.WRITE_THROUGHPUT_TEST, null, 400_000, 16, channel, 5_000_000_000L, 0, 1), abort);
        ExecutorService ex = Executors.newCachedThreadPool();
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (MetricsHttpServer tm = MetricsHttpServer.start("target-rdma", lo, 0, target.metrics());
             MetricsHttpServer zm = MetricsHttpServer.start("zero-copy", lo, 0, relay.metrics());
             HttpClient http = HttpClient.newHttpClient()) {
            Map<String, Double> idle = scrape(http, tm.port());
            assertThat(idle).containsEntry("jdoca_storage_connected_clients{app=target-rdma}", 0.0);
            PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true);
            CompletableFuture<Integer> t = CompletableFuture.supplyAsync(() -> target.run(sink), ex);
            CompletableFuture<Integer> z = CompletableFuture.supplyAsync(() -> relay.run(sink), ex);
            CompletableFuture<Integer> i = CompletableFuture.supplyAsync(() -> ini.run(sink), ex);

            double[] first = new double[2];
            Await.until(Duration.ofSeconds(90), () -> {
                Map<String, Double> tmx = scrape(http, tm.port());
                Map<String, Double> zmx = scrape(http, zm.port());
                first[0] = tmx.getOrDefault(OPS.formatted("target-rdma"), 0.0);
                first[1] = zmx.getOrDefault(OPS.formatted("zero-copy"), 0.0);
                return first[0] > 0 && first[1] > 0
                        && tmx.getOrDefault("jdoca_storage_connected_clients{app=target-rdma}", 0.0) == 1.0
                        && zmx.getOrDefault("jdoca_storage_connected_clients{app=zero-copy}", 0.0) == 1.0;
            }, "operations and a connected client to show during the run");
            Await.until(Duration.ofSeconds(90), () -> scrape(http,
                    tm.port()).get(OPS.formatted("target-rdma")) > first[0]
                    && scrape(http, zm.port()).get(OPS.formatted("zero-copy")) > first[1],
                    "the operation counters to move between scrapes");

            assertThat(i.get(120, TimeUnit.SECONDS)).as("initiator exit").isZero();
            abort.set(true);
            z.get(30, TimeUnit.SECONDS);
            t.get(30, TimeUnit.SECONDS);
            Map<String, Double> after = scrape(http, tm.port());
            // Cumulative over sessions: the ended session's operations stay counted.
            assertThat(after.get(OPS.formatted("target-rdma"))).isGreaterThan(first[0]);
            assertThat(after).containsEntry("jdoca_storage_sessions_total{app=target-rdma}", 1.0);
            assertThat(after).containsEntry("jdoca_storage_errors_total{app=target-rdma, kind=task, worker=0}", 0.0);
            assertThat(after.get("jdoca_storage_engine_polls_total{app=target-rdma, state=busy, "
                    + "worker=0}")).isPositive();
            // A write run: the target served writes of 4096 bytes each (its block size, one block per IO).
            double w = after.get("jdoca_storage_ops_total{app=target-rdma, op=write, worker=0}");
            assertThat(w).isPositive();
            assertThat(after).containsEntry("jdoca_storage_bytes_total{app=target-rdma, op=write, worker=0}", w * 4096);
            assertThat(after).containsEntry("jdoca_storage_ops_total{app=target-rdma, op=read, worker=0}", 0.0);
            // Issue 30: request latency as a histogram, on the target and on the relay (matched by user data).
            Map<String, Double> zafter = scrape(http, zm.port());
            for (Map<String, Double> m : List.of(after, zafter)) {
                String app = m == after ? "target-rdma" : "zero-copy";
                double n = m.get(LATENCY.formatted(app));
                assertThat(n).as(app + " latency samples").isPositive().isLessThanOrEqualTo(m.get(OPS.formatted(app)));
                assertThat(m.get("jdoca_storage_request_latency_seconds_bucket{app=" + app + ", le=+Inf, worker=0}"))
                        .isEqualTo(n);
                assertThat(m.get("jdoca_storage_request_latency_seconds_bucket{app=" + app + ", le=10.0, worker=0}"))
                        .as("every request under 10 s").isEqualTo(n);
            }
            assertThat(after.keySet()).anyMatch(k -> k.startsWith("jvm_memory_used_bytes"))
                    .anyMatch(k -> k.startsWith("process_cpu_seconds_total"))
                    .anyMatch(k -> k.startsWith("jdoca_build_info{app=target-rdma"));
        } finally {
            abort.set(true);
            ex.shutdownNow();
        }
    }
}
