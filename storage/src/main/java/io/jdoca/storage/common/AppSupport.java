package io.jdoca.storage.common;

import io.jdoca.argp.DocaArgpFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.agent.ShutdownHook;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.metrics.MetricsHttpServer;
import io.jdoca.core.util.CpuAffinity;
import io.jdoca.core.util.DocaLogLevel;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * Small helpers the storage apps share: {@code ip:port} parsing, the Ctrl-C handler
 * ({@code storage::install_ctrl_c_handler}) and a few constants.
 *
 * <p>Control path; thread-safe.
 */
public final class AppSupport {
    private AppSupport() {
    }

    /**
     * The body of a storage app's {@code call()}: applies {@code -l} and {@code --sdk-log-level},
     * runs {@code body}, and turns a DocaException or IllegalArgumentException (bad input, control
     * path) into one line {@code app: message} on stderr and exit code 1.
     */
    public static int runApp(String app, int logLevel, DocaArgpFlags argp,
            java.util.concurrent.Callable<Integer> body) {
        try {
            DocaLogLevel.apply(logLevel);
            argp.applySdkLogLevel();
            return body.call();
        } catch (DocaException | IllegalArgumentException e) {
            System.err.println(app + ": " + e.getMessage());
            return 1;
        } catch (Exception e) {
            throw new IllegalStateException(app + ": " + e, e);
        } finally {
            System.out.flush();
        }
    }

    /**
     * A storage service's whole life ({@link #runApp} around it): checks {@code --cpu} and the
     * metrics flags, installs the one Ctrl-C handler ({@code <app>-ctrl-c}: abort, then up to 8 s
     * for {@code run} to release everything), serves {@code --metrics-port} when asked, and runs the
     * service on the calling thread.
     */
    @SuppressWarnings("try") // the Ctrl-C hook and the metrics endpoint are held for their close, unused in the body
    public static int runService(String app, int logLevel, DocaArgpFlags argp, List<Integer> cpus,
            MetricsOption metrics,
            Function<AtomicBoolean, ControlService<?>> create) {
        return runApp(app, logLevel, argp, () -> {
            CpuAffinity.check("--cpu", cpus);
            metrics.check();
            AtomicBoolean abort = new AtomicBoolean();
            // Leaving the try means finished: the hook then no longer waits for us.
            try (ShutdownHook hook = ShutdownHook.install(app + "-ctrl-c", () -> abort.set(true), 8_000)) {
                ControlService<?> service = create.apply(abort);
                try (MetricsHttpServer m = metrics.startIfAsked(app, service.metrics())) {
                    return service.run(System.out);
                }
            }
        });
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

    /** The software device that runs Comch, DMA and the GGA engines when {@code -d} names an RDMA device. */
    public static final String SOFTWARE_DEVICE = "sw0";

    /**
     * The device for a service's Comch, DMA, EC and compress contexts given the device its {@code -d}
     * opened ({@code rdma}, the one its RDMA contexts and RDMA-reached maps use): {@code rdma} itself for a
     * software device; for an RDMA (verbs) device, which has only RDMA (no Comch, no DMA or GGA engine),
     * the software device that owns the representor {@code -r} names, or {@link #SOFTWARE_DEVICE} without
     * one. So {@code -d rxe0 -r hpf0} keeps Comch on shared memory and moves the RDMA to rxe0. Control path.
     */
    public static Dev localDevice(Dev rdma, String representor) {
        if (!rdma.devInfo().isVerbs()) {
            return rdma;
        }
        String owner = representor == null ? SOFTWARE_DEVICE : Devices.findRepresentor(representor).parent();
        return Devices.open(owner == null ? SOFTWARE_DEVICE : owner);
    }

    /** One line naming where a service's RDMA runs ("RDMA on rxe0 (verbs)"), for its start-up output. */
    public static String rdmaLine(Dev rdma) {
        return "RDMA on " + rdma.devInfo().name() + (rdma.devInfo().isVerbs()
                ? " (verbs, rdma-core)" : " (software transport)");
    }

    /** The flag of a storage service's GID index ({@link ServiceFlags#gidIndex()}; DOCA's RDMA samples' name). */
    public static final String GID_INDEX_FLAG = "--gid-index";

    /**
     * {@code -g/--gid-index} checked: -1 (the device's default GID) or a GID table index 0..255
     * ({@code ibv_ah_attr.grh.sgid_index} is 8 bits); otherwise an IllegalArgumentException whose
     * message is the one line the app prints. Control path.
     */
    public static int checkGidIndex(int index) {
        if (index < -1 || index > 255) {
            throw new IllegalArgumentException(GID_INDEX_FLAG + ": " + index
                    + " is not a GID index (0..255, or -1 for the device's default)");
        }
        return index;
    }

    /**
     * A service's GID index checked against its RDMA device at start (control path), so a GID the port
     * does not have is one line naming the flag before the service listens (an IllegalArgumentException),
     * not a failed RDMA start (INVALID_VALUE) when the first session begins. A software device ignores
     * the index (its transports have no GID): any value {@link #checkGidIndex(int)} accepts passes.
     */
    public static void checkGidIndex(Dev rdma, int index) {
        checkGidIndex(index);
        if (index < 0 || !rdma.devInfo().isVerbs()) {
            return;
        }
        try {
            rdma.devInfo().verbsContext().gid(index);
        } catch (io.jdoca.verbs.VerbsException e) {
            throw new IllegalArgumentException(noSuchGid(rdma, index, e.getMessage()));
        }
    }

    /** {@code "--gid-index N: DEV has no GID N (DETAIL; ./jdoca devices -d DEV lists its GIDs)"}; detail optional. */
    static String noSuchGid(Dev rdma, int index, String detail) {
        String name = rdma.devInfo().name();
        return GID_INDEX_FLAG + " " + index + ": " + name + " has no GID " + index + " ("
                + (detail == null ? "" : detail + "; ") + "./jdoca devices -d " + name + " lists its GIDs)";
    }

    /**
     * The error of an RDMA context's start that failed with {@code e} (control path, worker thread):
     * INVALID_VALUE with a GID index set means the port has no such GID (the GID table changed since the
     * service started), so the message names {@code --gid-index}; {@code what} names the context.
     */
    public static DocaException rdmaStartFailed(DocaError e, String what, Dev rdma, int gidIndex) {
        return new DocaException(e, e == DocaError.INVALID_VALUE && gidIndex >= 0
                ? what + ": " + noSuchGid(rdma, gidIndex, null) : what);
    }

    /**
     * One line naming where a service's RDMA runs and, when {@code -g} was given, on which GID index:
     * {@link #rdmaLine(Dev)} then {@code ", GID index N"} on a verbs device, or a note that the software
     * transport ignores it.
     */
    public static String rdmaLine(Dev rdma, int gidIndex) {
        if (gidIndex < 0) {
            return rdmaLine(rdma);
        }
        return rdmaLine(rdma) + (rdma.devInfo().isVerbs() ? ", GID index " + gidIndex
                : ", " + GID_INDEX_FLAG + " " + gidIndex + " ignored (no GID on a software device)");
    }

    /**
     * Where the storage apps' listeners bind unless {@code --listen-address} says otherwise: the IPv4
     * loopback, so a service started without thinking about the network is reachable from this host
     * only (issue 29 item 5). {@code --listen-address 0.0.0.0} (or {@code ::}) serves every interface.
     */
    public static final String DEFAULT_LISTEN_ADDRESS = "127.0.0.1";

    /** {@link #DEFAULT_LISTEN_ADDRESS} as an address. */
    public static java.net.InetAddress defaultListenAddress() {
        return java.net.InetAddress.ofLiteral(DEFAULT_LISTEN_ADDRESS);
    }

    /**
     * Parses a listen address flag: an IPv4 or IPv6 literal, or {@code localhost} (the loopback
     * address); {@code null} or empty means the default, {@link #DEFAULT_LISTEN_ADDRESS}. Never
     * resolves a name (no DNS). IllegalArgumentException naming {@code flag} otherwise
     * ({@link #parseIpAddress}).
     */
    public static java.net.InetAddress parseListenAddress(String flag, String s) {
        if (s == null || s.isEmpty()) {
            return defaultListenAddress();
        }
        return parseIpAddress(flag, s);
    }

    /** {@code --allow-peer} values parsed ({@link #parseIpAddress}); empty when none. */
    public static List<java.net.InetAddress> parseAllowedPeers(List<String> values) {
        List<java.net.InetAddress> out = new java.util.ArrayList<>();
        if (values != null) {
            for (String v : values) {
                out.add(parseIpAddress("--allow-peer", v));
            }
        }
        return List.copyOf(out);
    }

    /** A listener's bind address for a start-up line: the address, or "every interface" for the wildcard. */
    public static String describeBind(java.net.InetAddress a) {
        return a.isAnyLocalAddress() ? "every interface (" + a.getHostAddress() + ")" : a.getHostAddress();
    }

    /**
     * Parses an address flag that must name one address (the storage apps' one wording for every
     * address flag): an IPv4 or IPv6 literal (brackets allowed) or {@code localhost}. Never resolves
     * a name (no DNS). Otherwise, the empty string included, an IllegalArgumentException whose
     * message is the one line the app prints: {@code FLAG: 'VALUE' is not an IP address (...)}.
     */
    public static java.net.InetAddress parseIpAddress(String flag, String s) {
        if ("localhost".equals(s)) {
            return java.net.InetAddress.getLoopbackAddress();
        }
        String v = s == null ? "" : s;
        String literal = v.startsWith("[") && v.endsWith("]") ? v.substring(1, v.length() - 1) : v;
        try {
            return java.net.InetAddress.ofLiteral(literal);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(flag + ": '" + v
                    + "' is not an IP address (give an IPv4 or IPv6 literal,"
                + " or localhost)");
        }
    }

    /**
     * The back-off of the data-path loops: spin, then yield, then park from 1 µs up to a ceiling.
     * Tunable with system properties {@code jdoca.storage.spins}, {@code .yields},
     * {@code .maxParkNanos} (2 cores shared by three apps: spinning long starves the peers).
     */
    public static io.jdoca.core.exec.IdleStrategy workerIdle() {
        return io.jdoca.core.exec.IdleStrategy.backoff(StorageProperties.SPINS.asInt(),
                StorageProperties.YIELDS.asInt(), 1_000, StorageProperties.MAX_PARK_NANOS.asLong());
    }

    /**
     * How long a control command may take on a worker thread (creating and starting contexts,
     * connecting, posting receives): {@code -Djdoca.storage.commandTimeoutMs}, default 60 s. The
     * first command of a worker loads classes and makes native downcall handles, which on a loaded
     * or emulated host takes many seconds; a command that never finishes is a hang either way.
     */
    public static long commandTimeoutNanos() {
        long ms = StorageProperties.COMMAND_TIMEOUT_MS.asLong();
        return Math.max(1, ms) * 1_000_000L;
    }

    /** The flag of every control timeout the operator can raise (initiator-comch, zero-copy, gga-offload). */
    public static final String CONTROL_TIMEOUT_FLAG = "--control-timeout";
    /** How the worker command timeout ({@link #commandTimeoutNanos}) is raised. */
    public static final String COMMAND_TIMEOUT_FLAG = "JDOCA_JAVA_OPTS=-D" + StorageProperties.COMMAND_TIMEOUT_MS.name()
            + "=MS";

    /**
     * The tail of a timeout's message (issue 29 item 7: a timeout tells the operator how to wait
     * longer): {@code " after N s (FLAG raises it)"}.
     */
    public static String raisedBy(String flag, long timeoutNanos) {
        return String.format(java.util.Locale.ROOT, " after %.1f s (%s raises it)", timeoutNanos / 1e9, flag);
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
