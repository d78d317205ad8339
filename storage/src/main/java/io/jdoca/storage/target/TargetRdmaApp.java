package io.jdoca.storage.target;

import io.jdoca.argp.DocaArgpFlags;
import io.jdoca.storage.common.AppSupport;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./jdoca target-rdma}: DOCA's {@code doca_storage_target_rdma} — memory-backed (or, with
 * {@code --backing-file}, file-backed) block storage served over RDMA to one storage service.
 * A picocli command: one instance per run, on the caller's thread.
 */
@Command(name = "target-rdma",
        description = "RDMA storage target: memory-backed blocks served to a storage service over RDMA.")
public final class TargetRdmaApp implements Callable<Integer> {
    /** DOCA's general flags: -h, -v, --sdk-log-level, -j/--json. */
    @Mixin
    DocaArgpFlags argp;

    /** {@code --metrics-port}, {@code --metrics-address}: Prometheus metrics of the data path (issue 16). */
    @Mixin
    io.jdoca.storage.common.MetricsOption metricsOption;

    /** {@code --peer-timeout-ms}: the RDMA peer silence timeout (issue 12). */
    @Mixin
    io.jdoca.storage.common.PeerTimeoutOption peerTimeout;

    @Option(names = {"-d", "--device"}, required = true, description = "Device identifier.")
    String device;

    @Option(names = "--cpu", required = true, description = "CPU core for a data path thread (repeatable).")
    List<Integer> cpus;

    @Option(names = "--listen-port", required = true, description = "TCP port to listen on for the storage service (0 = any).")
    int listenPort;

    @Option(names = "--listen-address", description = {"IP address the control listener and the RDMA connections' TCP"
            + " listeners bind to (jdoca; default: all interfaces, as DOCA). The control port lets any peer that reaches it drive this target: bind it to the"
            + " storage network (e.g. 127.0.0.1 on one host) or firewall it (docs/ARCHITECTURE.md, Security)."})
    String listenAddress;

    @Option(names = "--once", description = {"DOCA's behaviour (jdoca flag): serve one session and exit (0 after its"
            + " shutdown, 1 if the client left first). Default: a service that outlives its clients; Ctrl-C ends it."})
    boolean once;

    @Option(names = "--binary-content", description = "Initial content: an .sbc file (its header sets the geometry) or a plain file of block-size x block-count bytes.")
    Path binaryContent;

    @Option(names = "--block-count", defaultValue = "128", description = "Number of storage blocks (default ${DEFAULT-VALUE}; ignored with an .sbc file).")
    int blockCount;

    @Option(names = "--block-size", defaultValue = "4096", description = "Block size in bytes (default ${DEFAULT-VALUE}; ignored with an .sbc file).")
    int blockSize;

    @Option(names = "--backing-file", description = "Keep the blocks in this file (created if absent) so they survive a restart; writes reach it before the response.")
    Path backingFile;

    @Option(names = {"-l", "--log-level"}, defaultValue = "40", description = "DOCA log level 10..70 (default ${DEFAULT-VALUE}).")
    int logLevel;

    @Override
    public Integer call() {
        if (listenPort < 0 || listenPort > 65535) {
            System.err.println("target-rdma: --listen-port " + listenPort + " is outside 0..65535");
            return 2;
        }
        return AppSupport.runService("target-rdma", logLevel, argp, cpus, metricsOption, abort -> new TargetRdma(
                new TargetRdma.Config(device, cpus, AppSupport.parseListenAddress("--listen-address", listenAddress), listenPort,
                        binaryContent, blockCount, blockSize, backingFile,
                        Math.max(30_000_000_000L, AppSupport.commandTimeoutNanos()), once), abort));
    }
}
