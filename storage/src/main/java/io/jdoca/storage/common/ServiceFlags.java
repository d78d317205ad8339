package io.jdoca.storage.common;

import io.jdoca.argp.DocaArgpFlags;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The flags every storage service shares (target-rdma, zero-copy, gga-offload): DOCA's general
 * flags, {@code -l}, {@code --cpu}, {@code --once}, the metrics endpoint and the RDMA peer timeout.
 * A picocli mixin; {@link #run} is the service's whole {@code call()}. Control path.
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

    /** Runs the service {@code create} builds ({@link AppSupport#runService}); returns the exit code. */
    public int run(String app, Function<AtomicBoolean, ControlService<?>> create) {
        return AppSupport.runService(app, logLevel, argp, cpus, metrics, create);
    }
}
