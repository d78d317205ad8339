package io.jdoca.sta;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.exec.CtxState;
import io.jdoca.sta.nvmf.NvmfQpairState;
import io.jdoca.sta.nvmf.NvmfTransport;
import io.jdoca.sta.nvmf.NvmfTransportType;
import io.jdoca.sta.nvmf.NvmfTransports;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaCmReject;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaConnectRequest;
import io.jdoca.sta.nvmf.rdma.NvmfRdmaTransport;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SocketChannel;

/**
 * How a connection becomes a queue pair of an IO context ({@link StaIo#qpAccept}): the checks of
 * the seed's rules (a running context, a fresh handle of this context, the QP limit), the
 * transport picked from the registry by the kind of connection, its buffers made, and the RDMA
 * connect request's extra steps (private data, device, accept with CRQSIZE).
 *
 * <p>Control path; any thread (a listener's): nothing here touches the engine's state, which gets
 * the QP through its hand-over queue afterwards.
 */
final class StaQpAccept {
    private StaQpAccept() {
    }

    /** A TCP socket as the engine needs it: non-blocking, no Nagle. */
    static void configure(ByteChannel channel) {
        try {
            if (channel instanceof SelectableChannel sc) {
                sc.configureBlocking(false);
            }
            if (channel instanceof SocketChannel s) {
                s.setOption(StandardSocketOptions.TCP_NODELAY, true);
            }
        } catch (IOException e) {
            throw new DocaException(DocaError.OPERATING_SYSTEM, "cannot configure connection: " + e.getMessage(), e);
        }
    }

    /** The transport serving {@code connection} attached to {@code qp}, counted as a live QP; throws (see StaIo). */
    static StaQp attach(StaIo io, StaQp qp, Object connection) {
        if (io.state() != CtxState.RUNNING) {
            throw new DocaException(DocaError.BAD_STATE, "IO context not running");
        }
        if (qp == null || qp.io() != io) {
            throw new DocaException(DocaError.INVALID_VALUE, "the QP was allocated on another IO context");
        }
        if (qp.state() != NvmfQpairState.ALLOCATED) {
            throw new DocaException(DocaError.BAD_STATE, "the QP already has a connection (" + qp.state() + ")");
        }
        NvmfTransportType type = NvmfTransports.forConnection(connection);
        if (type == null) {
            throw new DocaException(DocaError.NOT_SUPPORTED, "no registered transport serves a "
                    + (connection == null ? "null connection" : connection.getClass().getSimpleName())
                    + " (transports: " + NvmfTransports.names() + ")");
        }
        Sta sta = io.sta();
        if (sta.liveQps.incrementAndGet() > Sta.MAX_QPS) {
            sta.liveQps.decrementAndGet();
            throw new DocaException(DocaError.FULL, "max QPs (" + Sta.MAX_QPS + ") reached");
        }
        qp.counted = true;
        NvmfTransport t;
        try {
            t = type.create(qp.qpair(), connection, new NvmfTransportType.Params(sta.getMaxIoSize(),
                    sta.inCapsuleDataSize(), io.maxQueueSize()));
        } catch (RuntimeException e) {
            qp.counted = false;
            sta.liveQps.decrementAndGet();
            throw e;
        }
        qp.qpair().attach(t, sta.getMaxIoSize());
        return qp;
    }

    /** {@link StaIo#qpAccept(StaQp, NvmeRdmaConnectRequest)}: rejects the request whenever it throws. */
    static StaQp acceptRdma(StaIo io, StaQp qp, NvmeRdmaConnectRequest req) {
        if (io.state() != CtxState.RUNNING || qp == null || qp.io() != io || qp.state() != NvmfQpairState.ALLOCATED) {
            req.reject(NvmeRdmaCmReject.STS_NO_RSC);
            throw new DocaException(DocaError.BAD_STATE, "IO context not running, or the QP is not a fresh one of it");
        }
        NvmfRdmaTransport.Connection c = NvmfRdmaTransport.open(req, io.waiter()::rdmaChannelFor,
                io.sta()::hasRdmaDev, io.maxQueueSize());
        try {
            io.qpAccept(qp, c);
        } catch (RuntimeException e) {
            c.abandon();
            req.reject(NvmeRdmaCmReject.STS_NO_RSC);
            throw e;
        }
        req.accept(NvmfRdmaTransport.receiveQueueSize(qp.transport()));
        return qp;
    }
}
