package io.jdoca.nvmf.tgt;

import static io.jdoca.verbs.VerbsConstants.POLLIN;
import static io.jdoca.verbs.VerbsConstants.RDMA_PS_TCP;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jdoca.core.DocaException;
import io.jdoca.sta.StaQp;
import io.jdoca.sta.nvmf.NvmfQpairState;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaCmReject;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaConnectRequest;
import io.jdoca.verbs.Libc;
import io.jdoca.verbs.RdmaCm;
import io.jdoca.verbs.VerbsConstants;
import io.jdoca.verbs.VerbsException;
import io.jdoca.verbs.VerbsLayouts;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The target's rdma_cm connection management service (the seed: "the application is responsible
 * for implementing the RDMA connection management service"): one event channel and one thread for
 * every NVMe/RDMA listener. A CONNECT_REQUEST is handed to an IO context ({@code StaIo.qpAccept},
 * which validates the private data and accepts or rejects); ESTABLISHED and DISCONNECTED (and the
 * error events) go to the queue pair's engine ({@code qpEstablished}, {@code qpDisconnected}).
 * Events are acknowledged at once; an id whose request was refused is destroyed after its ack
 * ({@code rdma_destroy_id} waits for it).
 *
 * <p>Thread rules: {@link #listen} and {@link #unlisten} on {@code sta-main} (the listener table's
 * owner, {@link NvmfListeners}), {@link #close} on the control thread once {@code sta-main} has
 * ended; events on the service's own thread, which hands each request to an IO engine. No lock:
 * the event channel and the connection map are the service's own, not target state.
 */
final class RdmaCmService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaCmService.class);

    private final Arena arena = Arena.ofShared();
    private final MemorySegment channel;
    private final MemorySegment pollFd;
    private final MemorySegment eventCell;
    private final Function<NvmeRdmaConnectRequest, StaQp> accept;
    /** Connections by rdma_cm id address. */
    private final Map<Long, StaQp> connections = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean open = true;

    /**
     * Opens the event channel and starts the service thread; {@code accept} hands a request to an
     * engine (or throws).
     */
    RdmaCmService(Function<NvmeRdmaConnectRequest, StaQp> accept) throws IOException {
        if (!RdmaCm.isAvailable()) {
            throw new IOException("NVMe/RDMA needs librdmacm: " + RdmaCm.unavailableReason());
        }
        this.accept = accept;
        try {
            this.channel = RdmaCm.createEventChannel();
        } catch (VerbsException e) {
            throw new IOException("rdma_create_event_channel: " + e.getMessage(), e);
        }
        this.pollFd = arena.allocate(VerbsLayouts.POLLFD);
        pollFd.set(JAVA_INT, 0, RdmaCm.eventChannelFd(channel));
        pollFd.set(JAVA_SHORT, 4, (short) POLLIN);
        this.eventCell = arena.allocate(ADDRESS);
        this.thread = new Thread(this::run, "sta-rdma-cm");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Binds an rdma_cm id to {@code ip}:{@code port} (exactly there: never a wildcard unless the
     * operator wrote one) and listens; returns the id and the bound port.
     */
    // Reads the bound port out of rdma_cm's struct rdma_cm_id (layout checked by VerbsLayoutTest).
    @SuppressWarnings("restricted")
    long[] listen(InetAddress ip, int port) throws IOException {
        if (!(ip instanceof Inet4Address v4)) {
            throw new IOException("NVMe/RDMA listeners take an IPv4 address (" + ip.getHostAddress() + ")");
        }
        MemorySegment id = MemorySegment.NULL;
        try {
            id = RdmaCm.createId(channel, RDMA_PS_TCP);
            MemorySegment sa = RdmaCm.sockaddrIn(arena.allocate(VerbsLayouts.SOCKADDR_IN), v4, port);
            RdmaCm.bindAddr(id, sa);
            RdmaCm.listen(id, 128);
            MemorySegment cmId = id.reinterpret(VerbsLayouts.RDMA_CM_ID.byteSize());
            int bound = cmId.get(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN),
                    VerbsLayouts.CM_ID_SRC_SIN + VerbsLayouts.offset(VerbsLayouts.SOCKADDR_IN, "sin_port")) & 0xffff;
            return new long[] {id.address(), bound == 0 ? port : bound};
        } catch (VerbsException e) {
            if (!id.equals(MemorySegment.NULL)) {
                try {
                    RdmaCm.destroyId(id);
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
            RdmaCm.destroyId(MemorySegment.ofAddress(id));
        } catch (VerbsException e) {
            LOG.warn("rdma_destroy_id (listener): {}", e.getMessage());
        }
    }

    private void run() {
        while (open) {
            pollFd.set(JAVA_SHORT, 6, (short) 0);
            int n = Libc.poll(pollFd, 1, 200);
            if (n <= 0 || (pollFd.get(JAVA_SHORT, 6) & POLLIN) == 0) {
                continue;
            }
            MemorySegment ev;
            try {
                ev = RdmaCm.getCmEvent(channel, eventCell);
            } catch (VerbsException e) {
                LOG.warn("rdma_get_cm_event: {}", e.getMessage());
                continue;
            }
            MemorySegment destroyAfterAck = MemorySegment.NULL;
            try {
                destroyAfterAck = handle(ev);
            } catch (RuntimeException e) {
                LOG.error("rdma_cm event failed", e);
            } finally {
                try {
                    RdmaCm.ackCmEvent(ev);
                } catch (VerbsException e) {
                    LOG.warn("rdma_ack_cm_event: {}", e.getMessage());
                }
            }
            if (!destroyAfterAck.equals(MemorySegment.NULL)) {
                try {
                    RdmaCm.destroyId(destroyAfterAck);
                } catch (VerbsException e) {
                    LOG.warn("rdma_destroy_id: {}", e.getMessage());
                }
            }
        }
    }

    /** Handles one event; returns an id to destroy once the event is acknowledged, or NULL. */
    private MemorySegment handle(MemorySegment ev) {
        int type = ev.get(JAVA_INT, VerbsLayouts.CM_EVENT_EVENT);
        MemorySegment id = ev.get(ADDRESS, VerbsLayouts.CM_EVENT_ID);
        switch (type) {
            case VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST -> {
                NvmeRdmaConnectRequest req = NvmeRdmaConnectRequest.fromEvent(ev);
                try {
                    StaQp qp = accept.apply(req);
                    connections.put(id.address(), qp);
                    LOG.info("NVMe/RDMA connection from {} (qid {}, {} entries) accepted on {}", req.remoteAddress(),
                            req.privateData().qid(), req.privateData().recvQueueSize(), qp.io().name());
                    return MemorySegment.NULL;
                } catch (DocaException e) {
                    LOG.warn("{}", e.getMessage());
                    req.reject(NvmeRdmaCmReject.STS_NO_RSC); // no-op when already answered
                    return id;
                } finally {
                    req.release();
                }
            }
            case VerbsConstants.RDMA_CM_EVENT_ESTABLISHED -> {
                StaQp qp = connections.get(id.address());
                if (qp != null) {
                    qp.io().qpEstablished(qp);
                }
            }
            case VerbsConstants.RDMA_CM_EVENT_DISCONNECTED, VerbsConstants.RDMA_CM_EVENT_CONNECT_ERROR,
                 VerbsConstants.RDMA_CM_EVENT_UNREACHABLE, VerbsConstants.RDMA_CM_EVENT_REJECTED,
                 VerbsConstants.RDMA_CM_EVENT_DEVICE_REMOVAL -> {
                StaQp qp = connections.remove(id.address());
                if (qp != null) {
                    LOG.info("NVMe/RDMA {} of {} (qid {})", RdmaCm.eventName(type), qp.remoteAddress(), qp.qid());
                    qp.io().qpDisconnected(qp);
                }
            }
            case VerbsConstants.RDMA_CM_EVENT_TIMEWAIT_EXIT -> connections.remove(id.address());
            default -> LOG.debug("rdma_cm event {}", RdmaCm.eventName(type));
        }
        // Connections the engines closed themselves (host gone, protocol error) leave the map here.
        connections.values().removeIf(q -> q.state() == NvmfQpairState.CLOSED);
        return MemorySegment.NULL;
    }

    /** Stops the thread and frees the channel; call after every connection's id is gone (engines stopped). */
    @Override
    public void close() {
        open = false;
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            RdmaCm.destroyEventChannel(channel);
        } catch (VerbsException e) {
            LOG.warn("rdma_destroy_event_channel: {}", e.getMessage());
        }
        arena.close();
    }
}
