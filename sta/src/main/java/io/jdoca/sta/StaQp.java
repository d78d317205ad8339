package io.jdoca.sta;

import io.jdoca.core.DocaError;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvmf.NvmfCommandExecutor;
import io.jdoca.sta.nvmf.NvmfListenerAna;
import io.jdoca.sta.nvmf.NvmfQpair;
import io.jdoca.sta.nvmf.NvmfQpairEvents;
import io.jdoca.sta.nvmf.NvmfQpairState;
import io.jdoca.sta.nvmf.NvmfTransport;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.nio.channels.SelectableChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An STA queue pair ({@code doca_sta_qp}): one NVMe-oF connection, owned by the {@link StaIo} that
 * allocated it ({@link StaIo#qpAlloc}). It is the application's handle on the command layer's
 * {@link NvmfQpair} (queue id and size, SQ head, bound namespaces, life cycle) and its transport,
 * attached by {@link StaIo#qpAccept}; the engine executes offloaded I/O between the wire and the
 * back-ends and passes the rest to the application's non-offload callback.
 *
 * <p><b>Threads.</b> Every method is for the owning IO context's thread, except the getters of
 * immutable identity ({@link #id()}, {@link #remoteAddress()}, {@link #localAddress()},
 * {@link #transportType()}) and {@link #state()}.
 */
public final class StaQp implements NvmfQpairEvents {
    private static final AtomicInteger IDS = new AtomicInteger();

    /** Transport type names (NVMe-oF TRTYPE, as SPDK spells them). */
    public static final String TRTYPE_TCP = "TCP";
    public static final String TRTYPE_RDMA = "RDMA";

    private final int id = IDS.incrementAndGet();
    private final StaIo io;
    private final NvmfQpair qpair;
    private StaSubsystem subsystem;
    private Object userObject;
    private long userData;
    /** Closed by the application (disconnect task, destroy, engine stop): no transport-error event. */
    boolean appInitiatedClose;
    /** Counted in the main context's live QPs (from accept until teardown or destroy). */
    boolean counted;
    /** The engine's selector reported this QP's socket readable since its last {@link #pollAfterSelect}. */
    boolean readable;
    /** {@link StaIo#qpDestroy} was called: the QP group closes it once drained or at {@link #destroyDeadline}. */
    volatile boolean destroying;
    long destroyDeadline;

    StaQp(StaIo io) {
        this.io = io;
        this.qpair = new NvmfQpair(io.pollGroup(), this);
    }

    // ------------------------------------------------------------------ public API

    /** A process-unique id ({@code doca_sta_io_qp_get_id}). */
    public int id() {
        return id;
    }

    /** The IO context that owns this QP. */
    public StaIo io() {
        return io;
    }

    /** The connection's life-cycle state (any thread). */
    public NvmfQpairState state() {
        return qpair.state();
    }

    /** The transport this queue pair runs on ({@link #TRTYPE_TCP}, {@link #TRTYPE_RDMA}...), null before accept. */
    public String transportType() {
        NvmfTransport t = qpair.transport();
        return t == null ? null : t.type().name();
    }

    /** The peer's address, or null (before accept, in-memory channels). */
    public SocketAddress remoteAddress() {
        NvmfTransport t = qpair.transport();
        return t == null ? null : t.remoteAddress();
    }

    /** The local (listener-side) address the host connected to, or null. */
    public SocketAddress localAddress() {
        NvmfTransport t = qpair.transport();
        return t == null ? null : t.localAddress();
    }

    /** NVMe queue id from the Fabrics Connect (-1 before Connect). */
    public int qid() {
        return qpair.qid();
    }

    /** Submission queue size in entries (1-based), set with {@link StaIo#qpConnectSetSqSize}. */
    public int sqSize() {
        return qpair.sqSize();
    }

    /** The subsystem bound by {@link StaIo#qpAddSubsystem}, or null. */
    public StaSubsystem subsystem() {
        return subsystem;
    }

    /**
     * True when the host disabled SQ flow control at Connect (CATTR bit 2): successful reads end with C2HData SUCCESS.
     */
    public boolean sqFlowControlDisabled() {
        return qpair.sqFlowControlDisabled();
    }

    /** The TLS PSK identity of the connection (host and subsystem NQNs; NVMe/TCP over TLS), or null. */
    public io.jdoca.sta.nvmf.tls.NvmeTlsIdentity tlsIdentity() {
        NvmfTransport t = qpair.transport();
        return t == null ? null : t.tlsIdentity();
    }

    /** True when the host asked for header digests (NVMe/TCP). */
    public boolean headerDigest() {
        NvmfTransport t = qpair.transport();
        return t != null && t.headerDigest();
    }

    /** True when the host asked for data digests (NVMe/TCP). */
    public boolean dataDigest() {
        NvmfTransport t = qpair.transport();
        return t != null && t.dataDigest();
    }

    public Object userObject() {
        return userObject;
    }

    public void setUserObject(Object o) {
        this.userObject = o;
    }

    public long userData() {
        return userData;
    }

    public void setUserData(long ud) {
        this.userData = ud;
    }

    @Override
    public String toString() {
        return "StaQp[" + id + ", qid=" + qpair.qid() + ", " + qpair.state() + ", " + remoteAddress() + "]";
    }

    // ------------------------------------------------------------------ events from the command layer

    @Override
    public boolean onApplicationCommand(NvmeCommand cmd, MemorySegment payload, int len, boolean valid) {
        return io.deliverNonOffload(this, cmd, payload, len, valid);
    }

    @Override
    public void onTransportError(String operation, DocaError why, int detail) {
        io.teardown(this, operation, why, detail);
    }

    /**
     * jdoca extension (no DOCA counterpart: DOCA's STA leaves ANA and reservations to the
     * application): the path this I/O queue came in on and its host, checked by the engine before
     * each I/O. {@code ana} null: the subsystem reports no ANA. The QP's IO thread, once the
     * I/O-queue Connect was accepted.
     */
    public void setPath(NvmfListenerAna ana, long hostIdHi, long hostIdLo) {
        qpair.setPath(ana, hostIdHi, hostIdLo);
    }

    // ------------------------------------------------------------------ engine

    NvmfQpair qpair() {
        return qpair;
    }

    NvmfTransport transport() {
        return qpair.transport();
    }

    NvmfCommandExecutor executor() {
        return qpair.executor();
    }

    void bind(StaSubsystem s) {
        this.subsystem = s;
        qpair.bind(s);
    }

    /** One duty cycle for this QP: send, receive, execute. Returns the work done. */
    int poll() {
        return qpair.poll();
    }

    /**
     * One duty cycle right after the engine's selector returned: the socket is read only if the selector reported it
     * readable ({@link #readable}, then cleared), which saves a read that would find nothing on every wake-up that a
     * back-end completion or another QP caused. Engine thread.
     */
    int pollAfterSelect() {
        boolean r = readable;
        readable = false;
        return qpair.pollAfterSelect(r);
    }

    boolean startDisconnect() {
        return qpair.transition(NvmfQpairState.DISCONNECTING) == DocaError.SUCCESS;
    }

    /** Closes the connection (IO thread); outstanding requests end through {@link #abortRequests}. */
    void close() {
        if (qpair.closed()) {
            return;
        }
        qpair.transition(NvmfQpairState.CLOSED);
        NvmfTransport t = qpair.transport();
        if (t != null) {
            t.close();
        }
    }

    void abortRequests(DocaError why) {
        NvmfCommandExecutor e = qpair.executor();
        if (e != null) {
            e.abortAll(why);
        }
    }

    void releaseMemory() {
        NvmfTransport t = qpair.transport();
        if (t != null) {
            t.releaseMemory();
            qpair.executor().releaseMemory();
        }
    }

    SelectableChannel selectable() {
        NvmfTransport t = qpair.transport();
        return t == null ? null : t.selectable();
    }

    /** True once nothing is left to send and no request is outstanding. */
    boolean drained() {
        return qpair.transport() == null || qpair.drained();
    }
}
