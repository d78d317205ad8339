package io.jdoca.rdma;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.rdma.wire.RdmaConnectionBlob;
import io.jdoca.rdma.wire.TcpFrame;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Connection management of one {@link Rdma} context: the connection table, the out-of-band blob exchange
 * ({@code doca_rdma_export} / {@code doca_rdma_connect}), the TCP dial / accept hand-shake and the set-up work
 * that turns a connection ESTABLISHED or FAILED during progress. The CM-style mode (the blobs exchanged in-band,
 * or rdma_cm for VERBS) is {@link RdmaCmConnections}, which makes and connects its connections through this room.
 *
 * <p>Threads: engine thread, except the dial and accept helpers (virtual threads on the control
 * path), which only hand a socket or a blob to a connection and wake the engine.
 */
final class RdmaConnections {
    private static final System.Logger LOG = System.getLogger(Rdma.class.getName());
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Rdma rdma;
    private final List<RdmaConnection> connections = new ArrayList<>();
    /** Connections with an endpoint (engine thread; replaced, never mutated, when the table changes). */
    RdmaConnection[] active = new RdmaConnection[0];
    private final Map<Long, RdmaConnection> byNonce = new ConcurrentHashMap<>();
    private ServerSocketChannel listener;
    private Thread acceptor;
    private volatile boolean setupPending;
    private int nextConnId;
    /**
     * The TCP transport's agent of this run: started with the first TCP connection, closed when the context is idle.
     */
    private TcpTransportAgent tcpAgent;
    /** The CM-style mode (in-band blob exchange, rdma_cm): its listeners, requests and callbacks. */
    final RdmaCmConnections cm;

    RdmaConnections(Rdma rdma) {
        this.rdma = rdma;
        this.cm = new RdmaCmConnections(rdma, this);
    }

    // ------------------------------------------------------------------ connections (control path)

    /**
     * {@code doca_rdma_export}: a new connection of this context and the blob describing it. Call
     * after {@link #start()} (STARTING or RUNNING). Throws {@link DocaException} (BAD_STATE, or
     * NO_MEMORY if the SHM ring cannot be created).
     */
    RdmaExport export() {
        requireStartedForConnections();
        RdmaConnection c = newConnection();
        return new RdmaExport(blobOf(c), c);
    }

    RdmaConnection newConnection() {
        long nonce;
        do {
            nonce = RANDOM.nextLong();
        } while (nonce == 0 || byNonce.containsKey(nonce));
        RdmaConnection c = new RdmaConnection(rdma, nextConnId++, nonce);
        if (rdma.transport == RdmaTransportType.VERBS) {
            // The QP exists from export on (RESET → INIT), so its number goes into the blob.
            c.verbsEp = new VerbsEndpoint(rdma, c, rdma.verbs);
        } else if (rdma.transport != RdmaTransportType.TCP) {
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

    byte[] blobOf(RdmaConnection c) {
        int port = listener == null ? 0 : listener.socket().getLocalPort();
        String host = port == 0 ? "" : advertised();
        String ring = c.inbound == null ? "" : c.inbound.name();
        return new RdmaConnectionBlob(rdma.transport.code(), ProcessHandle.current().pid(), rdma.permissions, c.nonce,
                Rdma.HOST, port,
                host, ring, c.inbound == null ? 0 : c.ringCap0, c.inbound == null ? 0 : c.ringCap1,
                c.verbsEp == null ? null : c.verbsEp.info()).encode();
    }

    private String advertised() {
        if (rdma.advertisedHost != null) {
            return rdma.advertisedHost;
        }
        if (rdma.bindAddress != null && !rdma.bindAddress.isAnyLocalAddress()) {
            return rdma.bindAddress.getHostAddress();
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
    DocaError connect(byte[] peerBlob, RdmaConnection conn) {
        if (rdma.state() != CtxState.STARTING && rdma.state() != CtxState.RUNNING) {
            return DocaError.BAD_STATE;
        }
        if (conn == null || conn.rdma != rdma || conn.state() != RdmaConnectionState.IDLE) {
            return conn == null || conn.rdma != rdma ? DocaError.INVALID_VALUE : DocaError.BAD_STATE;
        }
        RdmaConnectionBlob peer;
        try {
            peer = RdmaConnectionBlob.decode(peerBlob);
        } catch (IllegalArgumentException e) {
            LOG.log(System.Logger.Level.WARNING, "rdma connect: " + e.getMessage());
            return DocaError.INVALID_VALUE;
        }
        boolean sameHost = Rdma.HOST.equals(peer.hostId());
        // Host names are refused, never resolved (issue 29 item 3); apps add their allow-list before connect.
        String refused = RdmaPeerAddresses.refusal(peer, sameHost, null);
        if (refused != null) {
            LOG.log(System.Logger.Level.WARNING, "rdma connect refused: " + refused);
            return DocaError.NOT_PERMITTED;
        }
        RdmaTransportType t = RdmaTransportType.resolve(rdma.transport, RdmaTransportType.fromCode(peer.transport()),
                sameHost);
        if (t == null || (t == RdmaTransportType.SHM && (peer.shmRegion().isEmpty() || conn.inbound == null))
                || (t == RdmaTransportType.TCP && (peer.tcpPort() == 0 || listener == null))
                || (t == RdmaTransportType.VERBS && (peer.verbs() == null || conn.verbsEp == null))) {
            LOG.log(System.Logger.Level.WARNING, "rdma connect: transports do not match (local " + rdma.transport
                    + ", peer "
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
                conn.endpoint = new ShmEndpoint(rdma, conn, rdma.sendQueueSize);
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

    void wake() {
        if (rdma.pe() != null) {
            rdma.pe().notifyWork();
        }
    }

    void requireStartedForConnections() {
        if (rdma.state() != CtxState.STARTING && rdma.state() != CtxState.RUNNING) {
            throw new DocaException(DocaError.BAD_STATE, "export/connect need a started RDMA context (state "
                    + rdma.state() + ")");
        }
    }

    /** The context's connections (control path; a copy). */
    List<RdmaConnection> connections() {
        return List.copyOf(connections);
    }

    /** Turns {@code c} FAILED (the CM failure callback for a CM connection); engine thread. */
    void fail(RdmaConnection c, String why) {
        c.failure = why;
        if (c.transition(RdmaConnectionState.FAILED)) {
            LOG.log(System.Logger.Level.WARNING, "rdma connection " + c.id + " failed: " + why);
            cm.reportFailure(c);
        }
    }

    /** Something for {@link #setupWork()}: a connection's progress or a CM request (any thread). */
    void markSetupPending() {
        setupPending = true;
    }

    /** Control work: establishing connections, CM hand-shakes. Runs only while something is pending. */
    private int setupWork() {
        boolean pending = false;
        int n = cm.serveRequests();
        for (int i = 0; i < connections.size(); i++) {
            RdmaConnection c = connections.get(i);
            if (c.cmInitiator && c.state() == RdmaConnectionState.IDLE) {
                pending |= cm.dialProgress(c);
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
                    c.endpoint = new TcpEndpoint(rdma, c, ch, rdma.sendQueueSize, rdma.recvQueueSize,
                            rdma.maxSendBufListLen);
                }
            }
            boolean up = c.endpoint instanceof ShmEndpoint s ? s.peerAttached() : c.endpoint != null;
            if (up) {
                if (c.endpoint instanceof TcpEndpoint t) {
                    t.startIo(tcpAgent());
                }
                c.transition(RdmaConnectionState.ESTABLISHED);
                n++;
                refreshActive();
                LOG.log(System.Logger.Level.DEBUG, "rdma connection " + c.id + " established over " + c.transport);
                cm.reportEstablished(c);
            } else if (System.nanoTime() - c.connectStartNanos > rdma.connectTimeoutNanos) {
                fail(c, "peer did not connect within " + rdma.connectTimeoutNanos / 1_000_000 + " ms");
                if (c.endpoint != null) {
                    c.endpoint.close(DocaError.CONNECTION_ABORTED);
                }
                refreshActive();
            } else {
                pending = true;
            }
        }
        if (rdma.state() == CtxState.STARTING) {
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
                rdma.completeStart(DocaError.NOT_CONNECTED);
            } else if (anyUp && !anyConnecting) {
                rdma.completeStart(DocaError.SUCCESS);
            }
        }
        boolean connecting = false;
        for (int i = 0; i < connections.size(); i++) {
            connecting |= connections.get(i).state() == RdmaConnectionState.CONNECTING;
        }
        setupPending = pending || connecting || cm.hasRequests();
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

    // ------------------------------------------------------------------ life cycle (engine thread)

    /** Start of a run: an empty table. */
    void reset() {
        connections.clear();
        active = new RdmaConnection[0];
        byNonce.clear();
    }

    /** Start of a TCP-capable run: the listener peers dial (DOCA's blob carries its port). */
    DocaError openListener() {
        try {
            ServerSocketChannel ss = ServerSocketChannel.open();
            ss.bind(new InetSocketAddress(rdma.bindAddress, 0));
            listener = ss;
            acceptor = Thread.ofPlatform().daemon().name("jdoca-rdma-accept").start(() -> acceptLoop(ss));
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "rdma: cannot open a TCP listener: " + e);
            return DocaError.OPERATING_SYSTEM;
        }
        return DocaError.SUCCESS;
    }

    /** Stop: every connection closes with {@code reason}; the listeners close. */
    void closeAll(DocaError reason) {
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
        } catch (IOException ignored) {
            // best effort
        }
        listener = null;
        acceptor = null;
        cm.closeListeners();
    }

    /** Whether every active endpoint is closed and has completed all it held. */
    boolean allDrained() {
        RdmaConnection[] cs = active;
        for (int i = 0; i < cs.length; i++) {
            if (!cs[i].endpoint.isDrained()) {
                return false;
            }
        }
        return true;
    }

    /** This run's TCP transport agent if the engine's progress runs it ({@code INVOKER}), else null. Engine thread. */
    TcpTransportAgent invokedAgent() {
        TcpTransportAgent a = tcpAgent;
        return a != null && a.invoked() ? a : null;
    }

    /** Engine thread: a receive was posted to the context (a tcp message waiting for one is served at once). */
    void recvPosted() {
        TcpTransportAgent a = tcpAgent;
        if (a != null) {
            a.recvPosted();
        }
    }

    /** This run's TCP transport agent, started on first use (control path); null (logged) if it cannot start. */
    private TcpTransportAgent tcpAgent() {
        if (tcpAgent == null) {
            try {
                tcpAgent = rdma.tcpThreading == TcpTransportAgent.Threading.INVOKER
                        ? TcpTransportAgent.forEngine(rdma.pe()) : TcpTransportAgent.start();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "rdma: cannot start the tcp transport agent: " + e.getMessage());
            }
        }
        return tcpAgent;
    }

    /** The context became idle: free every connection's resources, report CM disconnections, drop rdma_cm. */
    void release() {
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
            if (c.state() != RdmaConnectionState.IDLE) {
                cm.reportDisconnect(c);
            }
        }
        active = new RdmaConnection[0];
        byNonce.clear();
        if (tcpAgent != null) {
            // Every TCP endpoint is drained (the agent let each go): the thread and its selector end.
            tcpAgent.close();
            tcpAgent = null;
        }
        cm.release();
    }

    /** One duty cycle of connection management: rdma_cm events, then set-up work while something is pending. */
    int work() {
        int n = cm.poll();
        if (setupPending) {
            n += setupWork();
        }
        return n;
    }

    boolean hasCmEvents() {
        return cm.hasEvents();
    }

    boolean setupPending() {
        return setupPending;
    }

    /** A connection hit a fatal error: the whole context stops, as DOCA does. */
    void connectionBroken(RdmaConnection c, DocaError reason, String why) {
        if (c.transition(RdmaConnectionState.FAILED) || c.state() == RdmaConnectionState.FAILED) {
            LOG.log(System.Logger.Level.WARNING, "rdma connection " + c.id + " lost: " + why + " (" + reason.docaName()
                    + ")");
        }
        cm.reportDisconnect(c);
        // Fatal for the context (DOCA stops it) unless other connections still carry traffic.
        for (int i = 0; i < connections.size(); i++) {
            RdmaConnection o = connections.get(i);
            if (o != c && (o.state() == RdmaConnectionState.ESTABLISHED
                    || o.state() == RdmaConnectionState.CONNECTING)) {
                return;
            }
        }
        rdma.stopOnFatal(reason);
    }
}
