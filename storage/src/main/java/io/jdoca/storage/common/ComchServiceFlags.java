package io.jdoca.storage.common;

import io.jdoca.comch.Comch;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The flags of the storage services that serve an initiator over Comch and reach their targets over
 * RDMA (zero-copy, gga-offload): the representor, the Comch channel, the control timeout and the
 * RDMA listeners' bind address. A picocli mixin; control path.
 */
public final class ComchServiceFlags {
    @Option(names = {"-r", "--representor"}, description = "Host-side representor (name or PCI address, e.g. 0b:00.0).")
    public String representor;

    @Option(names = "--command-channel-name", defaultValue = Comch.DEFAULT_CHANNEL_NAME,
            description = "Comch server channel name (default ${DEFAULT-VALUE}).")
    public String channelName;

    @Option(names = "--control-timeout", defaultValue = "5",
            description = "Control message timeout in seconds (default ${DEFAULT-VALUE}).")
    public long controlTimeoutSeconds;

    @Option(names = "--listen-address", defaultValue = AppSupport.DEFAULT_LISTEN_ADDRESS, description = {"IP address"
            + " the RDMA connections' TCP listeners bind to (jdoca; default ${DEFAULT-VALUE}: targets on this host"
            + " only; give the storage network's address when the targets run elsewhere). The Comch channel is a Unix"
            + " socket private to this user."})
    public String listenAddress;

    @Option(names = "--allow-peer", paramLabel = "IP", description = {"An address a target's RDMA connection blob may"
            + " name besides the target's own (jdoca; repeatable). By default this service connects only to the"
            + " addresses"
            + " of the targets it was given; blobs naming host names are always refused."})
    public List<String> allowPeers;

    /** {@code --allow-peer} parsed. */
    public List<java.net.InetAddress> allowedPeers() {
        return AppSupport.parseAllowedPeers(allowPeers);
    }

    /** {@code --control-timeout} in nanoseconds. */
    public long controlTimeoutNanos() {
        return controlTimeoutSeconds * 1_000_000_000L;
    }

    /** {@code --listen-address} parsed ({@link AppSupport#parseListenAddress}). */
    public java.net.InetAddress rdmaBind() {
        return AppSupport.parseListenAddress("--listen-address", listenAddress);
    }
}
