package io.jdoca.core.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * A Prometheus scrape endpoint on the JDK's {@link HttpServer}: {@code GET /metrics} answers the
 * text a {@code Supplier<String>} renders (usually with {@link PrometheusText}); {@code /} says
 * where the metrics are, anything else is 404, methods other than GET/HEAD 405.
 *
 * <p>The renderer runs on the endpoint's single HTTP thread (control path), so an app's renderer
 * reads its data-path counters racily (plain or opaque longs written by one worker thread): a
 * scrape may see a value a moment old, never adds a lock or atomic to the data path. Binds exactly
 * where the caller says (apps default to 127.0.0.1).
 */
public final class MetricsHttpServer implements AutoCloseable {
    private final HttpServer server;

    private MetricsHttpServer(HttpServer server) {
        this.server = server;
    }

    /**
     * Serves {@code render} at http://address:port/metrics (port 0 = any free one); {@code app}
     * names the thread and the index page. IOException when the address or port cannot be bound.
     */
    public static MetricsHttpServer start(String app, InetAddress address, int port, Supplier<String> render)
            throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(address, port), 16);
        s.createContext("/metrics", ex -> serve(ex, render));
        s.createContext("/", ex -> {
            byte[] b = ("jdoca " + app + ": metrics at /metrics\n").getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(ex.getRequestURI().getPath().equals("/") ? 200 : 404, b.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(b);
            }
        });
        s.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, app + "-metrics");
            t.setDaemon(true);
            return t;
        }));
        s.start();
        return new MetricsHttpServer(s);
    }

    /** The bound port. */
    public int port() {
        return server.getAddress().getPort();
    }

    private static void serve(HttpExchange ex, Supplier<String> render) throws IOException {
        String method = ex.getRequestMethod();
        if (!method.equals("GET") && !method.equals("HEAD")) {
            ex.sendResponseHeaders(405, -1);
            ex.close();
            return;
        }
        String text = render.get();
        byte[] body = (text == null ? "" : text).getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", PrometheusText.CONTENT_TYPE);
        ex.sendResponseHeaders(200, method.equals("HEAD") ? -1 : body.length);
        try (OutputStream o = ex.getResponseBody()) {
            if (!method.equals("HEAD")) {
                o.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
