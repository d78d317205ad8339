package io.jdoca.storage.common;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlProtocolException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The TCP control channel (DOCA {@code posix/tcp_socket.cpp}): non-blocking sockets, at most 256
 * bytes read per poll, listen backlog 1, SO_REUSEADDR, SO_LINGER off, TCP_NODELAY not set (reference
 * §1 "Frame"). A server serves one client (one <em>session</em>) at a time.
 *
 * <p><b>Handshake (issue 29 item 1).</b> A new connection is first <em>pending</em>
 * ({@link PendingControlClient}): it gets the session only once it has sent a complete, valid first
 * request within the handshake deadline ({@link #DEFAULT_HANDSHAKE_MILLIS} unless the owner says
 * otherwise). A connection that stays silent, sends a partial frame or closes first is closed at
 * its deadline and logged with its address; so a stalled or half-open client holds nothing, and the
 * real client behind it is served as soon as its first request is in. At most
 * {@link #MAX_PENDING} connections wait at a time; a newcomer beyond that closes the oldest one
 * still in its handshake. A client whose first request arrives while another one holds the session
 * is told it is busy ({@code error_response(IN_USE)} echoing its ids, with a log line naming both
 * peers) and closed. When the session's client leaves, the channel reports {@link #wasDisconnected()}
 * and hands the session to nobody until the owner has released it and called {@link #nextSession()}.
 *
 * <p>Not thread-safe: the control thread only.
 */
public final class TcpControlChannel extends AbstractControlChannel {
    /** DOCA reads at most 256 bytes per poll (reference §1). */
    static final int READ_CHUNK = 256;
    /**
     * How long a new connection may take to send its first whole request (target-rdma's {@code
     * --handshake-timeout-ms}).
     */
    public static final long DEFAULT_HANDSHAKE_MILLIS = 5_000;
    /** Connections that have not got the session (handshake, waiting, being refused) per listener. */
    static final int MAX_PENDING = 16;
    /** New connections taken per poll: a flood of connects cannot keep the control thread in accept(). */
    private static final int ACCEPTS_PER_POLL = 32;

    private final ServerSocketChannel server;
    private final InetSocketAddress remote;
    private final long handshakeNanos;
    private SocketChannel peer;
    private InetAddress peerAddress;
    private boolean disconnected;
    private final ByteBuffer rx = ByteBuffer.allocate(READ_CHUNK);
    private final List<PendingControlClient> pending = new ArrayList<>();
    private final PendingControlClient.LogBudget logBudget = new PendingControlClient.LogBudget();
    private String label;
    private String peerName;
    private long handshakeTimeouts;

    private TcpControlChannel(ServerSocketChannel server, SocketChannel peer, InetSocketAddress remote,
            long handshakeNanos) {
        super(server != null);
        this.server = server;
        this.peer = peer;
        this.remote = remote;
        this.handshakeNanos = handshakeNanos;
    }

    /** {@code make_tcp_server_control_channel(port)} on jdoca's default address (127.0.0.1). */
    public static TcpControlChannel server(int port) {
        return server(null, port);
    }

    /** Listens on {@code address} ({@code null}: {@link AppSupport#DEFAULT_LISTEN_ADDRESS}) and {@code port}. */
    public static TcpControlChannel server(InetAddress address, int port) {
        return server(address, port, DEFAULT_HANDSHAKE_MILLIS * 1_000_000L);
    }

    /** As {@link #server(InetAddress, int)}, with the handshake deadline of a new connection. */
    public static TcpControlChannel server(InetAddress address, int port, long handshakeNanos) {
        if (handshakeNanos <= 0) {
            throw new DocaException(DocaError.INVALID_VALUE, "the handshake deadline must be > 0");
        }
        InetAddress bind = address == null ? AppSupport.defaultListenAddress() : address;
        try {
            ServerSocketChannel s = ServerSocketChannel.open();
            s.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            s.bind(new InetSocketAddress(bind, port), 1);
            s.configureBlocking(false);
            TcpControlChannel c = new TcpControlChannel(s, null, null, handshakeNanos);
            c.describe();
            return c;
        } catch (IOException e) {
            throw new DocaException(DocaError.OPERATING_SYSTEM, "cannot listen on TCP " + bind.getHostAddress()
                    + " port "
                    + port + ": " + e.getMessage(), e);
        }
    }

    /**
     * {@code make_tcp_client_control_channel(addr)}: connects, retrying until {@code timeoutNanos}
     * passes (the server may still be starting). A client sends its first request at once: a
     * server closes a connection that is silent past its handshake deadline.
     */
    public static TcpControlChannel client(InetSocketAddress address, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        IOException last = null;
        while (true) {
            try {
                SocketChannel c = SocketChannel.open();
                try {
                    c.connect(address);
                    c.setOption(StandardSocketOptions.SO_LINGER, -1);
                    c.configureBlocking(false);
                    return new TcpControlChannel(null, c, address, 1);
                } catch (IOException e) {
                    c.close();
                    throw e;
                }
            } catch (IOException e) {
                last = e;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new DocaException(DocaError.CONNECTION_ABORTED,
                        "cannot connect to storage server " + address.getHostString() + ":" + address.getPort() + ": "
                                + (last == null ? "timeout" : last.getMessage()), last);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new DocaException(DocaError.CONNECTION_ABORTED, "interrupted while connecting to " + address);
            }
        }
    }

    /** The bound port of a server channel. */
    public int localPort() {
        try {
            return ((InetSocketAddress) (server != null ? server.getLocalAddress() : peer.getLocalAddress())).getPort();
        } catch (IOException e) {
            throw new DocaException(DocaError.OPERATING_SYSTEM, "cannot read local address", e);
        }
    }

    /** The bound address of a server channel (wildcard when listening on every address). */
    public InetAddress localAddress() {
        try {
            return ((InetSocketAddress) server.getLocalAddress()).getAddress();
        } catch (IOException e) {
            throw new DocaException(DocaError.OPERATING_SYSTEM, "cannot read local address", e);
        }
    }

    /** The connected client's address, for logs (null when none). */
    public String peerName() {
        return peerName;
    }

    /**
     * The address the session's client connects from (server), or the server's (client); null when
     * none. The storage apps let a peer's RDMA blob name only this address (issue 29 item 3).
     */
    public InetAddress peerAddress() {
        return server != null ? peerAddress : remote.getAddress();
    }

    @Override
    public String peerDescription() {
        return server != null ? peerName : String.valueOf(remote);
    }

    /** Connections closed because their first request was not complete within the handshake deadline. */
    public long handshakeTimeouts() {
        return handshakeTimeouts;
    }

    /** Connections waiting for the session (in their handshake, waiting or being refused); for tests. */
    int pendingCount() {
        return pending.size();
    }

    /**
     * Server: the owner has released everything the last client held; a client whose first request
     * is in gets the session at the next poll (fresh framing, nothing parked). No-op while a client
     * is connected.
     */
    @Override
    public void nextSession() {
        if (server == null || peer != null) {
            return;
        }
        disconnected = false;
        resetPeerState();
    }

    /** Reads the current client once (buffering what it sent); false once it has closed. */
    private boolean peerAlive() {
        rx.clear();
        int n;
        try {
            n = peer.read(rx);
        } catch (IOException e) {
            n = -1;
        }
        if (n > 0) {
            decoder.feed(rx.array(), 0, n);
        } else if (n < 0) {
            closePeer();
            return false;
        }
        return true;
    }

    @Override
    public boolean isConnected() {
        return peer != null;
    }

    @Override
    public boolean wasDisconnected() {
        return disconnected;
    }

    @Override
    protected void pump() {
        SocketChannel p = peer;
        if (p != null) {
            rx.clear();
            int n;
            try {
                n = p.read(rx);
            } catch (IOException e) {
                LOG.log(Level.INFO, "{0}: connection lost: {1}", describe(), e.getMessage());
                n = -1;
            }
            if (n > 0) {
                decoder.feed(rx.array(), 0, n);
            } else if (n < 0) {
                closePeer();
            }
        }
        // The current client is read before newcomers: one that closed and a new one that connected
        // right after must not see the new one refused as busy.
        if (server != null) {
            acceptNew();
            servePending();
        }
    }

    private void acceptNew() {
        try {
            SocketChannel c;
            for (int i = 0; i < ACCEPTS_PER_POLL && (c = server.accept()) != null; i++) {
                c.configureBlocking(false);
                c.setOption(StandardSocketOptions.SO_LINGER, -1);
                InetSocketAddress from = (InetSocketAddress) c.getRemoteAddress();
                if (pending.size() >= MAX_PENDING && !evictOne()) {
                    logBudget.warn(describe() + ": " + MAX_PENDING + " clients are waiting for the session; closing "
                            + from + " at once");
                    PendingControlClient.closeQuietly(c);
                    continue;
                }
                pending.add(new PendingControlClient(c, from, System.nanoTime() + handshakeNanos));
            }
        } catch (IOException e) {
            LOG.log(Level.WARNING, "{0}: accept failed: {1}", describe(), e.getMessage());
        }
    }

    /**
     * Makes room for a newcomer: closes the oldest connection still in its handshake (else one being
     * refused). A candidate is read first: one whose first request has arrived meanwhile is spared, so
     * a burst of connects cannot push out a real client that has not been read yet.
     */
    private boolean evictOne() {
        for (PendingControlClient.Stage s : new PendingControlClient.Stage[] {PendingControlClient.Stage.HANDSHAKE,
                PendingControlClient.Stage.REFUSED}) {
            for (int i = 0; i < pending.size(); i++) {
                PendingControlClient p = pending.get(i);
                if (p.stage() != s) {
                    continue;
                }
                boolean done = s == PendingControlClient.Stage.HANDSHAKE && handshake(p, p.read(rx));
                if (!done && p.stage() == PendingControlClient.Stage.READY) {
                    continue; // its request is in: it waits for the session, another one goes
                }
                if (!done && s == PendingControlClient.Stage.HANDSHAKE) {
                    logBudget.warn(describe() + ": " + MAX_PENDING + " connections without a first request; closing"
                            + " the oldest, from " + p.from() + " (connected " + p.ageMillis() + " ms ago)");
                }
                p.close();
                pending.remove(i);
                return true;
            }
        }
        return false;
    }

    /** Moves every waiting connection on: handshake, session hand-over, busy refusal, deadlines. */
    private void servePending() {
        boolean handedOver = false;
        for (int i = 0; i < pending.size(); i++) {
            PendingControlClient p = pending.get(i);
            int n = p.read(rx);
            boolean done = switch (p.stage()) {
                case HANDSHAKE -> handshake(p, n);
                case READY -> {
                    if (n < 0) {
                        LOG.log(Level.INFO, "{0}: {1} left before it got the session", describe(), p.from());
                        yield true;
                    }
                    if (peer != null && peerAlive()) {
                        refuseBusy(p);
                        yield false;
                    }
                    if (peer == null && !disconnected && !handedOver) {
                        handOver(p);
                        handedOver = true; // one new client per poll: it is read before anyone else gets in
                        yield true;
                    }
                    yield false; // the last session is still being released: it waits its turn
                }
                case REFUSED -> n < 0 || p.lingerOver();
            };
            if (done) {
                if (p.stage() != PendingControlClient.Stage.READY) {
                    p.close();
                }
                pending.remove(i--);
            }
        }
    }

    /** A connection in its handshake: READY once a valid first request is in; true when it is to be closed. */
    private boolean handshake(PendingControlClient p, int n) {
        ControlMessage first;
        try {
            first = p.decoder().next();
        } catch (ControlProtocolException e) {
            logBudget.warn(describe() + ": closing " + p.from() + ": its first frame is not a control request: "
                    + e.getMessage());
            p.answerAndShutdown(ControlMessage.error(e.messageId(), e.correlationId(), e.error(), e.getMessage()));
            return true;
        }
        if (first != null) {
            if (first.type().responseType() == null) {
                logBudget.warn(describe() + ": closing " + p.from() + ": its first message is a "
                        + first.type().wireName() + ", not a request");
                p.answerAndShutdown(first.errorResponse(DocaError.UNEXPECTED, describe()
                        + ": a client's first message must be a request"));
                return true;
            }
            p.ready(first);
            return false;
        }
        if (n < 0) {
            LOG.log(Level.INFO, "{0}: {1} closed before sending a request", describe(), p.from());
            return true;
        }
        if (p.handshakeOver()) {
            handshakeTimeouts++;
            logBudget.warn(describe() + ": closing " + p.from() + ": no complete control request within "
                    + handshakeNanos / 1_000_000 + " ms of connecting (" + p.decoder().buffered()
                    + " bytes received; the handshake deadline)");
            return true;
        }
        return false;
    }

    private void refuseBusy(PendingControlClient p) {
        LOG.log(Level.WARNING, "{0}: busy: refusing a second client from {1} (serving {2})", describe(), p.from(),
                peerName);
        String why = describe() + " is busy: it serves one client at a time and " + peerName
                + " is connected; try again once it has disconnected";
        p.answerAndShutdown(p.first().errorResponse(DocaError.IN_USE, why));
    }

    private void handOver(PendingControlClient p) {
        peer = p.channel();
        peerAddress = p.from().getAddress();
        peerName = String.valueOf(p.from());
        decoder = p.decoder();
        park(p.first());
        LOG.log(Level.INFO, "{0}: client connected from {1}", describe(), peerName);
    }

    @Override
    protected void write(byte[] frame) {
        SocketChannel p = peer;
        if (p == null) {
            throw new DocaException(DocaError.NOT_CONNECTED, describe() + ": not connected");
        }
        ByteBuffer b = ByteBuffer.wrap(frame);
        try {
            while (b.hasRemaining()) {
                if (p.write(b) == 0) {
                    Thread.onSpinWait();
                }
            }
        } catch (IOException e) {
            closePeer();
            throw new DocaException(DocaError.CONNECTION_RESET, describe() + ": send failed: " + e.getMessage(), e);
        }
    }

    @Override
    protected void dropPeer() {
        closePeer();
    }

    private void closePeer() {
        SocketChannel p = peer;
        peer = null;
        if (p != null) {
            disconnected = true;
            PendingControlClient.closeQuietly(p);
        }
    }

    @Override
    public String describe() {
        if (label == null) {
            label = server != null ? "tcp-server:" + localPort() : "tcp-client:" + remote.getHostString() + ":"
                    + remote.getPort();
        }
        return label;
    }

    @Override
    public void close() {
        closePeer();
        for (PendingControlClient p : pending) {
            p.close();
        }
        pending.clear();
        if (server != null) {
            try {
                server.close();
            } catch (IOException ignored) {
                // best effort
            }
        }
    }
}
