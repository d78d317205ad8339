package io.jdoca.rdma;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.DevInfo;
import io.jdoca.core.exec.Task;
import io.jdoca.core.mem.SharedMemory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.UUID;

/**
 * The RDMA context ({@code doca_rdma}): reliable connections to peers over which tasks send and
 * receive messages and read, write and atomically update the peers' exported memory.
 *
 * <p><b>Set-up</b>, exactly as DOCA: create on a device, set permissions and task configurations,
 * connect to a progress engine, {@code start()} (returns IN_PROGRESS: STARTING), then
 * {@link #export()} gives a blob and a connection; hand the blob to the peer out of band; the peer's
 * blob goes to {@link #connect}; progress until RUNNING. Several connections per context (call
 * export/connect again, also while RUNNING). The CM-style alternative,
 * {@link #startListenToPort}/{@link #connectToAddr}, exchanges the blobs itself.
 *
 * <p><b>Transports</b> ({@link RdmaTransportType}): shared memory on one host (one-sided operations
 * done directly on the peer's shared-memory maps by the submitting side), or TCP (the peer's
 * transport thread services them against its exported maps, no application involvement).
 *
 * <p><b>Permissions</b> are enforced on both sides: the remote buffer must come from a map exported
 * by this connection's peer (NOT_PERMITTED otherwise), the exporter's map and the peer context must
 * grant the operation (RDMA_READ / RDMA_WRITE / RDMA_ATOMIC; NOT_PERMITTED), and the range must lie
 * in the map (INVALID_VALUE), all checked before memory is touched. Such failures complete the task
 * through its error callback and are not fatal. Fatal errors (peer gone: CONNECTION_RESET; no
 * receive posted within {@link #setRnrRetryTimeoutMillis the retry time}: TIME_OUT) stop the context.
 *
 * <p><b>Threads</b>: engine thread only (configure, start, export, connect, submit, progress).
 * Data path calls are allocation-free and return {@link DocaError} codes.
 */
public final class Rdma extends RdmaTaskTypes {
    private static final System.Logger LOG = System.getLogger(Rdma.class.getName());
    /** DOCA: 2 GiB or the device's max message size, whichever is lower. */
    public static final long MAX_MESSAGE_SIZE = 1L << 31;
    public static final int MAX_SEND_BUF_LIST_LEN = 32;
    public static final int MAX_QUEUE_SIZE = 1 << 14;
    static final UUID HOST = hostUuid();

    private final Dev dev;

    int permissions = AccessFlags.LOCAL_READ_WRITE;
    int maxSendBufListLen = 1;
    int recvDstBufListLen = 1;
    int sendQueueSize = 256;
    /** Who runs this context's tcp transport agent; the process default unless a test chooses (control path). */
    TcpTransportAgent.Threading tcpThreading = TcpTransportAgent.THREADING;
    int recvQueueSize = 256;
    /** {@link #setGidIndex}; -1: the device's default. */
    int gidIndex = -1;
    private long rnrTimeoutNanos = 1_000_000_000L;
    final long connectTimeoutNanos = 10_000_000_000L;
    RdmaTransportType transport = defaultTransport();
    InetAddress bindAddress;
    String advertisedHost;

    // ---- running state (engine thread)
    /** Connection management: the table, the out-of-band blob exchange, dial / accept, the set-up work. */
    private final RdmaConnections conns = new RdmaConnections(this);
    /** The CM-style mode: listen / connect-to-address, accept / reject / disconnect, the CM callbacks. */
    private final RdmaCmConnections cm = conns.cm;
    /** Task execution: checks, submission to the endpoints, the duty cycle. */
    private final RdmaTaskExecutor exec = new RdmaTaskExecutor(this, conns);
    boolean stopping;
    /** First fatal status of this run (reported to flushed tasks). */
    DocaError fatal;
    /** The verbs transport of this run (VERBS only): CQ, SRQ, QPs. */
    VerbsTransport verbs;

    private Rdma(Dev dev) {
        this.dev = dev;
    }

    /** {@code doca_rdma_create}. */
    public static Rdma create(Dev dev) {
        if (dev == null) {
            throw new IllegalArgumentException("an RDMA context needs a device");
        }
        return new Rdma(dev);
    }

    public Dev dev() {
        return dev;
    }

    // ------------------------------------------------------------------ capabilities (doca_rdma_cap_*)

    public static boolean capTaskReceiveIsSupported(DevInfo d) {
        return d != null;
    }

    public static boolean capTaskSendIsSupported(DevInfo d) {
        return d != null;
    }

    public static boolean capTaskSendImmIsSupported(DevInfo d) {
        return d != null;
    }

    public static boolean capTaskReadIsSupported(DevInfo d) {
        return d != null;
    }

    public static boolean capTaskWriteIsSupported(DevInfo d) {
        return d != null;
    }

    public static boolean capTaskWriteImmIsSupported(DevInfo d) {
        return d != null;
    }

    public static boolean capTaskAtomicCmpSwpIsSupported(DevInfo d) {
        return d != null;
    }

    public static boolean capTaskAtomicFetchAddIsSupported(DevInfo d) {
        return d != null;
    }

    public static boolean capTaskRemoteNetSyncEventGetIsSupported(DevInfo d) {
        return d != null;
    }

    public static boolean capTaskRemoteNetSyncEventNotifySetIsSupported(DevInfo d) {
        return d != null;
    }

    public static boolean capTaskRemoteNetSyncEventNotifyAddIsSupported(DevInfo d) {
        return d != null;
    }

    /** {@code doca_rdma_cap_get_max_message_size}. */
    public static long capMaxMessageSize(DevInfo d) {
        return MAX_MESSAGE_SIZE;
    }

    /** {@code doca_rdma_cap_get_max_send_buf_list_len}. */
    public static int capMaxSendBufListLen(DevInfo d) {
        return MAX_SEND_BUF_LIST_LEN;
    }

    /** {@code doca_rdma_cap_task_receive_get_max_dst_buf_list_len}. */
    public static int capTaskReceiveMaxDstBufListLen(DevInfo d) {
        return MAX_SEND_BUF_LIST_LEN;
    }

    /** {@code doca_rdma_cap_get_max_send_queue_size}. */
    public static int capMaxSendQueueSize(DevInfo d) {
        return MAX_QUEUE_SIZE;
    }

    /** {@code doca_rdma_cap_get_max_recv_queue_size}. */
    public static int capMaxRecvQueueSize(DevInfo d) {
        return MAX_QUEUE_SIZE;
    }

    /** Transports a device offers: shm and tcp on every device, verbs on an RDMA (rdma-core) device. */
    public static boolean capTransportTypeIsSupported(DevInfo d, RdmaTransportType t) {
        return d != null && t != null && (t != RdmaTransportType.VERBS || d.isVerbs());
    }

    // ------------------------------------------------------------------ configuration (IDLE only)

    /** {@code doca_rdma_set_permissions}: what peers may do to this side's exported memory. */
    public DocaError setPermissions(int accessFlags) {
        if (state() != io.jdoca.core.exec.CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if ((accessFlags & ~(AccessFlags.LOCAL_READ_WRITE | AccessFlags.ANY_RDMA)) != 0) {
            return DocaError.INVALID_VALUE;
        }
        this.permissions = accessFlags;
        return DocaError.SUCCESS;
    }

    public int permissions() {
        return permissions;
    }

    /** {@code doca_rdma_set_max_send_buf_list_len}: longest local list of send, write and read tasks (default 1). */
    public DocaError setMaxSendBufListLen(int n) {
        if (state() != io.jdoca.core.exec.CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (n < 1 || n > MAX_SEND_BUF_LIST_LEN) {
            return DocaError.INVALID_VALUE;
        }
        this.maxSendBufListLen = n;
        return DocaError.SUCCESS;
    }

    public int maxSendBufListLen() {
        return maxSendBufListLen;
    }

    /** {@code doca_rdma_task_receive_set_dst_buf_list_len} (default 1). */
    public DocaError taskReceiveSetDstBufListLen(int n) {
        if (state() != io.jdoca.core.exec.CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (n < 1 || n > MAX_SEND_BUF_LIST_LEN) {
            return DocaError.INVALID_VALUE;
        }
        this.recvDstBufListLen = n;
        return DocaError.SUCCESS;
    }

    /** {@code doca_rdma_set_send_queue_size}: tasks in flight per connection (default 256). */
    public DocaError setSendQueueSize(int n) {
        if (state() != io.jdoca.core.exec.CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (n < 1 || n > MAX_QUEUE_SIZE) {
            return DocaError.INVALID_VALUE;
        }
        this.sendQueueSize = n;
        return DocaError.SUCCESS;
    }

    /** {@code doca_rdma_set_recv_queue_size}: receive tasks posted at once (default 256). */
    public DocaError setRecvQueueSize(int n) {
        if (state() != io.jdoca.core.exec.CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (n < 1 || n > MAX_QUEUE_SIZE) {
            return DocaError.INVALID_VALUE;
        }
        this.recvQueueSize = n;
        return DocaError.SUCCESS;
    }

    public int sendQueueSize() {
        return sendQueueSize;
    }

    public int recvQueueSize() {
        return recvQueueSize;
    }

    /** Transport choice (default AUTO, or what {@code -Djdoca.rdma.transport} names). */
    public DocaError setTransport(RdmaTransportType t) {
        if (state() != io.jdoca.core.exec.CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (t == null) {
            return DocaError.INVALID_VALUE;
        }
        this.transport = t;
        return DocaError.SUCCESS;
    }

    public RdmaTransportType transport() {
        return transport;
    }

    /**
     * How long a send (or write-with-immediate) waits for the peer to post a receive before failing
     * with TIME_OUT, which is fatal (DOCA's RNR retry count; default 1000 ms).
     */
    public DocaError setRnrRetryTimeoutMillis(long ms) {
        if (state() != io.jdoca.core.exec.CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (ms <= 0) {
            return DocaError.INVALID_VALUE;
        }
        this.rnrTimeoutNanos = ms * 1_000_000L;
        return DocaError.SUCCESS;
    }

    long rnrTimeoutNanos() {
        return rnrTimeoutNanos;
    }

    /**
     * {@code doca_rdma_set_gid_index}: the GID table entry this context's queue pairs use as their source address
     * (RoCE) and advertise to peers. Default (or a negative value): the device's choice, a RoCE v2 IPv4-mapped
     * entry, or {@code -Djdoca.verbs.gidIndex}. An index the port does not have fails the start (INVALID_VALUE).
     * Verbs transport only; the software transports ignore it.
     */
    public DocaError setGidIndex(int index) {
        if (state() != io.jdoca.core.exec.CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (index > 255) {
            return DocaError.INVALID_VALUE; // ibv_ah_attr.grh.sgid_index is 8 bits
        }
        this.gidIndex = Math.max(-1, index);
        return DocaError.SUCCESS;
    }

    /** {@code doca_rdma_get_gid_index}: the index set, or -1 for the device's default. */
    public int gidIndex() {
        return gidIndex;
    }

    /**
     * TCP: listen address (default: all), blob host name (default: this host's); VERBS CM: rdma_cm's (default: the
     * device's).
     */
    public DocaError setTcpAddress(InetAddress bind, String advertise) {
        if (state() != io.jdoca.core.exec.CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        this.bindAddress = bind;
        this.advertisedHost = advertise;
        return DocaError.SUCCESS;
    }

    // ------------------------------------------------------------------ connections (control path)

    /**
     * {@code doca_rdma_export}: a new connection of this context and the blob describing it. Call
     * after {@link #start()} (STARTING or RUNNING). Throws {@link DocaException} (BAD_STATE, or
     * NO_MEMORY if the SHM ring cannot be created).
     */
    public RdmaExport export() {
        return conns.export();
    }

    /** VerbsCm: a new connection of this run. */
    RdmaConnection newConnection() {
        return conns.newConnection();
    }

    /**
     * {@code doca_rdma_connect}: joins {@code conn} (from this context's {@link #export()}) to the
     * peer described by {@code peerBlob}. Establishment completes during progress. INVALID_VALUE for
     * a malformed or incompatible blob, BAD_STATE if the context or connection is in the wrong state.
     */
    public DocaError connect(byte[] peerBlob, RdmaConnection conn) {
        return conns.connect(peerBlob, conn);
    }

    /** The context's connections (control path; a copy). */
    public List<RdmaConnection> connections() {
        return conns.connections();
    }

    // ------------------------------------------------------------------ CM-style connection management

    /** Callbacks of the CM-style mode ({@code doca_rdma_set_connection_state_callbacks}); IDLE only. */
    public DocaError setConnectionStateCallbacks(RdmaCmCallbacks.ConnectionRequest request,
            RdmaCmCallbacks.ConnectionEstablished established, RdmaCmCallbacks.ConnectionFailure failure,
            RdmaCmCallbacks.ConnectionDisconnection disconnection) {
        return cm.setConnectionStateCallbacks(request, established, failure, disconnection);
    }

    /**
     * {@code doca_rdma_start_listen_to_port}: accept CM-style connections on {@code port} (0: any;
     * see {@link #listenPort()}). Each incoming connection is reported to the request callback,
     * which answers with {@link #connectionAccept} or {@link #connectionReject}. Call after start().
     */
    public DocaError startListenToPort(int port) {
        return cm.startListenToPort(port);
    }

    /** The CM listening port, or 0. */
    public int listenPort() {
        return cm.listenPort();
    }

    /** VerbsCm: a request arrives while the context stops: it is rejected. */
    boolean cmStopping() {
        return cm.stopping();
    }

    /** VerbsCm: a connection request for the request callback, or a connection's progress for the set-up work. */
    void cmSetupPending(RdmaConnection request) {
        cm.setupPending(request);
    }

    /**
     * {@code doca_rdma_connection_accept}: accepts a connection reported by the request callback.
     * Returns the established-to-be connection's status; engine thread.
     */
    public DocaError connectionAccept(RdmaConnection request) {
        return cm.connectionAccept(request);
    }

    /** {@code doca_rdma_connection_reject}. */
    public DocaError connectionReject(RdmaConnection request) {
        return cm.connectionReject(request);
    }

    /**
     * {@code doca_rdma_connect_to_addr}: dials a peer listening with {@link #startListenToPort},
     * exchanging the blobs in-band. The returned connection becomes ESTABLISHED (established
     * callback) or FAILED (failure callback) during progress. Throws BAD_STATE if not started.
     */
    public RdmaConnection connectToAddr(InetSocketAddress addr, long connUserData) {
        return cm.connectToAddr(addr, connUserData);
    }

    /** {@code doca_rdma_connection_disconnect}: closes one connection; its tasks complete with SHUTDOWN. */
    public DocaError connectionDisconnect(RdmaConnection c) {
        return cm.connectionDisconnect(c);
    }

    // ------------------------------------------------------------------ engine

    @Override
    protected DocaError onStart() {
        stopping = false;
        fatal = null;
        conns.reset();
        exec.reset(recvQueueSize);
        if (transport == RdmaTransportType.AUTO && dev.devInfo().isVerbs()) {
            // An RDMA device means the verbs transport: the device, not a software ring, moves the data.
            transport = RdmaTransportType.VERBS;
        }
        if (transport == RdmaTransportType.VERBS) {
            if (!dev.devInfo().isVerbs()) {
                LOG.log(System.Logger.Level.WARNING, "rdma: the verbs transport needs an RDMA device (e.g. -d rxe0, "
                        + "-d mlx5_0 from ./jdoca devices); " + dev.devInfo().name() + " is a software device");
                return DocaError.NOT_SUPPORTED;
            }
            try {
                verbs = new VerbsTransport(this, dev.devInfo(), sendQueueSize, recvQueueSize, maxSendBufListLen,
                        recvDstBufListLen);
            } catch (io.jdoca.verbs.VerbsException e) {
                LOG.log(System.Logger.Level.WARNING, "rdma: cannot set up the verbs transport on "
                        + dev.devInfo().name() + ": " + e.getMessage());
                return e.call().equals("ibv_query_gid") ? DocaError.INVALID_VALUE : DocaError.DRIVER;
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "rdma: cannot set up the verbs transport on "
                        + dev.devInfo().name() + ": " + e.getMessage());
                return DocaError.DRIVER;
            }
        } else if (transport != RdmaTransportType.SHM) {
            DocaError e = conns.openListener();
            if (e != DocaError.SUCCESS) {
                return e;
            }
        }
        return DocaError.IN_PROGRESS;
    }

    @Override
    protected void onStop() {
        stopping = true;
        conns.closeAll(fatal == null ? DocaError.SHUTDOWN : fatal);
    }

    @Override
    protected boolean canBecomeIdle() {
        return conns.allDrained() && (verbs == null || !verbs.hasPostedRecvs());
    }

    @Override
    protected void onIdle() {
        conns.release();
        if (verbs != null) {
            verbs.release();
            verbs = null;
        }
    }

    @Override
    protected DocaError validateTask(Task t) {
        return exec.validate(t);
    }

    @Override
    protected DocaError onSubmit(Task t) {
        return exec.submit(t);
    }

    /** Checks a task against the rules of both sides and computes the remote target (see {@link RdmaTaskExecutor}). */
    DocaError resolve(RdmaTask t) {
        return exec.resolve(t);
    }

    /** Completion hand-off for the endpoints (engine thread). */
    void done(RdmaTask t, DocaError status) {
        complete(t, status);
    }

    /** Connection management: the context's start finished (STARTING to RUNNING, or failed). */
    void completeStart(DocaError result) {
        startCompleted(result);
    }

    /** A fatal error with no connection left to carry traffic: the context stops, as DOCA does. */
    void stopOnFatal(DocaError reason) {
        if (fatal == null) {
            fatal = reason;
        }
        stopFromWithin();
    }

    /** A connection hit a fatal error: the whole context stops, as DOCA does, unless others still carry traffic. */
    void connectionBroken(RdmaConnection c, DocaError reason, String why) {
        conns.connectionBroken(c, reason, why);
    }

    /** Takes a posted receive (any consumer thread); null if none. */
    RdmaTaskReceive pollPostedRecv() {
        return exec.pollPostedRecv();
    }

    /** Whether a receive is posted (SHM's sleep rule). */
    boolean hasPostedRecvs() {
        return exec.hasPostedRecvs();
    }

    /**
     * True while the duty cycle runs (engine thread): a transport may hold back what tasks
     * submitted from completion callbacks write, and send it all in {@link RdmaEndpoint#afterWork()}.
     */
    boolean inWork() {
        return exec.inWork;
    }

    @Override
    protected int work() {
        return exec.work();
    }

    @Override
    public boolean hasPendingWork() {
        return exec.hasPendingWork();
    }

    @Override
    public void beforeWait() {
        exec.beforeWait();
    }

    @Override
    public long maxSleepNanos() {
        return exec.maxSleepNanos();
    }

    /**
     * The transport a new context starts with: {@link RdmaTransportType#AUTO}, unless the operator
     * names one with {@code -Djdoca.rdma.transport=auto|shm|tcp|verbs} (e.g. to run same-host
     * applications over TCP; {@link #setTransport} still overrides it). An unknown name is refused
     * with a one-line error when the context is created.
     */
    private static RdmaTransportType defaultTransport() {
        String s = RdmaProperties.TRANSPORT.asString();
        if (s.isBlank()) {
            return RdmaTransportType.AUTO;
        }
        try {
            return RdmaTransportType.valueOf(s.trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("-D" + RdmaProperties.TRANSPORT.name() + "=" + s
                    + ": not a transport (auto, shm, tcp, verbs)");
        }
    }

    private static UUID hostUuid() {
        String s = SharedMemory.hostId();
        try {
            return UUID.fromString(s);
        } catch (IllegalArgumentException e) {
            return UUID.nameUUIDFromBytes(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
    }
}
