package io.jdoca.sta.target.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.jdoca.sta.target.config.TargetConfig;
import io.jdoca.sta.target.nvmf.NvmfTarget;
import io.jdoca.sta.target.perf.NvmePerfApp;
import io.jdoca.sta.target.rpc.RpcServer;
import io.jdoca.testkit.Await;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
    static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    static final Pattern SAMPLE = Pattern.compile(
            "([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{((?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\",?)*)\\})? "
                    + "(NaN|[+-]Inf|[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?)( -?\\d+)?");
    static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\\\n]|\\\\[\\\\\"n])*)\"");

    /**
     * Parses exposition text by the format's rules (names, label syntax and escapes, values, one
     * TYPE per family before its samples, families contiguous, no duplicate series, summaries with
     * quantile labels); returns "name{sorted labels}" → value. Fails the test on any violation.
     */
    static Map<String, Double> parse(String text) {
        assertTrue(text.endsWith("\n"), "text ends with a newline");
        Map<String, Double> out = new HashMap<>();
        Map<String, String> types = new HashMap<>();
        Set<String> closed = new HashSet<>();
        String current = null;
        int n = 0;
        for (String line : text.split("\n", -1)) {
            n++;
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("#")) {
                String[] f = line.split(" ", 4);
                if (f.length >= 3 && (f[1].equals("HELP") || f[1].equals("TYPE"))) {
                    assertTrue(NAME.matcher(f[2]).matches(), "line " + n + ": bad metric name " + line);
                    if (f[1].equals("TYPE")) {
                        assertTrue(Set.of("counter", "gauge", "histogram", "summary", "untyped").contains(f[3]), "line " + n + ": " + line);
                        if (types.put(f[2], f[3]) != null) {
                            fail("line " + n + ": second TYPE for " + f[2]);
                        }
                        assertTrue(!closed.contains(f[2]), "line " + n + ": TYPE after samples of " + f[2]);
                    }
                }
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            assertTrue(m.matches(), "line " + n + " is not a sample: " + line);
            String name = m.group(1);
            String family = types.containsKey(name) ? name : name.replaceFirst("_(sum|count|bucket)$", "");
            assertTrue(types.containsKey(family), "line " + n + ": no TYPE for " + name);
            if (!family.equals(current)) {
                assertTrue(closed.add(family), "line " + n + ": samples of " + family + " are not contiguous");
                current = family;
            }
            Map<String, String> labels = new java.util.TreeMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    assertTrue(labels.put(l.group(1), l.group(2)) == null, "line " + n + ": label twice " + line);
                }
            }
            if (types.get(family).equals("summary") && name.equals(family)) {
                assertTrue(labels.containsKey("quantile"), "line " + n + ": summary sample without quantile");
            }
            String key = name + labels;
            String v = m.group(4);
            double d = v.equals("NaN") ? Double.NaN : v.endsWith("Inf") ? (v.startsWith("-") ? Double.NEGATIVE_INFINITY
                    : Double.POSITIVE_INFINITY) : Double.parseDouble(v);
            assertTrue(out.put(key, d) == null, "line " + n + ": duplicate series " + key);
        }
        return out;
    }

    static String scrape(HttpClient c, int port) throws Exception {
        HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertEquals(MetricsServer.CONTENT_TYPE, r.headers().firstValue("Content-Type").orElse(""));
        return r.body();
    }

    static double sum(Map<String, Double> m, String prefix) {
        return m.entrySet().stream().filter(e -> e.getKey().startsWith(prefix)).mapToDouble(Map.Entry::getValue).sum();
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
