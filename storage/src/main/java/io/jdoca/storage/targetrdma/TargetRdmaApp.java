package io.jdoca.storage.targetrdma;

import io.jdoca.storage.common.AppSupport;
import io.jdoca.storage.common.ServiceFlags;
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
    /** DOCA's general flags, -l, --cpu, --once, the metrics endpoint, the peer timeout and -g/--gid-index. */
    @Mixin
    ServiceFlags flags;

    @Option(names = {"-d", "--device"}, required = true, description = "Device identifier.")
    String device;

    @Option(names = "--listen-port", required = true,
            description = "TCP port to listen on for the storage service (0 = any).")
    int listenPort;

    @Option(names = "--listen-address", defaultValue = AppSupport.DEFAULT_LISTEN_ADDRESS, description = {"IP address"
            + " the control listener and the RDMA connections' TCP listeners bind to (jdoca; default ${DEFAULT-VALUE}:"
            + " this host only). To serve a storage network give its address (0.0.0.0: every interface); the control"
            + " port lets any peer that reaches it drive this target, so firewall it (docs/ARCHITECTURE.md,"
            + " Security)."})
    String listenAddress;

    @Option(names = "--binary-content",
            description = "Initial content: an .sbc file (its header sets the geometry) or a plain file of"
            + " block-size x block-count bytes.")
    Path binaryContent;

    @Option(names = "--block-count", defaultValue = "128",
            description = "Number of storage blocks (default ${DEFAULT-VALUE}; ignored with an .sbc file).")
    int blockCount;

    @Option(names = "--block-size", defaultValue = "4096",
            description = "Block size in bytes (default ${DEFAULT-VALUE}; ignored with an .sbc file).")
    int blockSize;

    @Option(names = "--backing-file", description = "Keep the blocks in this file (created if absent) so they survive a"
            + " restart; writes reach its page cache before the response (what survives the host: --durability).")
    Path backingFile;

    @Option(names = "--durability", defaultValue = "session", paramLabel = "session|write", description = {"With"
            + " --backing-file (jdoca): session (default) flushes the file at each session's end and at exit, so an OS"
            + " crash or power loss loses the writes since; write flushes each write (msync) before its response, so an"
            + " acknowledged write survives them (a synchronous flush per write: see ./jdoca bench storage)."})
    String durability;

    @Option(names = "--allow-peer", paramLabel = "IP", description = {"An address a storage service's RDMA connection"
            + " blob may name besides the control client's own (jdoca; repeatable). By default this target connects"
            + " only to the address its control client came from; blobs naming host names are always refused."})
    List<String> allowPeers;

    @Option(names = "--handshake-timeout-ms", defaultValue = "5000", paramLabel = "MS", description = {"A new control"
            + " connection must send a whole first request within MS ms or it is closed (jdoca; default"
            + " ${DEFAULT-VALUE}): a stalled or half-open client never holds the session."})
    long handshakeMillis;

    @Override
    public Integer call() {
        if (listenPort < 0 || listenPort > 65535) {
            System.err.println("target-rdma: --listen-port " + listenPort + " is outside 0..65535");
            return 2;
        }
        if (handshakeMillis <= 0) {
            System.err.println("target-rdma: --handshake-timeout-ms " + handshakeMillis + " must be > 0");
            return 2;
        }
        return flags.run("target-rdma", abort -> new TargetRdma(config(), abort));
    }

    /** The service's configuration from the flags; IllegalArgumentException or DocaException naming a bad one. */
    TargetRdma.Config config() {
        return new TargetRdma.Config(device, flags.cpus,
                AppSupport.parseListenAddress("--listen-address", listenAddress), listenPort, binaryContent, blockCount,
                blockSize, backingFile, Durability.parse(durability), AppSupport.parseAllowedPeers(allowPeers),
                handshakeMillis * 1_000_000L, Math.max(30_000_000_000L, AppSupport.commandTimeoutNanos()), flags.once,
                flags.gidIndex());
    }
}
