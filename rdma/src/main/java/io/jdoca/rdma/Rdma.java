package io.jdoca.rdma;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.DevInfo;
import io.jdoca.core.exec.Ctx;
import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskCallback;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.MmapExport;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.ring.SpmcRing;
import io.jdoca.rdma.wire.RdmaConnectionBlob;
import io.jdoca.rdma.wire.TcpFrame;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

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
public final class Rdma extends Ctx {
    private static final System.Logger LOG = System.getLogger(Rdma.class.getName());
    /** DOCA: 2 GiB or the device's max message size, whichever is lower. */
    public static final long MAX_MESSAGE_SIZE = 1L << 31;
    public static final int MAX_SEND_BUF_LIST_LEN = 32;
    public static final int MAX_QUEUE_SIZE = 1 << 14;
    static final UUID HOST = hostUuid();
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Dev dev;
    private final TaskPool<RdmaTaskReceive> receivePool;
    private final TaskPool<RdmaTaskSend> sendPool;
    private final TaskPool<RdmaTaskSendImm> sendImmPool;
    private final TaskPool<RdmaTaskRead> readPool;
    private final TaskPool<RdmaTaskWrite> writePool;
    private final TaskPool<RdmaTaskWriteImm> writeImmPool;
    private final TaskPool<RdmaTaskAtomicCmpSwp> cmpSwpPool;
    private final TaskPool<RdmaTaskAtomicFetchAdd> fetchAddPool;
    private final TaskPool<RdmaTaskRemoteNetSyncEventGet> seGetPool;
    private final TaskPool<RdmaTaskRemoteNetSyncEventNotifySet> seSetPool;
    private final TaskPool<RdmaTaskRemoteNetSyncEventNotifyAdd> seAddPool;

    private int permissions = AccessFlags.LOCAL_READ_WRITE;
    private int maxSendBufListLen = 1;
    private int recvDstBufListLen = 1;
    private int sendQueueSize = 256;
    private int recvQueueSize = 256;
    private long rnrTimeoutNanos = 1_000_000_000L;
    private long connectTimeoutNanos = 10_000_000_000L;
    private RdmaTransportType transport = RdmaTransportType.AUTO;
    private InetAddress bindAddress;
    private String advertisedHost;

    // ---- running state
    SpmcRing postedRecvs;
    private final List<RdmaConnection> connections = new ArrayList<>();
    private RdmaConnection[] active = new RdmaConnection[0];
    private final Map<Long, RdmaConnection> byNonce = new ConcurrentHashMap<>();
    private ServerSocketChannel listener;
    private Thread acceptor;
    private boolean stopping;
    private volatile boolean setupPending;
    private int nextConnId;
    /** First fatal status of this run (reported to flushed tasks). */
    private DocaError fatal;

    /** The verbs transport of this run (VERBS only): CQ, SRQ, QPs. */
    private VerbsTransport verbs;
    /** VERBS CM mode through rdma_cm: made by the first startListenToPort / connectToAddr of a run. */
    private VerbsCm verbsCm;

    // ---- CM mode
    private ServerSocketChannel cmListener;
    private final ConcurrentLinkedQueue<RdmaConnection> cmIncoming = new ConcurrentLinkedQueue<>();
    private RdmaCmCallbacks.ConnectionRequest cmRequestCb;
    private RdmaCmCallbacks.ConnectionEstablished cmEstablishedCb;
    private RdmaCmCallbacks.ConnectionFailure cmFailureCb;
    private RdmaCmCallbacks.ConnectionDisconnection cmDisconnectCb;

    private Rdma(Dev dev) {
        super("rdma");
        this.dev = dev;
        receivePool = registerTaskType("receive", RdmaTaskReceive::new);
        sendPool = registerTaskType("send", RdmaTaskSend::new);
        sendImmPool = registerTaskType("send_imm", RdmaTaskSendImm::new);
        readPool = registerTaskType("read", RdmaTaskRead::new);
        writePool = registerTaskType("write", RdmaTaskWrite::new);
        writeImmPool = registerTaskType("write_imm", RdmaTaskWriteImm::new);
        cmpSwpPool = registerTaskType("atomic_cmp_swp", RdmaTaskAtomicCmpSwp::new);
        fetchAddPool = registerTaskType("atomic_fetch_add", RdmaTaskAtomicFetchAdd::new);
        seGetPool = registerTaskType("remote_net_sync_event_get", RdmaTaskRemoteNetSyncEventGet::new);
        seSetPool = registerTaskType("remote_net_sync_event_notify_set", RdmaTaskRemoteNetSyncEventNotifySet::new);
        seAddPool = registerTaskType("remote_net_sync_event_notify_add", RdmaTaskRemoteNetSyncEventNotifyAdd::new);
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

    /** Transport choice (default AUTO). */
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

    /** TCP: listen address (default: all), blob host name (default: this host's); VERBS CM: rdma_cm's (default: the device's). */
    public DocaError setTcpAddress(InetAddress bind, String advertise) {
        if (state() != io.jdoca.core.exec.CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        this.bindAddress = bind;
        this.advertisedHost = advertise;
        return DocaError.SUCCESS;
    }

    // ------------------------------------------------------------------ task configuration

    public DocaError taskReceiveSetConf(TaskCallback<RdmaTaskReceive> ok, TaskCallback<RdmaTaskReceive> err, int n) {
        return receivePool.setConf(ok, err, n);
    }

    public DocaError taskSendSetConf(TaskCallback<RdmaTaskSend> ok, TaskCallback<RdmaTaskSend> err, int n) {
        return sendPool.setConf(ok, err, n);
    }

    public DocaError taskSendImmSetConf(TaskCallback<RdmaTaskSendImm> ok, TaskCallback<RdmaTaskSendImm> err, int n) {
        return sendImmPool.setConf(ok, err, n);
    }

    public DocaError taskReadSetConf(TaskCallback<RdmaTaskRead> ok, TaskCallback<RdmaTaskRead> err, int n) {
        return readPool.setConf(ok, err, n);
    }

    public DocaError taskWriteSetConf(TaskCallback<RdmaTaskWrite> ok, TaskCallback<RdmaTaskWrite> err, int n) {
        return writePool.setConf(ok, err, n);
    }

    public DocaError taskWriteImmSetConf(TaskCallback<RdmaTaskWriteImm> ok, TaskCallback<RdmaTaskWriteImm> err, int n) {
        return writeImmPool.setConf(ok, err, n);
    }

    public DocaError taskAtomicCmpSwpSetConf(TaskCallback<RdmaTaskAtomicCmpSwp> ok,
            TaskCallback<RdmaTaskAtomicCmpSwp> err, int n) {
        return cmpSwpPool.setConf(ok, err, n);
    }

    public DocaError taskAtomicFetchAddSetConf(TaskCallback<RdmaTaskAtomicFetchAdd> ok,
            TaskCallback<RdmaTaskAtomicFetchAdd> err, int n) {
        return fetchAddPool.setConf(ok, err, n);
    }

    public DocaError taskRemoteNetSyncEventGetSetConf(TaskCallback<RdmaTaskRemoteNetSyncEventGet> ok,
            TaskCallback<RdmaTaskRemoteNetSyncEventGet> err, int n) {
        return seGetPool.setConf(ok, err, n);
    }

    public DocaError taskRemoteNetSyncEventNotifySetSetConf(TaskCallback<RdmaTaskRemoteNetSyncEventNotifySet> ok,
            TaskCallback<RdmaTaskRemoteNetSyncEventNotifySet> err, int n) {
        return seSetPool.setConf(ok, err, n);
    }

    public DocaError taskRemoteNetSyncEventNotifyAddSetConf(TaskCallback<RdmaTaskRemoteNetSyncEventNotifyAdd> ok,
            TaskCallback<RdmaTaskRemoteNetSyncEventNotifyAdd> err, int n) {
        return seAddPool.setConf(ok, err, n);
    }

    // ------------------------------------------------------------------ task allocation (data path)

    /** {@code doca_rdma_task_receive_allocate_init}: a receive for any connection of this context. */
    public RdmaTaskReceive taskReceiveAllocInit(Buf dst, long userData) {
        RdmaTaskReceive t = receivePool.alloc();
        if (t != null) {
            t.local = dst;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskSend taskSendAllocInit(RdmaConnection conn, Buf src, long userData) {
        RdmaTaskSend t = sendPool.alloc();
        if (t != null) {
            t.conn = conn;
            t.local = src;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskSendImm taskSendImmAllocInit(RdmaConnection conn, Buf src, int immediate, long userData) {
        RdmaTaskSendImm t = sendImmPool.alloc();
        if (t != null) {
            t.conn = conn;
            t.local = src;
            t.immediate = immediate;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskRead taskReadAllocInit(RdmaConnection conn, Buf remoteSrc, Buf localDst, long userData) {
        RdmaTaskRead t = readPool.alloc();
        if (t != null) {
            t.conn = conn;
            t.remote = remoteSrc;
            t.local = localDst;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskWrite taskWriteAllocInit(RdmaConnection conn, Buf localSrc, Buf remoteDst, long userData) {
        RdmaTaskWrite t = writePool.alloc();
        if (t != null) {
            t.conn = conn;
            t.local = localSrc;
            t.remote = remoteDst;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskWriteImm taskWriteImmAllocInit(RdmaConnection conn, Buf localSrc, Buf remoteDst, int immediate,
            long userData) {
        RdmaTaskWriteImm t = writeImmPool.alloc();
        if (t != null) {
            t.conn = conn;
            t.local = localSrc;
            t.remote = remoteDst;
            t.immediate = immediate;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskAtomicCmpSwp taskAtomicCmpSwpAllocInit(RdmaConnection conn, Buf remoteDst8, Buf localResult8,
            long cmp, long swap, long userData) {
        RdmaTaskAtomicCmpSwp t = cmpSwpPool.alloc();
        if (t != null) {
            t.conn = conn;
            t.remote = remoteDst8;
            t.local = localResult8;
            t.operand = cmp;
            t.swap = swap;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskAtomicFetchAdd taskAtomicFetchAddAllocInit(RdmaConnection conn, Buf remoteDst8, Buf localResult8,
            long add, long userData) {
        RdmaTaskAtomicFetchAdd t = fetchAddPool.alloc();
        if (t != null) {
            t.conn = conn;
            t.remote = remoteDst8;
            t.local = localResult8;
            t.operand = add;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskRemoteNetSyncEventGet taskRemoteNetSyncEventGetAllocInit(RdmaConnection conn,
            SyncEventRemoteNet event, Buf dst, long userData) {
        RdmaTaskRemoteNetSyncEventGet t = seGetPool.alloc();
        if (t != null) {
            t.conn = conn;
            t.event = event;
            t.local = dst;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskRemoteNetSyncEventNotifySet taskRemoteNetSyncEventNotifySetAllocInit(RdmaConnection conn,
            SyncEventRemoteNet event, Buf src, long userData) {
        RdmaTaskRemoteNetSyncEventNotifySet t = seSetPool.alloc();
        if (t != null) {
            t.conn = conn;
            t.event = event;
            t.local = src;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskRemoteNetSyncEventNotifyAdd taskRemoteNetSyncEventNotifyAddAllocInit(RdmaConnection conn,
            SyncEventRemoteNet event, Buf result, long add, long userData) {
        RdmaTaskRemoteNetSyncEventNotifyAdd t = seAddPool.alloc();
        if (t != null) {
            t.conn = conn;
            t.event = event;
            t.local = result;
            t.operand = add;
            t.setUserData(userData);
        }
        return t;
    }

    // ------------------------------------------------------------------ connections (control path)

    /**
     * {@code doca_rdma_export}: a new connection of this context and the blob describing it. Call
     * after {@link #start()} (STARTING or RUNNING). Throws {@link DocaException} (BAD_STATE, or
     * NO_MEMORY if the SHM ring cannot be created).
     */
    public RdmaExport export() {
        requireStartedForConnections();
        RdmaConnection c = newConnection();
        return new RdmaExport(blobOf(c), c);
    }

    RdmaConnection newConnection() {
        long nonce;
        do {
            nonce = RANDOM.nextLong();
        } while (nonce == 0 || byNonce.containsKey(nonce));
        RdmaConnection c = new RdmaConnection(this, nextConnId++, nonce);
        if (transport == RdmaTransportType.VERBS) {
            // The QP exists from export on (RESET → INIT), so its number goes into the blob.
            c.verbsEp = new VerbsEndpoint(this, c, verbs);
        } else if (transport != RdmaTransportType.TCP) {
            c.inbound = ShmEndpoint.createInbound();
            // The ring is granted to the holder of this connection's blob only (same checks as a
            // memory map import): another blob cannot name it without its capability.
            do {
                c.ringCap0 = RANDOM.nextLong();
                c.ringCap1 = RANDOM.nextLong();
            } while ((c.ringCap0 | c.ringCap1) == 0);
            SharedMemory.grant(c.inbound, nonce, 0, c.inbound.size(), c.ringCap0, c.ringCap1);
        }
        byNonce.put(nonce, c);
        connections.add(c);
        return c;
    }

    private byte[] blobOf(RdmaConnection c) {
        int port = listener == null ? 0 : listener.socket().getLocalPort();
        String host = port == 0 ? "" : advertised();
        String ring = c.inbound == null ? "" : c.inbound.name();
        return new RdmaConnectionBlob(transport.code(), ProcessHandle.current().pid(), permissions, c.nonce, HOST, port,
                host, ring, c.inbound == null ? 0 : c.ringCap0, c.inbound == null ? 0 : c.ringCap1,
                c.verbsEp == null ? null : c.verbsEp.info()).encode();
    }

    private String advertised() {
        if (advertisedHost != null) {
            return advertisedHost;
        }
        if (bindAddress != null && !bindAddress.isAnyLocalAddress()) {
            return bindAddress.getHostAddress();
        }
        try {
            InetAddress a = InetAddress.getLocalHost();
            return a.getHostAddress();
        } catch (IOException e) {
            return "127.0.0.1";
        }
    }

    /**
     * {@code doca_rdma_connect}: joins {@code conn} (from this context's {@link #export()}) to the
     * peer described by {@code peerBlob}. Establishment completes during progress. INVALID_VALUE for
     * a malformed or incompatible blob, BAD_STATE if the context or connection is in the wrong state.
     */
    public DocaError connect(byte[] peerBlob, RdmaConnection conn) {
        if (state() != io.jdoca.core.exec.CtxState.STARTING && state() != io.jdoca.core.exec.CtxState.RUNNING) {
            return DocaError.BAD_STATE;
        }
        if (conn == null || conn.rdma != this || conn.state() != RdmaConnectionState.IDLE) {
            return conn == null || conn.rdma != this ? DocaError.INVALID_VALUE : DocaError.BAD_STATE;
        }
        RdmaConnectionBlob peer;
        try {
            peer = RdmaConnectionBlob.decode(peerBlob);
        } catch (IllegalArgumentException e) {
            LOG.log(System.Logger.Level.WARNING, "rdma connect: " + e.getMessage());
            return DocaError.INVALID_VALUE;
        }
        boolean sameHost = HOST.equals(peer.hostId());
        RdmaTransportType t = RdmaTransportType.resolve(transport, RdmaTransportType.fromCode(peer.transport()), sameHost);
        if (t == null || (t == RdmaTransportType.SHM && (peer.shmRegion().isEmpty() || conn.inbound == null))
                || (t == RdmaTransportType.TCP && (peer.tcpPort() == 0 || listener == null))
                || (t == RdmaTransportType.VERBS && (peer.verbs() == null || conn.verbsEp == null))) {
            LOG.log(System.Logger.Level.WARNING, "rdma connect: transports do not match (local " + transport + ", peer "
                    + RdmaTransportType.fromCode(peer.transport()) + ", same host " + sameHost + ")");
            return DocaError.INVALID_VALUE;
        }
        conn.peer = peer;
        conn.transport = t;
        conn.connectStartNanos = System.nanoTime();
        conn.transition(RdmaConnectionState.CONNECTING);
        if (t == RdmaTransportType.VERBS) {
            try {
                conn.verbsEp.connect(peer.verbs(), sameHost ? peer.pid() : 0);
            } catch (io.jdoca.verbs.VerbsException e) {
                fail(conn, "cannot connect the QP to the peer's (" + peer.verbs() + "): " + e.getMessage());
                conn.verbsEp.close(DocaError.CONNECTION_ABORTED);
                return DocaError.DRIVER;
            }
            conn.endpoint = conn.verbsEp;
        } else if (t == RdmaTransportType.SHM) {
            try {
                conn.endpoint = new ShmEndpoint(this, conn, sendQueueSize);
            } catch (RuntimeException e) {
                fail(conn, "cannot map the peer's ring: " + e.getMessage());
                // A ring refused by its grant (wrong capability) says so; a vanished one is NOT_FOUND.
                return e instanceof DocaException d && d.error() == DocaError.NOT_PERMITTED ? DocaError.NOT_PERMITTED
                        : DocaError.NOT_FOUND;
            }
        } else {
            if (conn.inbound != null) {
                conn.inbound.close();
                conn.inbound = null;
            }
            if (Long.compareUnsigned(conn.nonce, peer.nonce()) < 0) {
                dial(conn, sameHost ? "127.0.0.1" : peer.host(), peer.tcpPort(), peer.nonce());
            }
        }
        setupPending = true;
        return DocaError.SUCCESS;
    }

    private void dial(RdmaConnection conn, String host, int port, long peerNonce) {
        Thread.ofVirtual().name("jdoca-rdma-dial-" + conn.id).start(() -> {
            try {
                SocketChannel ch = SocketChannel.open();
                try {
                    ch.connect(new InetSocketAddress(host, port));
                    TcpEndpoint.configure(ch);
                    ByteBuffer hello = ByteBuffer.allocateDirect(TcpFrame.SIZE).order(ByteOrder.LITTLE_ENDIAN);
                    new TcpFrame().wrap(MemorySegment.ofBuffer(hello)).init(TcpFrame.OP_HELLO).mapId(peerNonce)
                            .operand(conn.nonce);
                    while (hello.hasRemaining()) {
                        ch.write(hello);
                    }
                } catch (IOException | RuntimeException e) {
                    ch.close();
                    throw e;
                }
                conn.pendingChannel = ch;
            } catch (IOException | RuntimeException e) {
                conn.failure = "cannot reach the peer at " + host + ":" + port + ": " + e;
            }
            wake();
        });
    }

    private void acceptLoop(ServerSocketChannel ss) {
        while (ss.isOpen()) {
            SocketChannel ch;
            try {
                ch = ss.accept();
            } catch (IOException e) {
                return;
            }
            Thread.ofVirtual().name("jdoca-rdma-hello").start(() -> onAccepted(ch));
        }
    }

    private void onAccepted(SocketChannel ch) {
        try {
            TcpEndpoint.configure(ch);
            ByteBuffer hello = ByteBuffer.allocateDirect(TcpFrame.SIZE).order(ByteOrder.LITTLE_ENDIAN);
            ch.socket().setSoTimeout(5000);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (hello.hasRemaining() && System.nanoTime() < deadline) {
                if (ch.read(hello) < 0) {
                    throw new IOException("closed before hello");
                }
            }
            TcpFrame f = new TcpFrame().wrap(MemorySegment.ofBuffer(hello.flip()));
            RdmaConnection c = f.opcode() == TcpFrame.OP_HELLO ? byNonce.get(f.mapId()) : null;
            if (c == null || c.pendingChannel != null) {
                ch.close();
                return;
            }
            c.pendingChannel = ch;
            wake();
        } catch (IOException | RuntimeException e) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // nothing more to do
            }
        }
    }

    private void wake() {
        if (pe() != null) {
            pe().notifyWork();
        }
    }

    private void requireStartedForConnections() {
        if (state() != io.jdoca.core.exec.CtxState.STARTING && state() != io.jdoca.core.exec.CtxState.RUNNING) {
            throw new DocaException(DocaError.BAD_STATE, "export/connect need a started RDMA context (state " + state() + ")");
        }
    }

    /** The context's connections (control path; a copy). */
    public List<RdmaConnection> connections() {
        return List.copyOf(connections);
    }

    private void fail(RdmaConnection c, String why) {
        c.failure = why;
        if (c.transition(RdmaConnectionState.FAILED)) {
            LOG.log(System.Logger.Level.WARNING, "rdma connection " + c.id + " failed: " + why);
            if (c.cm()) {
                if (cmFailureCb != null) {
                    cmFailureCb.onFailure(c, c.userData());
                }
            }
        }
    }

    /** Control work: establishing connections, CM hand-shakes. Runs only while something is pending. */
    private int setupWork() {
        boolean pending = false;
        int n = 0;
        RdmaConnection c;
        while ((c = cmIncoming.poll()) != null) {
            n++;
            if (cmRequestCb != null) {
                cmRequestCb.onRequest(c, userData());
            } else {
                connectionAccept(c);
            }
        }
        for (int i = 0; i < connections.size(); i++) {
            c = connections.get(i);
            if (c.cmInitiator && c.state() == RdmaConnectionState.IDLE) {
                byte[] pb = c.cmPeerBlob;
                if (pb != null) {
                    DocaError e = connect(pb, c);
                    if (e != DocaError.SUCCESS) {
                        fail(c, "CM connect: " + e);
                    } else {
                        pending = true;
                    }
                } else if (c.failure != null) {
                    fail(c, c.failure);
                } else {
                    pending = true;
                }
                continue;
            }
            if (c.state() != RdmaConnectionState.CONNECTING) {
                continue;
            }
            if (c.failure != null) {
                fail(c, c.failure);
                continue;
            }
            if (c.transport == RdmaTransportType.TCP && c.endpoint == null) {
                SocketChannel ch = c.pendingChannel;
                if (ch != null) {
                    c.endpoint = new TcpEndpoint(this, c, ch, sendQueueSize, recvQueueSize, maxSendBufListLen);
                }
            }
            boolean up = c.endpoint instanceof ShmEndpoint s ? s.peerAttached() : c.endpoint != null;
            if (up) {
                if (c.endpoint instanceof TcpEndpoint t) {
                    t.startIo();
                }
                c.transition(RdmaConnectionState.ESTABLISHED);
                n++;
                refreshActive();
                LOG.log(System.Logger.Level.DEBUG, "rdma connection " + c.id + " established over " + c.transport);
                if (cmEstablishedCb != null && c.cm()) {
                    cmEstablishedCb.onEstablished(c, c.userData());
                }
            } else if (System.nanoTime() - c.connectStartNanos > connectTimeoutNanos) {
                fail(c, "peer did not connect within " + connectTimeoutNanos / 1_000_000 + " ms");
                if (c.endpoint != null) {
                    c.endpoint.close(DocaError.CONNECTION_ABORTED);
                }
                refreshActive();
            } else {
                pending = true;
            }
        }
        if (state() == io.jdoca.core.exec.CtxState.STARTING) {
            boolean anyUp = false;
            boolean anyFailed = false;
            boolean anyConnecting = false;
            for (RdmaConnection x : connections) {
                switch (x.state()) {
                    case ESTABLISHED -> anyUp = true;
                    case FAILED -> anyFailed = true;
                    case CONNECTING -> anyConnecting = true;
                    default -> {
                    }
                }
            }
            if (anyFailed && !anyUp && !anyConnecting) {
                startCompleted(DocaError.NOT_CONNECTED);
            } else if (anyUp && !anyConnecting) {
                startCompleted(DocaError.SUCCESS);
            }
        }
        boolean connecting = false;
        for (int i = 0; i < connections.size(); i++) {
            connecting |= connections.get(i).state() == RdmaConnectionState.CONNECTING;
        }
        setupPending = pending || connecting || !cmIncoming.isEmpty();
        return n;
    }

    private void refreshActive() {
        List<RdmaConnection> l = new ArrayList<>();
        for (RdmaConnection c : connections) {
            if (c.endpoint != null) {
                l.add(c);
            }
        }
        active = l.toArray(new RdmaConnection[0]);
    }

    // ------------------------------------------------------------------ CM-style connection management

    /** Callbacks of the CM-style mode ({@code doca_rdma_set_connection_state_callbacks}); IDLE only. */
    public DocaError setConnectionStateCallbacks(RdmaCmCallbacks.ConnectionRequest request,
            RdmaCmCallbacks.ConnectionEstablished established, RdmaCmCallbacks.ConnectionFailure failure,
            RdmaCmCallbacks.ConnectionDisconnection disconnection) {
        if (state() != io.jdoca.core.exec.CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        this.cmRequestCb = request;
        this.cmEstablishedCb = established;
        this.cmFailureCb = failure;
        this.cmDisconnectCb = disconnection;
        return DocaError.SUCCESS;
    }

    /**
     * {@code doca_rdma_start_listen_to_port}: accept CM-style connections on {@code port} (0: any;
     * see {@link #listenPort()}). Each incoming connection is reported to the request callback,
     * which answers with {@link #connectionAccept} or {@link #connectionReject}. Call after start().
     */
    public DocaError startListenToPort(int port) {
        if (state() != io.jdoca.core.exec.CtxState.STARTING && state() != io.jdoca.core.exec.CtxState.RUNNING) {
            return DocaError.BAD_STATE;
        }
        if (cmListener != null) {
            return DocaError.IN_USE;
        }
        if (verbs != null) {
            VerbsCm cm = verbsCm();
            return cm == null ? DocaError.DRIVER : cm.listen(bindAddress, port);
        }
        try {
            ServerSocketChannel ss = ServerSocketChannel.open();
            ss.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            ss.bind(new InetSocketAddress(bindAddress, port));
            cmListener = ss;
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "rdma: cannot listen on port " + port + ": " + e);
            return DocaError.OPERATING_SYSTEM;
        }
        ServerSocketChannel ss = cmListener;
        Thread.ofVirtual().name("jdoca-rdma-cm-listen").start(() -> {
            while (ss.isOpen()) {
                try {
                    SocketChannel ch = ss.accept();
                    Thread.ofVirtual().start(() -> cmOnAccepted(ch));
                } catch (IOException e) {
                    return;
                }
            }
        });
        return DocaError.SUCCESS;
    }

    /** The CM listening port, or 0. */
    public int listenPort() {
        if (verbsCm != null) {
            return verbsCm.listenPort();
        }
        return cmListener == null ? 0 : cmListener.socket().getLocalPort();
    }

    /** This run's rdma_cm side (VERBS), made on first use; null (logged) if rdma_cm is unusable. */
    private VerbsCm verbsCm() {
        return verbsCm != null ? verbsCm : (verbsCm = VerbsCm.open(this, verbs));
    }

    /** VerbsCm: a request arrives while the context stops: it is rejected. */
    boolean cmStopping() {
        return stopping || (state() != io.jdoca.core.exec.CtxState.STARTING
                && state() != io.jdoca.core.exec.CtxState.RUNNING);
    }

    /** VerbsCm: a connection request for the request callback, or a connection's progress for {@link #setupWork()}. */
    void cmSetupPending(RdmaConnection request) {
        if (request != null) {
            cmIncoming.add(request);
        }
        setupPending = true;
    }

    private void cmOnAccepted(SocketChannel ch) {
        try {
            ch.socket().setSoTimeout(5000);
            byte[] blob = CmWire.readBlob(ch);
            // Hand-over to the engine thread, which owns the connection list.
            RdmaConnection placeholder = new RdmaConnection(this, -1, 0);
            placeholder.cmChannel = ch;
            placeholder.cmPeerBlob = blob;
            cmIncoming.add(placeholder);
            setupPending = true;
            wake();
        } catch (IOException | RuntimeException e) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // nothing more to do
            }
        }
    }

    /**
     * {@code doca_rdma_connection_accept}: accepts a connection reported by the request callback.
     * Returns the established-to-be connection's status; engine thread.
     */
    public DocaError connectionAccept(RdmaConnection request) {
        if (request != null && request.verbsCm != null) {
            return verbsCm == null ? DocaError.BAD_STATE : verbsCm.acceptRequest(request);
        }
        SocketChannel ch = request.cmChannel;
        if (ch == null || request.cmPeerBlob == null) {
            return DocaError.INVALID_VALUE;
        }
        RdmaConnection c = newConnection();
        c.setUserData(request.userData());
        c.cmChannel = ch;
        byte[] mine = blobOf(c);
        try {
            CmWire.writeBlob(ch, mine);
            ch.close();
        } catch (IOException e) {
            fail(c, "CM accept: " + e);
            return DocaError.CONNECTION_ABORTED;
        }
        request.cmChannel = null;
        return connect(request.cmPeerBlob, c);
    }

    /** {@code doca_rdma_connection_reject}. */
    public DocaError connectionReject(RdmaConnection request) {
        if (request != null && request.verbsCm != null) {
            if (verbsCm == null) {
                return DocaError.BAD_STATE;
            }
            verbsCm.reject(request.verbsCm);
            request.verbsCm = null;
            return DocaError.SUCCESS;
        }
        SocketChannel ch = request.cmChannel;
        if (ch == null) {
            return DocaError.INVALID_VALUE;
        }
        try {
            ch.close();
        } catch (IOException ignored) {
            // rejected either way
        }
        request.cmChannel = null;
        return DocaError.SUCCESS;
    }

    /**
     * {@code doca_rdma_connect_to_addr}: dials a peer listening with {@link #startListenToPort},
     * exchanging the blobs in-band. The returned connection becomes ESTABLISHED (established
     * callback) or FAILED (failure callback) during progress. Throws BAD_STATE if not started.
     */
    public RdmaConnection connectToAddr(InetSocketAddress addr, long connUserData) {
        requireStartedForConnections();
        RdmaConnection c = newConnection();
        c.setUserData(connUserData);
        c.cmInitiator = true;
        if (verbs != null) {
            // rdma_cm: resolve address and route, then connect with our private data; the events drive the rest.
            VerbsCm.connecting(c);
            setupPending = true;
            VerbsCm cm = verbsCm();
            if (cm == null) {
                c.failure = "CM connect to " + addr + ": rdma_cm is not usable";
            } else {
                cm.connect(c, addr);
            }
            return c;
        }
        byte[] mine = blobOf(c);
        setupPending = true;
        Thread.ofVirtual().name("jdoca-rdma-cm-dial").start(() -> {
            try (SocketChannel ch = SocketChannel.open()) {
                ch.connect(addr);
                ch.socket().setSoTimeout(10_000);
                CmWire.writeBlob(ch, mine);
                c.cmPeerBlob = CmWire.readBlob(ch);
            } catch (IOException | RuntimeException e) {
                c.failure = "CM connect to " + addr + ": " + e;
            }
            wake();
        });
        return c;
    }

    /** {@code doca_rdma_connection_disconnect}: closes one connection; its tasks complete with SHUTDOWN. */
    public DocaError connectionDisconnect(RdmaConnection c) {
        if (c == null || c.rdma != this || c.endpoint == null) {
            return DocaError.INVALID_VALUE;
        }
        c.endpoint.close(DocaError.SHUTDOWN);
        c.transition(RdmaConnectionState.DISCONNECTED);
        return DocaError.SUCCESS;
    }

    // ------------------------------------------------------------------ engine

    @Override
    protected DocaError onStart() {
        stopping = false;
        fatal = null;
        connections.clear();
        active = new RdmaConnection[0];
        byNonce.clear();
        postedRecvs = new SpmcRing(recvQueueSize);
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
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "rdma: cannot set up the verbs transport on "
                        + dev.devInfo().name() + ": " + e.getMessage());
                return DocaError.DRIVER;
            }
        } else if (transport != RdmaTransportType.SHM) {
            try {
                ServerSocketChannel ss = ServerSocketChannel.open();
                ss.bind(new InetSocketAddress(bindAddress, 0));
                listener = ss;
                acceptor = Thread.ofPlatform().daemon().name("jdoca-rdma-accept").start(() -> acceptLoop(ss));
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "rdma: cannot open a TCP listener: " + e);
                return DocaError.OPERATING_SYSTEM;
            }
        }
        return DocaError.IN_PROGRESS;
    }

    @Override
    protected void onStop() {
        stopping = true;
        DocaError reason = fatal == null ? DocaError.SHUTDOWN : fatal;
        for (RdmaConnection c : connections) {
            if (c.endpoint != null) {
                c.endpoint.close(reason);
            } else if (c.verbsEp != null) {
                c.verbsEp.close(reason);
            }
            if (!c.transition(RdmaConnectionState.DISCONNECTED)) {
                c.transition(RdmaConnectionState.FAILED);
            }
        }
        closeListeners();
    }

    private void closeListeners() {
        try {
            if (listener != null) {
                listener.close();
            }
            if (cmListener != null) {
                cmListener.close();
            }
        } catch (IOException ignored) {
            // best effort
        }
        listener = null;
        cmListener = null;
        acceptor = null;
        if (verbsCm != null) {
            verbsCm.closeListeners();
        }
    }

    @Override
    protected boolean canBecomeIdle() {
        for (RdmaConnection c : active) {
            if (!c.endpoint.isDrained()) {
                return false;
            }
        }
        return verbs == null || !verbs.hasPostedRecvs();
    }

    @Override
    protected void onIdle() {
        for (RdmaConnection c : connections) {
            if (c.endpoint != null) {
                c.endpoint.release();
            }
            if (c.verbsEp != null) {
                c.verbsEp.release();
            }
            if (c.inbound != null) {
                c.inbound.close();
                c.inbound = null;
            }
            if (cmDisconnectCb != null && c.cm() && !c.cmReported
                    && c.state() != RdmaConnectionState.IDLE) {
                c.cmReported = true;
                cmDisconnectCb.onDisconnect(c, c.userData());
            }
        }
        active = new RdmaConnection[0];
        byNonce.clear();
        if (verbsCm != null) {
            // The rdma_cm ids are not attached to the QPs (jdoca owns them): disconnect and destroy them first.
            verbsCm.release();
            verbsCm = null;
        }
        if (verbs != null) {
            verbs.release();
            verbs = null;
        }
    }

    @Override
    protected DocaError validateTask(Task t) {
        RdmaTask r = (RdmaTask) t;
        if (r.local == null) {
            return DocaError.INVALID_VALUE;
        }
        if (r.kind == RdmaTask.K_RECV) {
            return r.local.listLen() > recvDstBufListLen ? DocaError.INVALID_VALUE : DocaError.SUCCESS;
        }
        if (r.conn == null || r.conn.rdma != this) {
            return DocaError.INVALID_VALUE;
        }
        if (r.local.listLen() > maxSendBufListLen) {
            return DocaError.INVALID_VALUE;
        }
        switch (r.kind) {
            case RdmaTask.K_READ, RdmaTask.K_WRITE, RdmaTask.K_WRITE_IMM, RdmaTask.K_CAS, RdmaTask.K_FADD -> {
                if (r.remote == null) {
                    return DocaError.INVALID_VALUE;
                }
            }
            case RdmaTask.K_SE_GET, RdmaTask.K_SE_SET, RdmaTask.K_SE_ADD -> {
                if (r.event == null) {
                    return DocaError.INVALID_VALUE;
                }
            }
            default -> {
            }
        }
        return DocaError.SUCCESS;
    }

    @Override
    protected DocaError onSubmit(Task t) {
        RdmaTask r = (RdmaTask) t;
        r.reset();
        if (r.kind == RdmaTask.K_RECV) {
            if (r.local == null) {
                r.result = DocaError.INVALID_VALUE;
            }
            if (verbs != null) {
                return verbs.postRecv((RdmaTaskReceive) r);
            }
            return postedRecvs.offer(r) ? DocaError.SUCCESS : DocaError.AGAIN;
        }
        RdmaConnection c = r.conn;
        if (c == null || c.rdma != this) {
            return DocaError.INVALID_VALUE;
        }
        if (c.endpoint == null || c.state() != RdmaConnectionState.ESTABLISHED) {
            return DocaError.NOT_CONNECTED;
        }
        r.result = resolve(r);
        return c.endpoint.submit(r);
    }

    /**
     * Checks a task against the rules of both sides before anything is touched, and computes the
     * remote target. Allocation-free.
     */
    DocaError resolve(RdmaTask t) {
        Buf local = t.local;
        if (local == null || local.mmap() == null) {
            return DocaError.INVALID_VALUE;
        }
        if (local.listLen() > maxSendBufListLen) {
            return DocaError.INVALID_VALUE;
        }
        RdmaConnectionBlob peer = t.conn.peer;
        int need;
        switch (t.kind) {
            case RdmaTask.K_SEND, RdmaTask.K_SEND_IMM -> {
                t.len = local.listDataLen();
                if (t.len > MAX_MESSAGE_SIZE) {
                    return DocaError.TOO_BIG;
                }
                return BufCopy.readableList(local) ? DocaError.SUCCESS : DocaError.NOT_SUPPORTED;
            }
            case RdmaTask.K_WRITE, RdmaTask.K_WRITE_IMM -> {
                t.len = local.listDataLen();
                if (t.len > MAX_MESSAGE_SIZE) {
                    return DocaError.TOO_BIG;
                }
                if (!BufCopy.readableList(local)) {
                    return DocaError.NOT_SUPPORTED;
                }
                if (t.len > t.remote.tailroomLen()) {
                    return DocaError.INVALID_VALUE;
                }
                t.rAddr = t.remote.data() + t.remote.dataLen();
                need = AccessFlags.RDMA_WRITE;
            }
            case RdmaTask.K_READ -> {
                t.len = t.remote.dataLen();
                if (t.len > MAX_MESSAGE_SIZE) {
                    return DocaError.TOO_BIG;
                }
                if (!BufCopy.writableList(local)) {
                    return DocaError.NOT_PERMITTED;
                }
                if (t.len > local.listTailroomLen()) {
                    return DocaError.INVALID_VALUE;
                }
                t.rAddr = t.remote.data();
                need = AccessFlags.RDMA_READ;
            }
            case RdmaTask.K_CAS, RdmaTask.K_FADD -> {
                t.len = 8;
                if (!BufCopy.writableList(local)) {
                    return DocaError.NOT_PERMITTED;
                }
                if (local.tailroomLen() < 8 || t.remote.addr() + t.remote.len() - t.remote.data() < 8) {
                    return DocaError.INVALID_VALUE;
                }
                t.rAddr = t.remote.data();
                need = AccessFlags.RDMA_ATOMIC;
            }
            case RdmaTask.K_SE_GET -> {
                t.len = 8;
                if (!BufCopy.writableList(local)) {
                    return DocaError.NOT_PERMITTED;
                }
                if (local.tailroomLen() < 8) {
                    return DocaError.INVALID_VALUE;
                }
                t.rAddr = t.event.address();
                need = AccessFlags.RDMA_READ;
            }
            case RdmaTask.K_SE_SET -> {
                t.len = 8;
                if (local.dataLen() < 8 || local.segment() == null) {
                    return DocaError.INVALID_VALUE;
                }
                t.rAddr = t.event.address();
                need = AccessFlags.RDMA_WRITE;
            }
            case RdmaTask.K_SE_ADD -> {
                t.len = 8;
                if (!BufCopy.writableList(local)) {
                    return DocaError.NOT_PERMITTED;
                }
                if (local.tailroomLen() < 8) {
                    return DocaError.INVALID_VALUE;
                }
                t.rAddr = t.event.address();
                need = AccessFlags.RDMA_ATOMIC;
            }
            default -> {
                return DocaError.UNEXPECTED;
            }
        }
        MemoryMap rm = t.remote != null ? t.remote.mmap() : t.event.mmap();
        if (rm == null || !rm.isStarted()) {
            return DocaError.BAD_STATE;
        }
        MmapExport ex = rm.importedFrom();
        // The remote memory must be the peer's, exported for RDMA: anything else is not this connection's to touch.
        if (ex == null || ex.kind() != MmapExport.Kind.RDMA || ex.pid() != peer.pid() || !ex.hostId().equals(peer.hostId())) {
            return DocaError.NOT_PERMITTED;
        }
        if ((ex.permissions() & need) == 0 || (peer.permissions() & need) == 0) {
            return DocaError.NOT_PERMITTED;
        }
        if (!rm.contains(t.rAddr, t.len)) {
            return DocaError.INVALID_VALUE;
        }
        if (t.len == 8 && t.kind != RdmaTask.K_READ && t.kind != RdmaTask.K_WRITE && t.kind != RdmaTask.K_WRITE_IMM
                && (t.rAddr & 7) != 0) {
            return DocaError.INVALID_VALUE;
        }
        t.rMap = rm;
        t.rMapId = ex.mapId();
        t.rCap0 = ex.cap0();
        t.rCap1 = ex.cap1();
        return DocaError.SUCCESS;
    }

    /** Completion hand-off for the endpoints (engine thread). */
    void done(RdmaTask t, DocaError status) {
        complete(t, status);
    }

    /** A connection hit a fatal error: the whole context stops, as DOCA does. */
    void connectionBroken(RdmaConnection c, DocaError reason, String why) {
        if (c.transition(RdmaConnectionState.FAILED) || c.state() == RdmaConnectionState.FAILED) {
            LOG.log(System.Logger.Level.WARNING, "rdma connection " + c.id + " lost: " + why + " (" + reason.docaName() + ")");
        }
        if (cmDisconnectCb != null && c.cm() && !c.cmReported) {
            c.cmReported = true;
            cmDisconnectCb.onDisconnect(c, c.userData());
        }
        // Fatal for the context (DOCA stops it) unless other connections still carry traffic.
        for (int i = 0; i < connections.size(); i++) {
            RdmaConnection o = connections.get(i);
            if (o != c && (o.state() == RdmaConnectionState.ESTABLISHED || o.state() == RdmaConnectionState.CONNECTING)) {
                return;
            }
        }
        if (fatal == null) {
            fatal = reason;
        }
        stopFromWithin();
    }

    /** Takes a posted receive (any consumer thread); null if none. */
    RdmaTaskReceive pollPostedRecv() {
        return (RdmaTaskReceive) postedRecvs.poll();
    }

    /**
     * True while {@link #work()} runs (engine thread): a transport may hold back what tasks
     * submitted from completion callbacks write, and send it all in {@link RdmaEndpoint#afterWork()}.
     */
    boolean inWork;

    @Override
    protected int work() {
        int n = 0;
        VerbsCm cm = verbsCm;
        if (cm != null) {
            n += cm.poll();
        }
        if (setupPending) {
            n += setupWork();
        }
        VerbsTransport vt = verbs;
        if (vt != null) {
            n += vt.poll();
            if (state() == io.jdoca.core.exec.CtxState.IDLE) {
                return n;
            }
        }
        RdmaConnection[] cs = active;
        inWork = true;
        try {
            for (int i = 0; i < cs.length; i++) {
                n += cs[i].endpoint.work();
                if (state() == io.jdoca.core.exec.CtxState.IDLE) {
                    // The last completion freed the last task: resources are released already.
                    return n;
                }
            }
        } finally {
            inWork = false;
            RdmaConnection[] now = active;
            for (int i = 0; i < now.length; i++) {
                now[i].endpoint.afterWork();
            }
        }
        if (stopping) {
            Object o;
            while ((o = postedRecvs.poll()) != null) {
                complete((RdmaTaskReceive) o, fatal == null ? DocaError.SHUTDOWN : fatal);
                n++;
            }
            vt = verbs;
            if (vt != null && vt.hasPostedRecvs() && allDrained()) {
                // Every QP is flushed: no message can still land in a posted receive.
                n += vt.flushRecvs(fatal == null ? DocaError.SHUTDOWN : fatal);
            }
        }
        return n;
    }

    private boolean allDrained() {
        RdmaConnection[] cs = active;
        for (int i = 0; i < cs.length; i++) {
            if (!cs[i].endpoint.isDrained()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean hasPendingWork() {
        VerbsCm cm = verbsCm;
        if (cm != null && cm.hasEvents()) {
            return true;
        }
        VerbsTransport vt = verbs;
        if (vt != null && (vt.hasPendingWork() || stopping && vt.hasPostedRecvs() && allDrained())) {
            return true;
        }
        RdmaConnection[] cs = active;
        for (int i = 0; i < cs.length; i++) {
            if (cs[i].endpoint.hasPendingWork()) {
                return true;
            }
        }
        return stopping && postedRecvs != null && !postedRecvs.isEmpty();
    }

    @Override
    public void beforeWait() {
        VerbsTransport vt = verbs;
        if (vt != null) {
            vt.beforeWait();
        }
        RdmaConnection[] cs = active;
        for (int i = 0; i < cs.length; i++) {
            if (cs[i].endpoint instanceof TcpEndpoint t) {
                t.beforeWait();
            }
        }
    }

    @Override
    public long maxSleepNanos() {
        long s = setupPending ? 1_000_000L : 100_000_000L;
        RdmaConnection[] cs = active;
        for (int i = 0; i < cs.length; i++) {
            s = Math.min(s, cs[i].endpoint.maxSleepNanos());
        }
        return s;
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
