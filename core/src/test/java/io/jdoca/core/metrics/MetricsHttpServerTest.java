package io.jdoca.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.util.JdocaVersion;
import io.prometheus.metrics.model.registry.MultiCollector;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * The metrics endpoint (Prometheus's client on the JDK's HTTP server): what a scrape shows (the app's
 * families, jvm_*, process_*, jdoca_build_info, a latency histogram in Prometheus's cumulative buckets)
 * and issue 29 item 2: a slowloris client (one header byte every 2 s) does not hold up a normal scrape,
 * and is cut at the read deadline; connections beyond the bound are closed at accept, and the endpoint
 * serves again once the stalled ones pass their deadline; scrapes never run on the caller's threads.
 */
class MetricsHttpServerTest {
    static final InetAddress LO = InetAddress.getLoopbackAddress();

    private final Set<String> collectThreads = ConcurrentHashMap.newKeySet();

    private MultiCollector app() {
        return () -> {
            collectThreads.add(Thread.currentThread().getName());
            Histogram h = new Histogram(60_000_000_000L, 2);
            h.recordValue(3_000);           // 3 µs: le 5e-06
            h.recordValue(7_000);           // 7 µs: le 1e-05
            h.recordValue(2_000_000);       // 2 ms: le 0.0025
            h.recordValue(20_000_000_000L); // 20 s: +Inf only
            return new MetricFamilies()
                    .counter("jdoca_test_ops", "Test operations.", 42, "op", "read")
                    .gauge("jdoca_test_clients", "Test clients.", 1)
                    .histogram("jdoca_test_latency_seconds", "Test latency.", h, "op", "read")
                    .snapshots();
        };
    }

    private static HttpResponse<String> scrape(HttpClient c, int port) throws Exception {
        return c.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aScrapeShowsTheAppJvmProcessAndBuildInfoWithHistogramsInCumulativeBuckets() throws Exception {
        try (MetricsHttpServer s = MetricsHttpServer.start("unit", LO, 0, app());
             HttpClient c = HttpClient.newHttpClient()) {
            HttpResponse<String> r = scrape(c, s.port());
            assertThat(r.statusCode()).isEqualTo(200);
            String body = r.body();
            assertThat(body).contains("# TYPE jdoca_test_ops_total counter", "jdoca_test_ops_total{op=\"read\"} 42.0",
                    "# TYPE jdoca_test_clients gauge", "# TYPE jdoca_test_latency_seconds histogram",
                    "jdoca_test_latency_seconds_bucket{op=\"read\",le=\"5.0E-6\"} 1",
                    "jdoca_test_latency_seconds_bucket{op=\"read\",le=\"1.0E-5\"} 2",
                    "jdoca_test_latency_seconds_bucket{op=\"read\",le=\"0.001\"} 2",
                    "jdoca_test_latency_seconds_bucket{op=\"read\",le=\"0.0025\"} 3",
                    "jdoca_test_latency_seconds_bucket{op=\"read\",le=\"10.0\"} 3",
                    "jdoca_test_latency_seconds_bucket{op=\"read\",le=\"+Inf\"} 4",
                    "jdoca_test_latency_seconds_count{op=\"read\"} 4",
                    "jdoca_build_info{app=\"unit\",java_version=\"" + Runtime.version() + "\",version=\""
                            + JdocaVersion.version() + "\"} 1",
                    "# TYPE process_cpu_seconds_total counter", "# TYPE jvm_memory_used_bytes gauge",
                    "# TYPE jvm_threads_current gauge");
            assertThat(collectThreads).isNotEmpty().allMatch(t -> t.startsWith("unit-metrics-"));
        }
    }

    @Test
    void aSlowlorisClientDoesNotHoldUpAScrapeAndIsCutAtTheReadDeadline() throws Exception {
        try (MetricsHttpServer s = MetricsHttpServer.start("unit", LO, 0, app());
             HttpClient c = HttpClient.newHttpClient();
             Socket slow = new Socket(LO, s.port())) {
            assertThat(scrape(c, s.port()).statusCode()).isEqualTo(200); // warm: class loading is not the slowloris
            byte[] request = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaa\r\n".getBytes(
                    StandardCharsets.US_ASCII);
            OutputStream o = slow.getOutputStream();
            InputStream in = slow.getInputStream();
            slow.setSoTimeout(2_000); // the slow client's pace: one header byte every 2 s, reading meanwhile
            long t0 = System.nanoTime();
            List<Long> scrapeMillis = new ArrayList<>();
            boolean cut = false;
            int sent = 0;
            while (!cut && sent < request.length) {
                try {
                    o.write(request[sent++]);
                    o.flush();
                } catch (IOException e) {
                    cut = true;
                    break;
                }
                long s0 = System.nanoTime();
                HttpResponse<String> r = scrape(c, s.port());
                scrapeMillis.add((System.nanoTime() - s0) / 1_000_000);
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.body()).contains("jdoca_test_ops_total");
                try {
                    cut = in.read() < 0; // the server answers a slowloris only by closing it
                } catch (SocketTimeoutException e) {
                    // still open: two seconds passed, send the next byte
                } catch (IOException e) {
                    cut = true;
                }
            }
            double cutAfter = (System.nanoTime() - t0) / 1e9;
            assertThat(cut).as("the stalled request was closed").isTrue();
            assertThat(cutAfter).as("closed at the read deadline (+ the JDK timer's 1 s tick + one 2 s pace)")
                    .isBetween(MetricsHttpServer.READ_DEADLINE_SECONDS - 1.0,
                            MetricsHttpServer.READ_DEADLINE_SECONDS + 4.0);
            // Served while the slowloris holds a thread: well before its read deadline (a scrape queued behind
            // it would take until the slowloris is cut, >= 5 s; on the single-threaded endpoint, forever).
            assertThat(scrapeMillis).hasSizeGreaterThanOrEqualTo(2)
                    .allMatch(ms -> ms < (MetricsHttpServer.READ_DEADLINE_SECONDS - 1) * 1000);
        }
    }

    @Test
    void connectionsBeyondTheBoundAreClosedAndTheEndpointServesAgainAfterTheDeadline() throws Exception {
        List<Socket> stalled = new ArrayList<>();
        try (MetricsHttpServer s = MetricsHttpServer.start("unit", LO, 0, app());
             HttpClient c = HttpClient.newHttpClient()) {
            for (int i = 0; i < MetricsHttpServer.MAX_CONNECTIONS; i++) {
                Socket k = new Socket(LO, s.port());
                k.getOutputStream().write('G'); // a request begun, never finished
                stalled.add(k);
            }
            try (Socket extra = new Socket(LO, s.port())) {
                extra.setSoTimeout(3_000);
                extra.getOutputStream()
                        .write("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                int b;
                try {
                    b = extra.getInputStream().read();
                } catch (IOException e) {
                    b = -1; // reset: closed at accept as well
                }
                assertThat(b).as("a connection beyond " + MetricsHttpServer.MAX_CONNECTIONS + " is closed, not served")
                        .isEqualTo(-1);
            }
            long t0 = System.nanoTime();
            HttpResponse<String> r = null;
            while (r == null && System.nanoTime() - t0 < 15_000_000_000L) {
                try {
                    r = scrape(c, s.port());
                } catch (IOException e) {
                    // still full: the stalled connections have not reached their deadline yet; poll again soon
                    Thread.sleep(200);
                }
            }
            assertThat(r).as("served again once the stalled connections passed their read deadline").isNotNull();
            assertThat(r.statusCode()).isEqualTo(200);
        } finally {
            for (Socket k : stalled) {
                k.close();
            }
        }
    }
}
