package io.jdoca.storage.zerocopy;

import io.jdoca.comch.Comch;
import io.jdoca.argp.DocaArgpFlags;
import io.jdoca.storage.common.AppSupport;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./jdoca zero-copy}: DOCA's {@code doca_storage_comch_to_rdma_zero_copy} — relays an
 * initiator's storage requests (Comch) to one RDMA target, which moves the data directly to and
 * from host memory.
 * A picocli command: one instance per run, on the caller's thread.
 */
@Command(name = "zero-copy",
        description = "Zero-copy storage service: relays Comch storage requests to one RDMA target.")
public final class ZeroCopyApp implements Callable<Integer> {
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

    @Option(names = {"-r", "--representor"}, description = "Host-side representor (name or PCI address).")
    String representor;

    @Option(names = "--cpu", required = true, description = "CPU core for a worker thread (repeatable).")
    List<Integer> cpus;

    @Option(names = "--storage-server", required = true, description = "ip:port of the storage target.")
    String storageServer;

    @Option(names = "--command-channel-name", defaultValue = Comch.DEFAULT_CHANNEL_NAME, description = "Comch channel name (default ${DEFAULT-VALUE}).")
    String channelName;

    @Option(names = "--control-timeout", defaultValue = "5", description = "Control message timeout in seconds (default ${DEFAULT-VALUE}).")
    long controlTimeoutSeconds;

    @Option(names = "--listen-address", description = {"IP address the RDMA connections' TCP listeners bind to (jdoca;"
            + " default: all interfaces, the library's default). The Comch channel is a Unix socket private to this user."})
    String listenAddress;

    @Option(names = "--once", description = {"DOCA's behaviour (jdoca flag): serve one initiator and exit (0 after its"
            + " shutdown, 1 if it left first). Default: a service that outlives its initiators; Ctrl-C ends it."})
    boolean once;

    @Option(names = {"-l", "--log-level"}, defaultValue = "40", description = "DOCA log level 10..70 (default ${DEFAULT-VALUE}).")
    int logLevel;

    @Override
    public Integer call() {
        return AppSupport.runService("zero-copy", logLevel, argp, cpus, metricsOption, abort -> new ZeroCopyService(
                new ZeroCopyService.Config(device, representor, cpus, storageServer, channelName,
                        controlTimeoutSeconds * 1_000_000_000L, once,
                        AppSupport.parseListenAddress("--listen-address", listenAddress)), abort));
    }
}
