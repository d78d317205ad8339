package io.jdoca.core;

import io.jdoca.core.config.CoreProperties;

/**
 * When a transport may declare its peer dead. A peer that died is seen at once, by rule: its socket
 * reports end of stream ({@link Rule#EOF}) or a reset ({@link Rule#RST}), or, for a same-host peer,
 * its process is gone ({@link Rule#PID_GONE}) or it marked the connection closed
 * ({@link Rule#CLOSED}). A peer that is merely silent is declared dead only after
 * {@link #timeoutNanos()} of silence ({@link Rule#SILENT}); the default,
 * {@value #DEFAULT_TIMEOUT_MS} ms, covers GC pauses and starved threads on a loaded host (an
 * emulated 2-CPU guest running five JVMs stalls for seconds).
 *
 * <p>The timeout is the system property {@value #PROPERTY} (milliseconds), or what an app's
 * {@code --peer-timeout-ms} flag sets through {@link #setTimeoutMillis(long)}. Silence is counted
 * by {@link SilenceMeter}, which does not blame the peer for time this process itself was stalled.
 *
 * <p>Thread-safe: static, a volatile setting.
 */
public final class PeerLiveness {
    /** System property: the silence timeout in milliseconds ({@link CoreProperties#PEER_TIMEOUT_MS}). */
    public static final String PROPERTY = CoreProperties.PEER_TIMEOUT_MS_NAME;
    /** Default silence timeout. */
    public static final long DEFAULT_TIMEOUT_MS = 30_000;
    /** Largest accepted timeout (one day). */
    public static final long MAX_TIMEOUT_MS = 86_400_000L;

    /** Which rule declared a peer dead; the log line names it. */
    public enum Rule {
        /** The peer's socket reached end of stream (it closed, or its process died). */
        EOF("EOF"),
        /** The peer's socket was reset (RST). */
        RST("RST"),
        /** The same-host peer's process is gone. */
        PID_GONE("pid gone"),
        /** The peer marked the connection closed (shared-memory flag, disconnect frame). */
        CLOSED("closed by peer"),
        /** Nothing arrived from the peer for longer than the silence timeout. */
        SILENT("silent");

        private final String label;

        Rule(String label) {
            this.label = label;
        }

        /** The rule as the log shows it, e.g. {@code "EOF"}. */
        public String label() {
            return label;
        }
    }

    private static volatile long timeoutNanos = initial();

    private PeerLiveness() {
    }

    private static long initial() {
        String v = CoreProperties.PEER_TIMEOUT_MS.asString();
        if (v.isBlank()) {
            return DEFAULT_TIMEOUT_MS * 1_000_000L;
        }
        String bad = check(v);
        if (bad != null) {
            System.getLogger(PeerLiveness.class.getName()).log(System.Logger.Level.WARNING,
                    "-D" + PROPERTY + ": " + bad + "; using " + DEFAULT_TIMEOUT_MS + " ms");
            return DEFAULT_TIMEOUT_MS * 1_000_000L;
        }
        return Long.parseLong(v.trim()) * 1_000_000L;
    }

    /** Null when {@code v} is a valid timeout in ms, else what is wrong with it (one line). */
    public static String check(String v) {
        long ms;
        try {
            ms = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return "'" + v + "' is not a whole number of milliseconds";
        }
        if (ms <= 0 || ms > MAX_TIMEOUT_MS) {
            return ms + " ms is outside 1.." + MAX_TIMEOUT_MS;
        }
        return null;
    }

    /** The silence timeout, in nanoseconds. */
    public static long timeoutNanos() {
        return timeoutNanos;
    }

    /** The silence timeout, in milliseconds. */
    public static long timeoutMillis() {
        return timeoutNanos / 1_000_000L;
    }

    /**
     * Sets the silence timeout for connections made from now on (apps: {@code --peer-timeout-ms});
     * INVALID_VALUE outside 1..{@value #MAX_TIMEOUT_MS} ms.
     */
    public static DocaError setTimeoutMillis(long ms) {
        if (ms <= 0 || ms > MAX_TIMEOUT_MS) {
            return DocaError.INVALID_VALUE;
        }
        timeoutNanos = ms * 1_000_000L;
        return DocaError.SUCCESS;
    }

    /** The log text of a {@link Rule#SILENT} verdict: which rule fired and how to change it. */
    public static String silentVerdict(long silentNanos, long timeoutNanos) {
        return "silent: nothing from the peer for " + silentNanos / 1_000_000L + " ms > timeout "
                + timeoutNanos / 1_000_000L + " ms (-D" + PROPERTY + " or --peer-timeout-ms)";
    }
}
