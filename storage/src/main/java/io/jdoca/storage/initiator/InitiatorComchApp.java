package io.jdoca.storage.initiator;

import io.jdoca.comch.Comch;
import io.jdoca.argp.DocaArgpFlags;
import io.jdoca.core.agent.ShutdownHook;
import io.jdoca.storage.common.AppSupport;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./jdoca initiator-comch}: DOCA's {@code doca_storage_initiator_comch} (reference §4), the
 * host-side load generator and validator that talks to a storage service over Comch.
 * A picocli command: one instance per run, on the caller's thread.
 */
@Command(name = "initiator-comch",
        description = "Storage initiator over Comch: runs a throughput or data-validity test against a storage"
        + " service.")
public final class InitiatorComchApp implements Callable<Integer> {
    /** DOCA's general flags: -h, -v, --sdk-log-level, -j/--json. */
    @Mixin
    DocaArgpFlags argp;

    /** {@code --peer-timeout-ms}: the RDMA peer silence timeout (issue 12). */
    @Mixin
    io.jdoca.storage.common.PeerTimeoutOption peerTimeout;

    @Option(names = {"-d", "--device"}, required = true,
            description = "Device identifier (name, PCI address or ibdev).")
    String device;

    @Option(names = "--cpu", required = true,
            description = "CPU core for a worker thread (repeatable; one worker each).")
    List<Integer> cpus;

    @Option(names = "--execution-strategy", required = true,
            description = "read_throughput_test | write_throughput_test | read_only_data_validity_test |"
            + " read_write_data_validity_test")
    String strategy;

    @Option(names = "--storage-plain-content",
            description = "Plain file with the expected storage content (validity tests).")
    Path plainContent;

    @Option(names = "--run-limit-operation-count", defaultValue = "1000000",
            description = "Operations per worker (default ${DEFAULT-VALUE}).")
    long runLimit;

    @Option(names = "--transaction-count", defaultValue = "64",
            description = "Concurrent transactions per worker (default ${DEFAULT-VALUE}).")
    int transactionCount;

    @Option(names = "--command-channel-name", defaultValue = Comch.DEFAULT_CHANNEL_NAME,
            description = "Comch channel name (default ${DEFAULT-VALUE}).")
    String channelName;

    @Option(names = "--control-timeout", defaultValue = "5",
            description = "Control message timeout in seconds (default ${DEFAULT-VALUE}).")
    long controlTimeoutSeconds;

    @Option(names = "--local-io-region-size", defaultValue = "0",
            description = "Local IO region bytes (0 = storage capacity).")
    long localIoRegionSize;

    @Option(names = "--blocks-per-io", defaultValue = "1",
            description = "Storage blocks per IO (default ${DEFAULT-VALUE}).")
    int blocksPerIo;

    @Option(names = "--expect-service", paramLabel = "PID|NAME", description = {"Run only against this service (jdoca):"
            + " its pid, or its app name (zero-copy, gga-offload), as the service says at connect. Another service on"
            + " the channel is refused before anything is sent to it."})
    String expectService;

    @Option(names = {"-l", "--log-level"}, defaultValue = "40",
            description = "DOCA log level 10..70 (default ${DEFAULT-VALUE}).")
    int logLevel;

    @Override
    @SuppressWarnings("try") // the Ctrl-C hook is held for its close, unused in the body
    public Integer call() {
        return AppSupport.runApp("initiator-comch", logLevel, argp, () -> {
            io.jdoca.core.util.CpuAffinity.check("--cpu", cpus);
            ExecutionStrategy s = ExecutionStrategy.of(strategy);
            if (s == null) {
                System.err.println("initiator-comch: unknown --execution-strategy '" + strategy + "'");
                return 2;
            }
            AtomicBoolean abort = new AtomicBoolean();
            try (ShutdownHook hook = ShutdownHook.install("initiator-comch-ctrl-c", () -> abort.set(true), 8_000)) {
                return new InitiatorComch(new InitiatorComch.Config(device, cpus, s, plainContent, runLimit,
                        transactionCount, channelName, controlTimeoutSeconds * 1_000_000_000L, localIoRegionSize,
                        blocksPerIo,
                        expectService),
                        abort).run(System.out);
            }
        });
    }
}
