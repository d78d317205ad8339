package io.jdoca.storage.common;

import io.jdoca.comch.Comch;
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

    @Option(names = "--listen-address", description = {"IP address the RDMA connections' TCP listeners bind to (jdoca;"
            + " default: all interfaces, the library's default). The Comch channel is a Unix socket private to this user."})
    public String listenAddress;

    /** {@code --control-timeout} in nanoseconds. */
    public long controlTimeoutNanos() {
        return controlTimeoutSeconds * 1_000_000_000L;
    }

    /** {@code --listen-address} parsed ({@link AppSupport#parseListenAddress}); null: every address. */
    public java.net.InetAddress rdmaBind() {
        return AppSupport.parseListenAddress("--listen-address", listenAddress);
    }
}
