package io.jdoca.rdma;

import io.jdoca.core.DocaError;
import io.jdoca.core.exec.CtxState;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * DOCA's CM-style connection management of one {@link Rdma} context ({@code doca_rdma_start_listen_to_port},
 * {@code doca_rdma_connect_to_addr}, {@code doca_rdma_connection_accept} / {@code _reject} / {@code _disconnect},
 * {@code doca_rdma_set_connection_state_callbacks}): the blobs of {@link RdmaConnections} exchanged in-band over a
 * socket (SHM, TCP), or rdma_cm's hand-shake for VERBS through {@link VerbsCm}. The connections themselves, their
 * table and their establishment stay with {@link RdmaConnections}; this room reports their life to the CM callbacks.
 *
 * <p>Threads: engine thread (the control path), except the CM listener's accept loop and the CM dial (virtual
 * threads), which only hand a socket's peer blob or a failure to a connection ({@link #incoming} queue, volatile
 * fields), mark the set-up work pending and wake the engine.
 */
final class RdmaCmConnections {
    private static final System.Logger LOG = System.getLogger(Rdma.class.getName());

    private final Rdma rdma;
    private final RdmaConnections conns;
    /** VERBS CM mode through rdma_cm: made by the first startListenToPort / connectToAddr of a run. */
    private VerbsCm verbsCm;
    private ServerSocketChannel listener;
    /** Connection requests for the request callback (CM helpers and VerbsCm → engine thread). */
    private final ConcurrentLinkedQueue<RdmaConnection> incoming = new ConcurrentLinkedQueue<>();
    private RdmaCmCallbacks.ConnectionRequest requestCb;
    private RdmaCmCallbacks.ConnectionEstablished establishedCb;
    private RdmaCmCallbacks.ConnectionFailure failureCb;
    private RdmaCmCallbacks.ConnectionDisconnection disconnectCb;

    RdmaCmConnections(Rdma rdma, RdmaConnections conns) {
        this.rdma = rdma;
        this.conns = conns;
    }

    // ------------------------------------------------------------------ the DOCA calls (control path)

    /** Callbacks of the CM-style mode ({@code doca_rdma_set_connection_state_callbacks}); IDLE only. */
    DocaError setConnectionStateCallbacks(RdmaCmCallbacks.ConnectionRequest request,
            RdmaCmCallbacks.ConnectionEstablished established, RdmaCmCallbacks.ConnectionFailure failure,
            RdmaCmCallbacks.ConnectionDisconnection disconnection) {
        if (rdma.state() != CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        this.requestCb = request;
        this.establishedCb = established;
        this.failureCb = failure;
        this.disconnectCb = disconnection;
        return DocaError.SUCCESS;
    }

    /**
     * {@code doca_rdma_start_listen_to_port}: accept CM-style connections on {@code port} (0: any;
     * see {@link #listenPort()}). Each incoming connection is reported to the request callback,
     * which answers with {@link #connectionAccept} or {@link #connectionReject}. Call after start().
     */
    DocaError startListenToPort(int port) {
        if (rdma.state() != CtxState.STARTING && rdma.state() != CtxState.RUNNING) {
            return DocaError.BAD_STATE;
        }
        if (listener != null) {
            return DocaError.IN_USE;
        }
        if (rdma.verbs != null) {
            VerbsCm cm = verbsCm();
            return cm == null ? DocaError.DRIVER : cm.listen(rdma.bindAddress, port);
        }
        try {
            ServerSocketChannel ss = ServerSocketChannel.open();
            ss.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            ss.bind(new InetSocketAddress(rdma.bindAddress, port));
            listener = ss;
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "rdma: cannot listen on port " + port + ": " + e);
            return DocaError.OPERATING_SYSTEM;
        }
        ServerSocketChannel ss = listener;
        Thread.ofVirtual().name("jdoca-rdma-cm-listen").start(() -> {
            while (ss.isOpen()) {
                try {
                    SocketChannel ch = ss.accept();
                    Thread.ofVirtual().start(() -> onAccepted(ch));
                } catch (IOException e) {
                    return;
                }
            }
        });
        return DocaError.SUCCESS;
    }

    /** The CM listening port, or 0. */
    int listenPort() {
        if (verbsCm != null) {
            return verbsCm.listenPort();
        }
        return listener == null ? 0 : listener.socket().getLocalPort();
    }

    /** This run's rdma_cm side (VERBS), made on first use; null (logged) if rdma_cm is unusable. */
    private VerbsCm verbsCm() {
        return verbsCm != null ? verbsCm : (verbsCm = VerbsCm.open(rdma, rdma.verbs));
    }

    /** VerbsCm: a request arrives while the context stops: it is rejected. */
    boolean stopping() {
        return rdma.stopping || (rdma.state() != CtxState.STARTING
                && rdma.state() != CtxState.RUNNING);
    }

    /** VerbsCm: a connection request for the request callback, or a connection's progress for the set-up work. */
    void setupPending(RdmaConnection request) {
        if (request != null) {
            incoming.add(request);
        }
        conns.markSetupPending();
    }

    /** CM helper (virtual thread): a dialler's blob, handed to the engine thread as a request placeholder. */
    private void onAccepted(SocketChannel ch) {
        try {
            ch.socket().setSoTimeout(5000);
            byte[] blob = CmWire.readBlob(ch);
            // Hand-over to the engine thread, which owns the connection list.
            RdmaConnection placeholder = new RdmaConnection(rdma, -1, 0);
            placeholder.cmChannel = ch;
            placeholder.cmPeerBlob = blob;
            incoming.add(placeholder);
            conns.markSetupPending();
            conns.wake();
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
    DocaError connectionAccept(RdmaConnection request) {
        if (request != null && request.verbsCm != null) {
            return verbsCm == null ? DocaError.BAD_STATE : verbsCm.acceptRequest(request);
        }
        SocketChannel ch = request.cmChannel;
        if (ch == null || request.cmPeerBlob == null) {
            return DocaError.INVALID_VALUE;
        }
        RdmaConnection c = conns.newConnection();
        c.setUserData(request.userData());
        c.cmChannel = ch;
        byte[] mine = conns.blobOf(c);
        try {
            CmWire.writeBlob(ch, mine);
            ch.close();
        } catch (IOException e) {
            conns.fail(c, "CM accept: " + e);
            return DocaError.CONNECTION_ABORTED;
        }
        request.cmChannel = null;
        return conns.connect(request.cmPeerBlob, c);
    }

    /** {@code doca_rdma_connection_reject}. */
    DocaError connectionReject(RdmaConnection request) {
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
    RdmaConnection connectToAddr(InetSocketAddress addr, long connUserData) {
        conns.requireStartedForConnections();
        RdmaConnection c = conns.newConnection();
        c.setUserData(connUserData);
        c.cmInitiator = true;
        if (rdma.verbs != null) {
            // rdma_cm: resolve address and route, then connect with our private data; the events drive the rest.
            VerbsCm.connecting(c);
            conns.markSetupPending();
            VerbsCm cm = verbsCm();
            if (cm == null) {
                c.failure = "CM connect to " + addr + ": rdma_cm is not usable";
            } else {
                cm.connect(c, addr);
            }
            return c;
        }
        byte[] mine = conns.blobOf(c);
        conns.markSetupPending();
        Thread.ofVirtual().name("jdoca-rdma-cm-dial").start(() -> {
            try (SocketChannel ch = SocketChannel.open()) {
                ch.connect(addr);
                ch.socket().setSoTimeout(10_000);
                CmWire.writeBlob(ch, mine);
                c.cmPeerBlob = CmWire.readBlob(ch);
            } catch (IOException | RuntimeException e) {
                c.failure = "CM connect to " + addr + ": " + e;
            }
            conns.wake();
        });
        return c;
    }

    /** {@code doca_rdma_connection_disconnect}: closes one connection; its tasks complete with SHUTDOWN. */
    DocaError connectionDisconnect(RdmaConnection c) {
        if (c == null || c.rdma != rdma || c.endpoint == null) {
            return DocaError.INVALID_VALUE;
        }
        c.endpoint.close(DocaError.SHUTDOWN);
        c.transition(RdmaConnectionState.DISCONNECTED);
        return DocaError.SUCCESS;
    }

    // ------------------------------------------------------------------ set-up work and life cycle (engine thread)

    /** Set-up work: each queued request goes to the request callback (accepted if there is none); how many. */
    int serveRequests() {
        int n = 0;
        RdmaConnection c;
        while ((c = incoming.poll()) != null) {
            n++;
            if (requestCb != null) {
                requestCb.onRequest(c, rdma.userData());
            } else {
                connectionAccept(c);
            }
        }
        return n;
    }

    /** Whether requests wait for {@link #serveRequests()}. */
    boolean hasRequests() {
        return !incoming.isEmpty();
    }

    /**
     * Set-up work for a connection this side dials with {@link #connectToAddr} while it is still IDLE: connects it
     * once the peer's blob is in, fails it on the dial's failure. Returns whether it is still pending.
     */
    boolean dialProgress(RdmaConnection c) {
        byte[] pb = c.cmPeerBlob;
        if (pb != null) {
            DocaError e = conns.connect(pb, c);
            if (e != DocaError.SUCCESS) {
                conns.fail(c, "CM connect: " + e);
                return false;
            }
            return true;
        } else if (c.failure != null) {
            conns.fail(c, c.failure);
            return false;
        }
        return true;
    }

    /** The established callback, for a CM connection. */
    void reportEstablished(RdmaConnection c) {
        if (establishedCb != null && c.cm()) {
            establishedCb.onEstablished(c, c.userData());
        }
    }

    /** The failure callback, for a CM connection that just turned FAILED. */
    void reportFailure(RdmaConnection c) {
        if (failureCb != null && c.cm()) {
            failureCb.onFailure(c, c.userData());
        }
    }

    /** The disconnection callback, once per CM connection. */
    void reportDisconnect(RdmaConnection c) {
        if (disconnectCb != null && c.cm() && !c.cmReported) {
            c.cmReported = true;
            disconnectCb.onDisconnect(c, c.userData());
        }
    }

    /** rdma_cm's events of this run (VERBS); how many things happened. */
    int poll() {
        VerbsCm cm = verbsCm;
        return cm != null ? cm.poll() : 0;
    }

    boolean hasEvents() {
        VerbsCm cm = verbsCm;
        return cm != null && cm.hasEvents();
    }

    /** Stop: the CM listeners close (the socket's and rdma_cm's). */
    void closeListeners() {
        try {
            if (listener != null) {
                listener.close();
            }
        } catch (IOException ignored) {
            // best effort
        }
        listener = null;
        if (verbsCm != null) {
            verbsCm.closeListeners();
        }
    }

    /** The context became idle: rdma_cm is dropped. */
    void release() {
        if (verbsCm != null) {
            // The rdma_cm ids are not attached to the QPs (jdoca owns them): disconnect and destroy them first.
            verbsCm.release();
            verbsCm = null;
        }
    }
}
