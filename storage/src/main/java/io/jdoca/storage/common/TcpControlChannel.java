package io.jdoca.storage.common;

import io.jdoca.storage.wire.ControlCodec;
import io.jdoca.storage.wire.ControlFrameDecoder;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlProtocolException;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The TCP control channel (DOCA {@code posix/tcp_socket.cpp}): non-blocking sockets, at most 256
 * bytes read per poll, listen backlog 1, SO_REUSEADDR, SO_LINGER off, TCP_NODELAY not set (reference
 * §1 "Frame"). A server serves one client (one <em>session</em>) at a time. A second client while
 * one is connected is told it is busy: its first request is answered with
 * {@code error_response(IN_USE)} echoing its ids (or, if it sends nothing within
 * {@value #BUSY_GRACE_MILLIS} ms, an unsolicited one with ids 0), with a log line naming both peers,
 * and its connection is closed. When the client leaves, the channel reports
 * {@link #wasDisconnected()} and accepts nobody until the owner has released the session and called
 * {@link #nextSession()}; clients arriving meanwhile wait in the listen backlog.
 *
 * <p>Not thread-safe: the control thread only.
 */
public final class TcpControlChannel extends AbstractControlChannel {
    /** DOCA reads at most 256 bytes per poll (reference §1). */
    static final int READ_CHUNK = 256;

    private final ServerSocketChannel server;
    private final InetSocketAddress remote;
    private SocketChannel peer;
    private boolean disconnected;
    private final ByteBuffer rx = ByteBuffer.allocate(READ_CHUNK);
    private final java.util.List<Busy> busy = new java.util.ArrayList<>();
    private String label;
    private String peerName;
    private SocketChannel deferred;
    private String deferredName;

    /** How long a refused (busy) client may take to send its first request before it is told anyway. */
    static final long BUSY_GRACE_MILLIS = 2_000;

    /** A client turned away because another one holds the session. */
    private static final class Busy {
        final SocketChannel ch;
        final String from;
        final ControlFrameDecoder decoder = new ControlFrameDecoder();
        final long deadline = System.nanoTime() + BUSY_GRACE_MILLIS * 1_000_000L;
        boolean answered;

        Busy(SocketChannel ch, String from) {
            this.ch = ch;
            this.from = from;
        }
    }

    private TcpControlChannel(ServerSocketChannel server, SocketChannel peer, InetSocketAddress remote) {
        super(server != null);
        this.server = server;
        this.peer = peer;
        this.remote = remote;
    }

    /** {@code make_tcp_server_control_channel(port)}: listens on all addresses (DOCA's default). */
    public static TcpControlChannel server(int port) {
        return server(null, port);
    }

    /** Listens on {@code address} ({@code null}: every address, DOCA's default) and {@code port}. */
    public static TcpControlChannel server(java.net.InetAddress address, int port) {
        try {
            ServerSocketChannel s = ServerSocketChannel.open();
            s.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            s.bind(address == null ? new InetSocketAddress(port) : new InetSocketAddress(address, port), 1);
            s.configureBlocking(false);
            TcpControlChannel c = new TcpControlChannel(s, null, null);
            c.describe();
            return c;
        } catch (IOException e) {
            throw new DocaException(DocaError.OPERATING_SYSTEM, "cannot listen on TCP "
                    + (address == null ? "" : address.getHostAddress() + " ") + "port " + port + ": " + e.getMessage(), e);
        }
    }

    /**
     * {@code make_tcp_client_control_channel(addr)}: connects, retrying until {@code timeoutNanos}
     * passes (the server may still be starting).
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
                    return new TcpControlChannel(null, c, address);
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
    public java.net.InetAddress localAddress() {
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
     * Server: the owner has released everything the last client held; accept the next one (a fresh
     * frame decoder, nothing parked). No-op while a client is connected.
     */
    @Override
    public void nextSession() {
        if (server == null || peer != null) {
            return;
        }
        disconnected = false;
        resetPeerState();
        if (deferred != null) {
            peer = deferred;
            peerName = deferredName;
            deferred = null;
            LOG.log(Level.INFO, "{0}: client connected from {1}", describe(), peerName);
        }
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
        if (p == null) {
            if (server != null) {
                acceptPending();
                serveBusy();
            }
            return;
        }
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
        // Read the current client before accepting: a client that closed and a new one that
        // connected right after must not see the new one refused as busy.
        if (server != null) {
            acceptPending();
            serveBusy();
        }
    }

    private void acceptPending() {
        try {
            if (deferred != null || (peer == null && disconnected)) {
                return; // the last session is still being released: newcomers wait in the backlog
            }
            SocketChannel c;
            while ((c = server.accept()) != null) {
                c.configureBlocking(false);
                c.setOption(StandardSocketOptions.SO_LINGER, -1);
                String from = String.valueOf(c.getRemoteAddress());
                if (peer != null && !peerAlive()) {
                    // The client left just now (its EOF was not read yet): the newcomer is next, not refused.
                    deferred = c;
                    deferredName = from;
                    return;
                }
                if (peer == null) {
                    peer = c;
                    peerName = from;
                    LOG.log(Level.INFO, "{0}: client connected from {1}", describe(), from);
                    return; // one new client per poll: it is read before anyone else is accepted
                }
                LOG.log(Level.WARNING, "{0}: busy: refusing a second client from {1} (serving {2})", describe(), from,
                        peerName);
                busy.add(new Busy(c, from));
            }
        } catch (IOException e) {
            LOG.log(Level.WARNING, "{0}: accept failed: {1}", describe(), e.getMessage());
        }
    }

    /** Answers refused clients with error_response(IN_USE) and closes them once they have been told. */
    private void serveBusy() {
        for (int i = busy.size() - 1; i >= 0; i--) {
            Busy b = busy.get(i);
            boolean done = false;
            rx.clear();
            int n;
            try {
                n = b.ch.read(rx);
            } catch (IOException e) {
                n = -1;
            }
            if (n > 0) {
                b.decoder.feed(rx.array(), 0, n);
            }
            if (!b.answered) {
                ControlMessage first = null;
                try {
                    first = b.decoder.next();
                } catch (ControlProtocolException e) {
                    // unreadable: answered with ids 0 below
                }
                boolean late = System.nanoTime() - b.deadline > 0;
                if (first != null || n < 0 || late || b.decoder.isBroken()) {
                    String why = describe() + " is busy: it serves one client at a time and " + peerName
                            + " is connected; try again once it has disconnected";
                    ControlMessage err = first != null ? first.errorResponse(DocaError.IN_USE, why)
                            : ControlMessage.error(0, 0, DocaError.IN_USE, why);
                    try {
                        ByteBuffer out = ByteBuffer.wrap(ControlCodec.encode(err));
                        while (out.hasRemaining() && b.ch.write(out) > 0) {
                            // a small frame: the socket buffer takes it at once
                        }
                        b.ch.shutdownOutput();
                    } catch (IOException e) {
                        done = true;
                    }
                    b.answered = true;
                }
            }
            // Keep the answered socket until the client closes (or the grace ends), so that our close
            // does not reset the connection before it has read the answer.
            if (n < 0 || System.nanoTime() - b.deadline - BUSY_GRACE_MILLIS * 1_000_000L > 0) {
                done = true;
            }
            if (done) {
                try {
                    b.ch.close();
                } catch (IOException ignored) {
                    // already gone
                }
                busy.remove(i);
            }
        }
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
            try {
                p.close();
            } catch (IOException ignored) {
                // already gone
            }
        }
    }

    @Override
    public String describe() {
        if (label == null) {
            label = server != null ? "tcp-server:" + localPort() : "tcp-client:" + remote.getHostString() + ":" + remote.getPort();
        }
        return label;
    }

    @Override
    public void close() {
        closePeer();
        for (Busy b : busy) {
            try {
                b.ch.close();
            } catch (IOException ignored) {
                // best effort
            }
        }
        busy.clear();
        if (deferred != null) {
            try {
                deferred.close();
            } catch (IOException ignored) {
                // best effort
            }
            deferred = null;
        }
        if (server != null) {
            try {
                server.close();
            } catch (IOException ignored) {
                // best effort
            }
        }
    }
}
