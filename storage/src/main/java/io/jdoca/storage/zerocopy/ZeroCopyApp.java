package io.jdoca.storage.zerocopy;

import io.jdoca.comch.Comch;
import io.jdoca.storage.common.AppSupport;
import io.jdoca.storage.common.ServiceFlags;
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
    /** DOCA's general flags, -l, --cpu, --once, the metrics endpoint and the peer timeout. */
    @Mixin
    ServiceFlags flags;

    @Option(names = {"-d", "--device"}, required = true, description = "Device identifier.")
    String device;

    @Option(names = {"-r", "--representor"}, description = "Host-side representor (name or PCI address).")
    String representor;


    @Option(names = "--storage-server", required = true, description = "ip:port of the storage target.")
    String storageServer;

    @Option(names = "--command-channel-name", defaultValue = Comch.DEFAULT_CHANNEL_NAME, description = "Comch channel name (default ${DEFAULT-VALUE}).")
    String channelName;

    @Option(names = "--control-timeout", defaultValue = "5", description = "Control message timeout in seconds (default ${DEFAULT-VALUE}).")
    long controlTimeoutSeconds;

    @Option(names = "--listen-address", description = {"IP address the RDMA connections' TCP listeners bind to (jdoca;"
            + " default: all interfaces, the library's default). The Comch channel is a Unix socket private to this user."})
    String listenAddress;



    @Override
    public Integer call() {
        return flags.run("zero-copy", abort -> new ZeroCopyService(
                new ZeroCopyService.Config(device, representor, flags.cpus, storageServer, channelName,
                        controlTimeoutSeconds * 1_000_000_000L, flags.once,
                        AppSupport.parseListenAddress("--listen-address", listenAddress)), abort));
    }
}
