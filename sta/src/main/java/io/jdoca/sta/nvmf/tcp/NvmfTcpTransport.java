package io.jdoca.sta.nvmf.tcp;

import io.jdoca.sta.nvmf.NvmfQpair;
import io.jdoca.sta.nvmf.NvmfTransport;
import io.jdoca.sta.nvmf.NvmfTransportType;
import java.nio.channels.ByteChannel;

/**
 * The NVMe/TCP transport (NVMe/TCP Transport Specification 1.0; SPDK's {@code tcp.c} transport
 * ops): serves an accepted, connected {@link ByteChannel} (a socket, or an in-memory pipe in tests)
 * with an {@link NvmfTcpQpair}. Registered in {@code NvmfTransports} through
 * {@code META-INF/services}.
 *
 * <p>Stateless: any thread.
 */
public final class NvmfTcpTransport implements NvmfTransportType {
    /** The instance queue pairs name as their type. */
    public static final NvmfTcpTransport INSTANCE = new NvmfTcpTransport();
    /** The discovery log's TRTYPE for TCP (NVMe-oF 1.1 figure 38). */
    public static final int TRTYPE = 3;

    /** For {@link java.util.ServiceLoader}; use {@link #INSTANCE}. */
    public NvmfTcpTransport() {
    }

    @Override
    public String name() {
        return "TCP";
    }

    @Override
    public int trtype() {
        return TRTYPE;
    }

    @Override
    public boolean accepts(Object connection) {
        return connection instanceof ByteChannel;
    }

    @Override
    public NvmfTransport create(NvmfQpair qp, Object connection, Params p) {
        // A capsule always has room for 8 KiB of data: Linux sends Connect's 1 KiB in the capsule.
        int capsule = Math.max(p.inCapsuleMax(), 8192);
        return new NvmfTcpQpair(qp, (ByteChannel) connection, p.maxIo(), capsule, p.requests());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NvmfTcpTransport;
    }

    @Override
    public int hashCode() {
        return TRTYPE;
    }
}
