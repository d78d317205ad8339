package io.jdoca.storage.zerocopy;

import io.jdoca.storage.common.ComchServiceFlags;
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
    /** DOCA's general flags, -l, --cpu, --once, the metrics endpoint, the peer timeout and -g/--gid-index. */
    @Mixin
    ServiceFlags flags;

    /** {@code -r}, {@code --command-channel-name}, {@code --control-timeout}, {@code --listen-address}. */
    @Mixin
    ComchServiceFlags comch;

    @Option(names = {"-d", "--device"}, required = true, description = "Device identifier.")
    String device;

    @Option(names = "--storage-server", required = true, description = "ip:port of the storage target.")
    String storageServer;

    @Override
    public Integer call() {
        return flags.run("zero-copy", abort -> new ZeroCopyService(config(), abort));
    }

    /** The service's configuration from the flags; IllegalArgumentException or DocaException naming a bad one. */
    ZeroCopyService.Config config() {
        return new ZeroCopyService.Config(device, comch.representor, flags.cpus, storageServer, comch.channelName,
                comch.controlTimeoutNanos(), flags.once, comch.rdmaBind(), comch.allowedPeers(), flags.gidIndex());
    }
}
