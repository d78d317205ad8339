package io.jdoca.sta.nvmf.rdma;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.sta.config.StaProperties;
import io.jdoca.sta.nvmf.NvmfQpair;
import io.jdoca.sta.nvmf.NvmfTransport;
import io.jdoca.sta.nvmf.NvmfTransportType;
import io.jdoca.verbs.CompletionChannel;
import io.jdoca.verbs.Verbs;
import io.jdoca.verbs.VerbsContext;
import java.net.SocketAddress;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The NVMe/RDMA transport (NVMe RDMA Transport Specification 1.0; SPDK's {@code rdma.c} transport
 * ops): serves a reliable-connected queue pair ({@link Connection}) with an {@link NvmfRdmaQpair}.
 * {@link #open} is the first half of accepting an rdma_cm connect request (private data checked,
 * verbs queue pair created on the engine's completion channel); the STA IO context then attaches
 * the transport and accepts with {@link #receiveQueueSize}. Registered in {@code NvmfTransports}
 * through {@code META-INF/services}.
 *
 * <p>Stateless: any thread.
 */
public final class NvmfRdmaTransport implements NvmfTransportType {
    /** The instance queue pairs name as their type. */
    public static final NvmfRdmaTransport INSTANCE = new NvmfRdmaTransport();
    /** The discovery log's TRTYPE for RDMA (NVMe-oF 1.1 figure 38). */
    public static final int TRTYPE = 1;
    /** SEND with Invalidate when the host's descriptor asks for it (sub-type 0xF); off only to work around a device. */
    static final boolean INVALIDATE = StaProperties.RDMA_INVALIDATE.asBoolean();

    /**
     * A connected (or about to be accepted) RDMA queue pair to serve: {@code depth} commands the
     * host may have outstanding (HSQSIZE + 1 of its connect private data) and both addresses.
     */
    public record Connection(RdmaQueuePair rq, int depth, SocketAddress remote, SocketAddress local) {
        /** The accept failed after {@link #open}: frees the queue pair but leaves the id to the listener. */
        public void abandon() {
            if (rq instanceof VerbsQueuePair v) {
                v.keepId();
            }
            rq.destroy();
        }
    }

    /** For {@link java.util.ServiceLoader}; use {@link #INSTANCE}. */
    public NvmfRdmaTransport() {
    }

    @Override
    public String name() {
        return "RDMA";
    }

    @Override
    public int trtype() {
        return TRTYPE;
    }

    @Override
    public boolean accepts(Object connection) {
        return connection instanceof Connection;
    }

    @Override
    public NvmfTransport create(NvmfQpair qp, Object connection, Params p) {
        Connection c = (Connection) connection;
        NvmfRdmaQpair t = new NvmfRdmaQpair(qp, c.rq(), c.depth(), p.maxIo(), p.inCapsuleMax(), c.remote(), c.local(),
                INVALIDATE);
        try {
            t.start();
        } catch (RuntimeException e) {
            c.abandon(); // the queue pair goes first: its posted receives point into the buffers
            t.releaseBuffersOnly();
            throw e;
        }
        return t;
    }

    /**
     * Checks an rdma_cm connect request and creates its verbs queue pair (CQ on the engine's
     * completion channel for the request's device, RC QP sized for HSQSIZE + 1 commands): the
     * connection to hand to the IO context's accept. A bad request is rejected with the NVMe/RDMA
     * reject status and throws INVALID_VALUE; a request on a device the application did not add
     * ({@code deviceAllowed} false) is rejected and throws NOT_PERMITTED; a device failure rejects
     * and throws DRIVER. Control path (the listener's thread).
     *
     * @param channelFor the engine's completion channel for a device context (null: none, the engine polls)
     */
    public static Connection open(NvmeRdmaConnectRequest req, Function<VerbsContext, CompletionChannel> channelFor,
                                  Predicate<String> deviceAllowed, int maxQueueSize) {
        int sts = req.validate(maxQueueSize);
        if (sts != 0) {
            req.reject(sts);
            throw new DocaException(DocaError.INVALID_VALUE, "NVMe/RDMA connect request from " + req.remoteAddress()
                    + " rejected: " + NvmeRdmaCmReject.describe(sts));
        }
        VerbsContext ctx = req.id().context();
        String dev = ctx == null ? "no device" : Verbs.contextDeviceName(ctx.handle());
        if (ctx == null || !deviceAllowed.test(dev)) {
            req.reject(NvmeRdmaCmReject.STS_NO_RSC);
            throw new DocaException(DocaError.NOT_PERMITTED, "NVMe/RDMA connection from " + req.remoteAddress()
                    + " arrived on " + dev + ", which was not added to the STA context (Sta.addDev)");
        }
        int depth = req.privateData().recvQueueSize();
        try {
            VerbsQueuePair rq = new VerbsQueuePair(req.id(), channelFor.apply(ctx), 4 * depth + 4, depth + 2);
            return new Connection(rq, depth, req.remoteAddress(), req.localAddress());
        } catch (RuntimeException e) {
            req.reject(NvmeRdmaCmReject.STS_NO_RSC);
            throw new DocaException(DocaError.DRIVER, "cannot accept NVMe/RDMA connection from " + req.remoteAddress()
                    + ": " + e.getMessage(), e);
        }
    }

    /** The CRQSIZE to accept {@code t}'s connection with: the host's send queue size. */
    public static int receiveQueueSize(NvmfTransport t) {
        return ((NvmfRdmaQpair) t).receiveQueueSize();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NvmfRdmaTransport;
    }

    @Override
    public int hashCode() {
        return TRTYPE;
    }
}
