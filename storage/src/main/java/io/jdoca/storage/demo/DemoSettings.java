package io.jdoca.storage.demo;

import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.storage.common.AppSupport;
import io.jdoca.storage.common.StorageProperties;
import java.io.PrintStream;
import java.util.List;

/**
 * The operator's knobs every {@code ./jdoca demo} honours: the deadline scale
 * ({@code JDOCA_DEMO_TIMEOUT_SCALE} or {@code -Djdoca.demo.timeoutScale} multiplies every start-up and
 * run deadline, for slow machines: an emulated guest took 107 s to reach the data path) and the JVM
 * options of the child processes ({@code JDOCA_JAVA_OPTS}, the launcher's); and where the apps'
 * {@code --cpu} pins them; the checks of its {@code -d} and {@code -g}. Stateless; any thread.
 */
public final class DemoSettings {
    private DemoSettings() {
    }

    /**
     * The JVM options of every child a demo starts: the demo's own defaults, then the launcher's
     * {@code JDOCA_JAVA_OPTS} (e.g. {@code -Djdoca.peer.timeout.ms=...}) split on blanks, which win (a
     * later option overrides an earlier one). The defaults: the C1 compiler only and idle data-path
     * loops that park up to 1 ms ({@link #IDLE_PARK_NANOS}) — a demo is not a benchmark, and five JVMs
     * on a small or emulated host otherwise spend their CPU on the C2 compiler and on loops that wake
     * every 50 us (in the RDMA test bed the gga demo had not finished after 30 min without them;
     * {@code ./jdoca bench} measures the apps with their own defaults) — and a worker command timeout
     * of {@link #COMMAND_TIMEOUT_MS} (a worker's first command loads classes and makes native handles:
     * minutes under emulation).
     */
    public static List<String> childJavaOpts() {
        String opts = System.getenv("JDOCA_JAVA_OPTS");
        List<String> l = new java.util.ArrayList<>(List.of("-XX:TieredStopAtLevel=1",
                "-D" + StorageProperties.MAX_PARK_NANOS.name() + "=" + IDLE_PARK_NANOS,
                "-D" + StorageProperties.COMMAND_TIMEOUT_MS.name() + "=" + COMMAND_TIMEOUT_MS));
        if (opts != null && !opts.isBlank()) {
            l.addAll(List.of(opts.trim().split("\\s+")));
        }
        return List.copyOf(l);
    }

    /** The demo children's longest idle park of a data-path loop (the apps' default is 50 us). */
    static final long IDLE_PARK_NANOS = 1_000_000;

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

    /**
     * A demo's {@code -d} and {@code -g} checked once, before any child starts, so a wrong one is one line
     * on {@code out} (false), not failed children: the device must exist and a GID index (>= 0) must be one
     * its port has ({@link AppSupport#checkGidIndex(Dev, int)}; a software device ignores it).
     */
    public static boolean checkDevice(PrintStream out, String device, int gidIndex) {
        try {
            Devices.find(device);
            AppSupport.checkGidIndex(gidIndex);
            if (gidIndex >= 0) {
                try (Dev d = Devices.open(device)) {
                    AppSupport.checkGidIndex(d, gidIndex);
                }
            }
            return true;
        } catch (DocaException | IllegalArgumentException e) {
            out.println("demo: " + e.getMessage());
            return false;
        }
    }

    /** The {@code -g N} of the children that get the demo's {@code -d} (empty for -1: their default). */
    public static List<String> gidArgs(int gidIndex) {
        return gidIndex < 0 ? List.of() : List.of("-g", Integer.toString(gidIndex));
    }

    /** The scale (a number in 0.1..100, default 1); NaN with one line on {@code out} when it is not one. */
    public static double scale(PrintStream out) {
        String v = StorageProperties.DEMO_TIMEOUT_SCALE.asString();
        if (v.isBlank()) {
            v = System.getenv("JDOCA_DEMO_TIMEOUT_SCALE");
        }
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
