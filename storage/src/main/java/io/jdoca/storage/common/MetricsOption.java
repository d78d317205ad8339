package io.jdoca.storage.common;

import io.jdoca.core.metrics.MetricsHttpServer;
import io.prometheus.metrics.model.registry.MultiCollector;
import java.io.IOException;
import java.net.InetAddress;
import picocli.CommandLine.Option;

/**
 * The storage apps' {@code --metrics-port} (off by default) and {@code --metrics-address}
 * (default 127.0.0.1) flags, as sta-target's: a Prometheus endpoint at
 * {@code http://ADDRESS:PORT/metrics}. A picocli mixin; control path only.
 */
public final class MetricsOption {
    @Option(names = "--metrics-port", paramLabel = "PORT",
            description = "Serve Prometheus metrics at http://ADDRESS:PORT/metrics (0 = any free port). Default: off.")
    Integer port;

    @Option(names = "--metrics-address", paramLabel = "IP", defaultValue = "127.0.0.1",
            description = "Address the metrics endpoint binds to: an IP literal or localhost (default: "
                    + "${DEFAULT-VALUE}).")
    String address;

    /** Checks both flags; IllegalArgumentException (port) or DocaException (address) with one line naming the flag. */
    public void check() {
        if (port != null && (port < 0 || port > 65535)) {
            throw new IllegalArgumentException("--metrics-port: " + port + " is out of range 0..65535");
        }
        bindAddress();
    }

    private InetAddress bindAddress() {
        return AppSupport.parseIpAddress("--metrics-address", address);
    }

    /**
     * Starts the endpoint when {@code --metrics-port} was given (else null); IllegalArgumentException
     * with one line when the address or port cannot be bound.
     */
    public MetricsHttpServer startIfAsked(String app, MultiCollector metrics) {
        if (port == null) {
            return null;
        }
        check();
        try {
            MetricsHttpServer s = MetricsHttpServer.start(app, bindAddress(), port, metrics);
            System.getLogger("io.jdoca.storage.common").log(System.Logger.Level.INFO,
                    "Prometheus metrics on http://{0}:{1}/metrics", address, Integer.toString(s.port()));
            return s;
        } catch (IOException e) {
            throw new IllegalArgumentException("--metrics-port " + port + ": cannot listen on " + address + ": "
                    + e.getMessage());
        }
    }
}
