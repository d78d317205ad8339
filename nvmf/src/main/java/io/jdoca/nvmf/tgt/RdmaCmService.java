package io.jdoca.nvmf.tgt;

import io.jdoca.core.DocaException;
import io.jdoca.sta.StaQp;
import io.jdoca.sta.nvmf.NvmfQpairState;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaCmReject;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaConnectRequest;
import io.jdoca.verbs.CmEvent;
import io.jdoca.verbs.CmEventAgent;
import io.jdoca.verbs.CmId;
import io.jdoca.verbs.RdmaCm;
import io.jdoca.verbs.VerbsConstants;
import io.jdoca.verbs.VerbsException;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The target's rdma_cm connection management service (the seed: "the application is responsible
 * for implementing the RDMA connection management service"): the listeners' ids live on the process's
 * {@link CmEventAgent} (one event channel and one control-path thread, {@code jdoca-rdma-cm}, for every
 * rdma_cm user of the process). A CONNECT_REQUEST is handed to an IO context ({@code StaIo.qpAccept},
 * which validates the private data and accepts or rejects); ESTABLISHED and DISCONNECTED (and the
 * error events) go to the queue pair's engine ({@code qpEstablished}, {@code qpDisconnected}).
 * Events are acknowledged by the agent after {@link #handle}; an id whose request was refused is
 * destroyed after its ack ({@code rdma_destroy_id} waits for it).
 *
 * <p>Thread rules: {@link #listen} and {@link #unlisten} on {@code sta-main} (the listener table's
 * owner, {@link NvmfListeners}; the agent is thread-safe), {@link #close} on the control thread; events
 * on the agent's thread, which hands each request to an IO engine. No lock: the connection map is a
 * concurrent map of the service's own, not target state.
 */
final class RdmaCmService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaCmService.class);

    private final CmEventAgent agent;
    private final Function<NvmeRdmaConnectRequest, StaQp> accept;
    /** Connections by rdma_cm id address. */
    private final Map<Long, StaQp> connections = new ConcurrentHashMap<>();
    private volatile boolean open = true;

    /** Joins the process's rdma_cm agent; {@code accept} hands a request to an engine (or throws). */
    RdmaCmService(Function<NvmeRdmaConnectRequest, StaQp> accept) throws IOException {
        if (!RdmaCm.isAvailable()) {
            throw new IOException("NVMe/RDMA needs librdmacm: " + RdmaCm.unavailableReason());
        }
        this.accept = accept;
        try {
            this.agent = CmEventAgent.get();
        } catch (VerbsException e) {
            throw new IOException("rdma_create_event_channel: " + e.getMessage(), e);
        }
    }

    /**
     * Binds an rdma_cm id to {@code ip}:{@code port} (exactly there: never a wildcard unless the
     * operator wrote one) and listens; returns the id and the bound port.
     */
    long[] listen(InetAddress ip, int port) throws IOException {
        if (!(ip instanceof Inet4Address v4)) {
            throw new IOException("NVMe/RDMA listeners take an IPv4 address (" + ip.getHostAddress() + ")");
        }
        CmId id = null;
        try {
            id = agent.createId(this::handle);
            id.bind(v4, port);
            id.listen(128);
            int bound = id.localPort();
            return new long[] {id.address(), bound == 0 ? port : bound};
        } catch (VerbsException e) {
            if (id != null) {
                try {
                    agent.destroy(id);
                } catch (VerbsException ignored) {
                    // the error below is what the operator needs
                }
            }
            throw new IOException("cannot listen (NVMe/RDMA) on " + ip.getHostAddress() + ":" + port + ": "
                    + e.getMessage(), e);
        }
    }

    /** Stops listening on the id {@link #listen} returned (established connections stay). */
    void unlisten(long id) {
        try {
            agent.destroy(CmId.ofAddress(id));
        } catch (VerbsException e) {
            LOG.warn("rdma_destroy_id (listener): {}", e.getMessage());
        }
    }

    /** Handles one event (agent thread); a refused request's id is destroyed after the ack. */
    private void handle(CmEvent ev) {
        if (!open) {
            if (ev.type() == VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST) {
                CmId.fromRequest(ev).reject(null);
                ev.destroyIdAfterAck();
            }
            return;
        }
        int type = ev.type();
        long id = ev.id();
        switch (type) {
            case VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST -> {
                NvmeRdmaConnectRequest req = NvmeRdmaConnectRequest.fromEvent(ev);
                try {
                    StaQp qp = accept.apply(req);
                    connections.put(id, qp);
                    LOG.info("NVMe/RDMA connection from {} (qid {}, {} entries) accepted on {}", req.remoteAddress(),
                            req.privateData().qid(), req.privateData().recvQueueSize(), qp.io().name());
                } catch (DocaException e) {
                    LOG.warn("{}", e.getMessage());
                    req.reject(NvmeRdmaCmReject.STS_NO_RSC); // no-op when already answered
                    ev.destroyIdAfterAck();
                } finally {
                    req.release();
                }
                return;
            }
            case VerbsConstants.RDMA_CM_EVENT_ESTABLISHED -> {
                StaQp qp = connections.get(id);
                if (qp != null) {
                    qp.io().qpEstablished(qp);
                }
            }
            case VerbsConstants.RDMA_CM_EVENT_DISCONNECTED, VerbsConstants.RDMA_CM_EVENT_CONNECT_ERROR,
                 VerbsConstants.RDMA_CM_EVENT_UNREACHABLE, VerbsConstants.RDMA_CM_EVENT_REJECTED,
                 VerbsConstants.RDMA_CM_EVENT_DEVICE_REMOVAL -> {
                StaQp qp = connections.remove(id);
                // the engine destroys the id with its queue pair: later events of it (TIMEWAIT_EXIT) are dropped
                agent.unregister(id);
                if (qp != null) {
                    LOG.info("NVMe/RDMA {} of {} (qid {})", RdmaCm.eventName(type), qp.remoteAddress(), qp.qid());
                    qp.io().qpDisconnected(qp);
                }
            }
            case VerbsConstants.RDMA_CM_EVENT_TIMEWAIT_EXIT -> {
                connections.remove(id);
                agent.unregister(id);
            }
            default -> LOG.debug("rdma_cm event {}", RdmaCm.eventName(type));
        }
        // Connections the engines closed themselves (host gone, protocol error) leave the map here.
        connections.entrySet().removeIf(e -> {
            boolean closed = e.getValue().state() == NvmfQpairState.CLOSED;
            if (closed) {
                agent.unregister(e.getKey());
            }
            return closed;
        });
    }

    /**
     * Stops handling events (a late request is rejected); the listeners are {@link #unlisten}ed by their owners
     * and the process's agent stays for the process's other rdma_cm users.
     */
    @Override
    public void close() {
        open = false;
    }
}
