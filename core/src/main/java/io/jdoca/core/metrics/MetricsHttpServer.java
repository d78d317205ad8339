package io.jdoca.core.metrics;

import io.jdoca.core.util.JdocaVersion;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An app's Prometheus scrape endpoint, made with Prometheus's Java client: its {@code HTTPServer} (on the
 * JDK's) serves {@code /metrics} in the format the scraper asks for (text 0.0.4, OpenMetrics, protobuf),
 * from a registry holding the app's own families (a {@link MultiCollector}, usually built with
 * {@link MetricFamilies}), the JVM's and the process's ({@code jvm_*}, {@code process_*}), and
 * {@code jdoca_build_info{version, java_version, app}}.
 *
 * <p>Hardened (issue 29 item 2: one slow client blocked every scrape): a scrape runs on the endpoint's
 * own small pool ({@value #THREADS} daemon threads {@code <app>-metrics-<n>}, never an engine thread),
 * so a stalled client holds one thread, not the endpoint; every connection has a read deadline
 * ({@value #READ_DEADLINE_SECONDS} s for the whole request) and a write deadline
 * ({@value #WRITE_DEADLINE_SECONDS} s for the whole response), after which the JDK's server closes it;
 * at most {@value #MAX_CONNECTIONS} connections are open at once (more are closed at accept) and
 * {@value #QUEUE} requests wait for a thread (more are closed). The deadlines and the bound are the JDK
 * server's settings ({@code sun.net.httpserver.maxReqTime}, {@code maxRspTime},
 * {@code jdk.httpserver.maxConnections}): JVM-wide, read once when the first server starts, so they are
 * set here before that unless the operator set them with {@code -D}. Nothing else in jdoca runs the
 * JDK's HTTP server.
 *
 * <p>Binds exactly where the caller says (apps default to 127.0.0.1). Scrapes read the data path's
 * counters racily (single-writer fields): a scrape may see a value a moment old and adds no lock or
 * atomic to the data path. Start and close on the control path.
 */
public final class MetricsHttpServer implements AutoCloseable {
    /** Seconds a client has to send its whole request. */
    public static final long READ_DEADLINE_SECONDS = 5;
    /** Seconds the endpoint has to send a whole response. */
    public static final long WRITE_DEADLINE_SECONDS = 10;
    /** Open connections at most. */
    public static final int MAX_CONNECTIONS = 16;
    /** Threads serving scrapes. */
    public static final int THREADS = 4;
    /** Requests waiting for a thread at most. */
    public static final int QUEUE = 8;

    static {
        setIfAbsent("sun.net.httpserver.maxReqTime", Long.toString(READ_DEADLINE_SECONDS));
        setIfAbsent("sun.net.httpserver.maxRspTime", Long.toString(WRITE_DEADLINE_SECONDS));
        setIfAbsent("jdk.httpserver.maxConnections", Integer.toString(MAX_CONNECTIONS));
    }

    private final HTTPServer server;
    private final ThreadPoolExecutor pool;
    private final PrometheusRegistry registry;

    private MetricsHttpServer(HTTPServer server, ThreadPoolExecutor pool, PrometheusRegistry registry) {
        this.server = server;
        this.pool = pool;
        this.registry = registry;
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /**
     * Serves {@code appMetrics} with the JVM, process and build-info metrics at
     * http://address:port/metrics (port 0 = any free one); {@code app} names the threads and labels the
     * build info. IOException when the address or port cannot be bound.
     */
    public static MetricsHttpServer start(String app, InetAddress address, int port, MultiCollector appMetrics)
            throws IOException {
        PrometheusRegistry registry = registry(app, appMetrics);
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(QUEUE), r -> {
                    Thread t = new Thread(r, app + "-metrics-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                }, new ThreadPoolExecutor.AbortPolicy()); // a refused request's connection is closed by the server
        pool.allowCoreThreadTimeOut(true);
        try {
            HTTPServer s = HTTPServer.builder().inetAddress(address).port(port).registry(registry).executorService(pool)
                    .buildAndStart();
            return new MetricsHttpServer(s, pool, registry);
        } catch (IOException | RuntimeException e) {
            pool.shutdownNow();
            throw e;
        }
    }

    /** A registry with {@code appMetrics}, the JVM's and process's metrics and jdoca_build_info. */
    public static PrometheusRegistry registry(String app, MultiCollector appMetrics) {
        PrometheusRegistry registry = new PrometheusRegistry();
        JvmMetrics.builder().register(registry);
        Info build = Info.builder().name("jdoca_build_info")
                .help("jdoca's version and the Java runtime it runs on (value 1).")
                .labelNames("version", "java_version", "app").register(registry);
        build.setLabelValues(JdocaVersion.version(), Runtime.version().toString(), app);
        registry.register(appMetrics);
        return registry;
    }

    /** The bound port. */
    public int port() {
        return server.getPort();
    }

    /** The registry served (tests, and apps that add families). */
    public PrometheusRegistry registry() {
        return registry;
    }

    @Override
    public void close() {
        server.close();
        pool.shutdownNow();
    }
}
