package io.jdoca.storage.common;

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
 * §1 "Frame"). A server serves one client at a time; another connection attempt while one is
 * connected is accepted and closed at once.
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
    private String label;

    private TcpControlChannel(ServerSocketChannel server, SocketChannel peer, InetSocketAddress remote) {
        super(server != null);
        this.server = server;
        this.peer = peer;
        this.remote = remote;
    }

    /** {@code make_tcp_server_control_channel(port)}: listens on all addresses. */
    public static TcpControlChannel server(int port) {
        try {
            ServerSocketChannel s = ServerSocketChannel.open();
            s.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            s.bind(new InetSocketAddress(port), 1);
            s.configureBlocking(false);
            TcpControlChannel c = new TcpControlChannel(s, null, null);
            c.describe();
            return c;
        } catch (IOException e) {
            throw new DocaException(DocaError.OPERATING_SYSTEM, "cannot listen on TCP port " + port + ": " + e.getMessage(), e);
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
        if (server != null) {
            acceptPending();
        }
        SocketChannel p = peer;
        if (p == null) {
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
    }

    private void acceptPending() {
        try {
            SocketChannel c;
            while ((c = server.accept()) != null) {
                if (peer == null && !disconnected) {
                    c.configureBlocking(false);
                    c.setOption(StandardSocketOptions.SO_LINGER, -1);
                    peer = c;
                    LOG.log(Level.INFO, "{0}: client connected from {1}", describe(), c.getRemoteAddress());
                } else {
                    LOG.log(Level.WARNING, "{0}: refusing a second client from {1}", describe(), c.getRemoteAddress());
                    c.close();
                }
            }
        } catch (IOException e) {
            LOG.log(Level.WARNING, "{0}: accept failed: {1}", describe(), e.getMessage());
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
        if (server != null) {
            try {
                server.close();
            } catch (IOException ignored) {
                // best effort
            }
        }
    }
}
