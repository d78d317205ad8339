package io.jdoca.storage.demo;

import java.io.PrintStream;
import java.util.List;

/**
 * The operator's knobs every {@code ./jdoca demo} honours: the deadline scale
 * ({@code JDOCA_DEMO_TIMEOUT_SCALE} or {@code -Djdoca.demo.timeoutScale} multiplies every start-up and
 * run deadline, for slow machines: an emulated guest took 107 s to reach the data path) and the JVM
 * options of the child processes ({@code JDOCA_JAVA_OPTS}, the launcher's); and where the apps'
 * {@code --cpu} pins them. Stateless; any thread.
 */
public final class DemoSettings {
    private DemoSettings() {
    }

    /**
     * The launcher's {@code JDOCA_JAVA_OPTS} (e.g. {@code -Djdoca.peer.timeout.ms=...}), split on blanks:
     * they hold for every child JVM a demo starts too. Empty when unset.
     */
    public static List<String> childJavaOpts() {
        String opts = System.getenv("JDOCA_JAVA_OPTS");
        List<String> l = new java.util.ArrayList<>(opts == null || opts.isBlank()
                ? List.of() : List.of(opts.trim().split("\\s+")));
        if (l.stream().noneMatch(o -> o.startsWith("-Djdoca.storage.commandTimeoutMs="))) {
            // A worker's first command loads classes and makes native handles: minutes under emulation.
            l.add("-Djdoca.storage.commandTimeoutMs=" + COMMAND_TIMEOUT_MS);
        }
        return List.copyOf(l);
    }

    /**
     * The children's {@code --control-timeout} at scale 1, in seconds: generous, because the demo
     * watches its children itself (one that dies fails the demo at once, {@link DemoWait}) and a dead
     * peer is seen at its connection's end, not at a timeout; the timeout only bounds a live, stuck one.
     * DOCA's 5 s failed at load 30 (issue 29 item 7).
     */
    public static final int CONTROL_TIMEOUT_S = 300;
    /**
     * The children's worker command timeout ({@code -Djdoca.storage.commandTimeoutMs}) unless JDOCA_JAVA_OPTS sets it.
     */
    static final long COMMAND_TIMEOUT_MS = 300_000;

    /**
     * {@code --cpu} for the relay (zero-copy, gga-offload): the second CPU this process may use, so the
     * relay has a core of its own while the initiator and the targets share the first ({@code --cpu}
     * pins; giving every app CPU 0 ran the whole chain on one core).
     */
    public static int relayCpu() {
        return io.jdoca.core.util.CpuAffinity.spread(1);
    }

    /** {@code --cpu} for the initiator and the targets: the first CPU this process may use. */
    public static int edgeCpu() {
        return io.jdoca.core.util.CpuAffinity.spread(0);
    }

    /** The scale (a number in 0.1..100, default 1); NaN with one line on {@code out} when it is not one. */
    public static double scale(PrintStream out) {
        String v = System.getProperty("jdoca.demo.timeoutScale", System.getenv("JDOCA_DEMO_TIMEOUT_SCALE"));
        if (v == null || v.isBlank()) {
            return 1;
        }
        try {
            double d = Double.parseDouble(v.trim());
            if (d >= 0.1 && d <= 100) {
                return d;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        out.println("demo: JDOCA_DEMO_TIMEOUT_SCALE must be a number in 0.1..100, got '" + v + "'");
        return Double.NaN;
    }
}
