package io.jdoca.storage.common;

import io.jdoca.argp.DocaArgpFlags;
import io.jdoca.verbs.VerbsProperties;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The flags every storage service shares (target-rdma, zero-copy, gga-offload): DOCA's general
 * flags, {@code -l}, {@code --cpu}, {@code --once}, the metrics endpoint, the RDMA peer timeout and
 * {@code -g/--gid-index}. A picocli mixin; {@link #run} is the service's whole {@code call()}. Control path.
 */
public final class ServiceFlags {
    /** DOCA's general flags: -h, -v, --sdk-log-level, -j/--json. */
    @Mixin
    public DocaArgpFlags argp;

    /** {@code --metrics-port}, {@code --metrics-address}: Prometheus metrics of the data path (issue 16). */
    @Mixin
    public MetricsOption metrics;

    /** {@code --peer-timeout-ms}: the RDMA peer silence timeout (issue 12). */
    @Mixin
    public PeerTimeoutOption peerTimeout;

    @Option(names = "--cpu", required = true, description = "CPU core for a data-path worker thread (repeatable).")
    public List<Integer> cpus;

    @Option(names = "--once", description = {"DOCA's behaviour (jdoca flag): serve one client session and exit (0 after"
            + " its shutdown, 1 if the client left first). Default: a service that outlives its clients; Ctrl-C ends "
                    + "it."})
    public boolean once;

    @Option(names = {"-l", "--log-level"}, defaultValue = "40",
            description = "DOCA log level 10..70 (default ${DEFAULT-VALUE}).")
    public int logLevel;

    /**
     * {@code -g/--gid-index}: the GID table entry of every RDMA context of the service
     * ({@code doca_rdma_set_gid_index}; the flag of DOCA's RDMA samples, jdoca's on the storage apps, issue 31).
     * -1: the device's default. Read it through {@link #gidIndex()}, which checks it.
     */
    @Option(names = {"-g", "--gid-index"}, defaultValue = "-1", paramLabel = "N", description = {"GID index of the"
            + " RDMA contexts on an RDMA device (jdoca; default ${DEFAULT-VALUE}: the device's, -D"
            + VerbsProperties.GID_INDEX_NAME + ", else its first RoCE v2 IPv4-mapped GID; ./jdoca devices -d DEV lists"
            + " them). A software device ignores it."})
    public int gidIndex;

    /**
     * {@code -g} checked ({@link AppSupport#checkGidIndex(int)}): -1 or 0..255, else an
     * IllegalArgumentException naming the flag (one line and exit 1 inside {@link #run}).
     */
    public int gidIndex() {
        return AppSupport.checkGidIndex(gidIndex);
    }

    /** Runs the service {@code create} builds ({@link AppSupport#runService}); returns the exit code. */
    public int run(String app, Function<AtomicBoolean, ControlService<?>> create) {
        return AppSupport.runService(app, logLevel, argp, cpus, metrics, create);
    }
}
