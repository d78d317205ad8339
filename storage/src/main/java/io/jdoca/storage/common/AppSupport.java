package io.jdoca.storage.common;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import java.net.InetSocketAddress;

/**
 * Small helpers the storage apps share: {@code ip:port} parsing, the Ctrl-C handler
 * ({@code storage::install_ctrl_c_handler}) and a few constants.
 *
 * <p>Control path; thread-safe.
 */
public final class AppSupport {
    private AppSupport() {
    }

    /** Parses {@code host:port} (DOCA's {@code --storage-server}); INVALID_VALUE with a clear message. */
    public static InetSocketAddress parseAddress(String s) {
        int i = s == null ? -1 : s.lastIndexOf(':');
        if (i <= 0 || i == s.length() - 1) {
            throw new DocaException(DocaError.INVALID_VALUE, "'" + s + "' is not ip:port");
        }
        int port;
        try {
            port = Integer.parseInt(s.substring(i + 1));
        } catch (NumberFormatException e) {
            throw new DocaException(DocaError.INVALID_VALUE, "'" + s + "' has a bad port");
        }
        if (port <= 0 || port > 65535) {
            throw new DocaException(DocaError.INVALID_VALUE, "'" + s + "': port out of range");
        }
        return new InetSocketAddress(s.substring(0, i), port);
    }

    /**
     * Parses a listen address flag: an IPv4 or IPv6 literal, or {@code localhost} (the loopback
     * address); {@code null} or empty means every interface (returns null). Never resolves a name
     * (no DNS). INVALID_VALUE naming {@code flag} otherwise.
     */
    public static java.net.InetAddress parseListenAddress(String flag, String s) {
        if (s == null || s.isEmpty()) {
            return null;
        }
        if (s.equals("localhost")) {
            return java.net.InetAddress.getLoopbackAddress();
        }
        String literal = s.startsWith("[") && s.endsWith("]") ? s.substring(1, s.length() - 1) : s;
        try {
            return java.net.InetAddress.ofLiteral(literal);
        } catch (IllegalArgumentException e) {
            throw new DocaException(DocaError.INVALID_VALUE, flag + ": '" + s + "' is not an IP address (give an IPv4 or"
                    + " IPv6 literal, or localhost)");
        }
    }

    /**
     * The back-off of the data-path loops: spin, then yield, then park from 1 µs up to a ceiling.
     * Tunable with system properties {@code jdoca.storage.spins}, {@code .yields},
     * {@code .maxParkNanos} (2 cores shared by three apps: spinning long starves the peers).
     */
    public static io.jdoca.core.exec.IdleStrategy workerIdle() {
        return io.jdoca.core.exec.IdleStrategy.backoff(Integer.getInteger("jdoca.storage.spins", 64),
                Integer.getInteger("jdoca.storage.yields", 16), 1_000, Long.getLong("jdoca.storage.maxParkNanos", 50_000L));
    }

    /**
     * How long a control command may take on a worker thread (creating and starting contexts,
     * connecting, posting receives): {@code -Djdoca.storage.commandTimeoutMs}, default 60 s. The
     * first command of a worker loads classes and makes native downcall handles, which on a loaded
     * or emulated host takes many seconds; a command that never finishes is a hang either way.
     */
    public static long commandTimeoutNanos() {
        long ms = Long.getLong("jdoca.storage.commandTimeoutMs", 60_000L);
        return Math.max(1, ms) * 1_000_000L;
    }

    /** Round-up to a power of two (ring sizes). */
    public static int pow2(int n) {
        int p = 1;
        while (p < n) {
            p <<= 1;
        }
        return p;
    }
}
