package io.jdoca.sta;

import io.jdoca.core.DocaError;
import java.lang.foreign.Arena;
import java.net.SocketAddress;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectableChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An STA queue pair ({@code doca_sta_qp}): one NVMe-oF connection, owned by the {@link StaIo}
 * that accepted it. It holds the queue's identity and NVMe state (queue id and size, SQ head,
 * the bound subsystem) and joins its two halves: the transport ({@link NvmfTransport}, today
 * {@link NvmeTcpConnection}) and the command layer ({@link NvmfCommandExecutor}), which executes
 * offloaded I/O between the wire and the back-ends and passes the rest to the application's
 * non-offload callback.
 *
 * <p><b>Threads.</b> Every method is for the owning IO context's thread, except the getters of
 * immutable identity ({@link #id()}, {@link #remoteAddress()}, {@link #localAddress()}) and
 * {@link #state()}.
 */
public final class StaQp {
    private static final AtomicInteger IDS = new AtomicInteger();

    private final int id = IDS.incrementAndGet();
    private final StaIo io;
    private final ByteChannel ch;
    private final Arena arena = Arena.ofShared();
    private final NvmfTransport transport;
    private final String trtype;
    private final NvmfCommandExecutor exec;

    volatile StaQpState state = StaQpState.CONNECTING;
    private int qid = -1;
    private boolean sqFlowDisabled;
    private int sqsize = 32;
    /** SQ head pointer reported in every completion. */
    int sqhd;
    private StaSubsystem subsystem;
    private Object userObject;
    private long userData;
    boolean appInitiatedClose;
    /** FES of the fatal error that is terminating the connection. */
    int lastFes;

    StaQp(StaIo io, ByteChannel ch, int maxIo, int inCapsuleMax, int requests) {
        this.io = io;
        this.ch = ch;
        int capsule = Math.max(inCapsuleMax, 8192);
        NvmeTcpConnection tcp = new NvmeTcpConnection(this, io, ch, maxIo, capsule);
        this.transport = tcp;
        this.trtype = TRTYPE_TCP;
        this.exec = new NvmfCommandExecutor(this, io, tcp, arena, maxIo, capsule, requests);
        tcp.attach(exec);
    }

    /**
     * An NVMe/RDMA queue pair over {@code rq} (an accepted rdma_cm connection): {@code depth}
     * commands outstanding (HSQSIZE + 1 from the connect private data).
     */
    StaQp(StaIo io, io.jdoca.sta.rdma.RdmaQueuePair rq, int depth, int maxIo, int inCapsuleMax, int requests,
          SocketAddress remote, SocketAddress local, boolean invalidate) {
        this.io = io;
        this.ch = null;
        this.sqsize = depth;
        NvmeRdmaConnection rdma = new NvmeRdmaConnection(this, io, rq, depth, maxIo, inCapsuleMax, remote, local, invalidate);
        this.transport = rdma;
        this.trtype = TRTYPE_RDMA;
        this.exec = new NvmfCommandExecutor(this, io, rdma, arena, maxIo, inCapsuleMax, requests);
        rdma.attach(exec);
    }

    /** Transport type names (NVMe-oF TRTYPE, as SPDK spells them). */
    public static final String TRTYPE_TCP = "TCP";
    public static final String TRTYPE_RDMA = "RDMA";

    /** The transport this queue pair runs on: {@link #TRTYPE_TCP} or {@link #TRTYPE_RDMA} (any thread). */
    public String transportType() {
        return trtype;
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
    public StaQpState state() {
        return state;
    }

    /** The peer's address, or null (in-memory channels). */
    public SocketAddress remoteAddress() {
        return transport.remoteAddress();
    }

    /** The local (listener-side) address the host connected to, or null (in-memory channels). */
    public SocketAddress localAddress() {
        return transport.localAddress();
    }

    /** NVMe queue id from the Fabrics Connect (-1 before Connect). */
    public int qid() {
        return qid;
    }

    /** Submission queue size in entries (1-based), set with {@link StaIo#qpConnectSetSqSize}. */
    public int sqSize() {
        return sqsize;
    }

    /** The subsystem bound by {@link StaIo#qpAddSubsystem}, or null. */
    public StaSubsystem subsystem() {
        return subsystem;
    }

    /** True when the host disabled SQ flow control at Connect (CATTR bit 2): successful reads end with C2HData SUCCESS. */
    public boolean sqFlowControlDisabled() {
        return sqFlowDisabled;
    }

    /** True when the host asked for header digests (NVMe/TCP). */
    public boolean headerDigest() {
        return transport.headerDigest();
    }

    /** True when the host asked for data digests (NVMe/TCP). */
    public boolean dataDigest() {
        return transport.dataDigest();
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
        return "StaQp[" + id + ", qid=" + qid + ", " + state + ", " + transport.remoteAddress() + "]";
    }

    // ------------------------------------------------------------------ queue state

    void bind(StaSubsystem s) {
        this.subsystem = s;
    }

    void setSqSize(int n) {
        this.sqsize = n;
    }

    /** The Connect command named the queue (the application still decides whether to accept). */
    void onConnect(int queueId, int entries, boolean flowControlDisabled) {
        this.qid = queueId;
        this.sqsize = entries;
        this.sqFlowDisabled = flowControlDisabled;
    }

    void advanceSqHead() {
        sqhd = sqhd + 1 >= sqsize ? 0 : sqhd + 1;
    }

    boolean transition(StaQpState next) {
        if (!state.canTransitionTo(next)) {
            return false;
        }
        state = next;
        return true;
    }

    /** A fatal transport error: the transport sends its notice, then the engine closes the QP. */
    void terminate(int fes) {
        lastFes = fes;
        transition(StaQpState.TERMINATING);
    }

    // ------------------------------------------------------------------ engine

    NvmfTransport transport() {
        return transport;
    }

    /** The NVMe/RDMA transport, or null for TCP. */
    NvmeRdmaConnection rdma() {
        return transport instanceof NvmeRdmaConnection r ? r : null;
    }

    NvmfCommandExecutor executor() {
        return exec;
    }

    /** One duty cycle for this QP: send, receive, execute. Returns the work done. */
    int poll() {
        int n = exec.backendIo().drainDeferred();
        return n + transport.poll();
    }

    boolean startDisconnect() {
        return transition(StaQpState.DISCONNECTING);
    }

    /** Closes the connection (IO thread); outstanding requests end through {@link #abortRequests}. */
    void close() {
        if (state == StaQpState.CLOSED) {
            return;
        }
        state = StaQpState.CLOSED;
        transport.close();
    }

    void abortRequests(DocaError why) {
        exec.abortAll(why);
    }

    void releaseMemory() {
        transport.releaseMemory();
        arena.close();
    }

    SelectableChannel selectable() {
        return transport.selectable();
    }

    ByteChannel channel() {
        return ch;
    }

    /** True once nothing is left to send and no request is outstanding. */
    boolean drained() {
        return !transport.sendPending() && exec.pool().outstanding() == 0;
    }
}
