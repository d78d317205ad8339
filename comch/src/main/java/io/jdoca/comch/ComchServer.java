package io.jdoca.comch;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.DevRep;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The DPU side of Comch ({@code doca_comch_server}): listens under a channel name and serves one
 * client at a time; a second client is rejected with a reason while the first is connected.
 * {@link #start()} completes synchronously (RUNNING) once the rendezvous socket is bound; IN_USE if
 * another live server holds the name ({@link #holder()} then says who, issue 29 item 4).
 *
 * <p>A connecting process must be of this user (its socket credentials) and say HELLO with its
 * {@link ComchIdentity} within {@link #HELLO_NANOS}; it is admitted with an ACCEPT that carries this
 * server's identity ({@link #setIdentity}). A HELLO that only probes is answered with the identity and
 * closed, without becoming a client.
 *
 * <p>Not thread-safe: configure, start, stop and progress on one thread.
 */
public final class ComchServer extends ComchEndpoint {
    private final Dev dev;
    private final DevRep rep;
    private final String channelName;
    private final Path socketPath;
    private ServerSocketChannel listener;
    private ComchConnection connection;
    private ComchEventConnectionStatus connectionCb;
    private long rejected;
    private static final long ACCEPT_POLL_NANOS = 10_000_000L;
    private long nextAccept;
    /** How long an accepted connection may take to say HELLO. */
    static final long HELLO_NANOS = 5_000_000_000L;
    /** Accepted connections that have not said HELLO yet, at most {@link #MAX_GREETING}. */
    private final java.util.List<ComchConnection> greeting = new java.util.ArrayList<>();
    private static final int MAX_GREETING = 8;
    private volatile ComchIdentity identity = ComchIdentity.of("comch-server", "");
    private ComchIdentity holder;

    private ComchServer(Dev dev, DevRep rep, String channelName) {
        super("comch-server:" + channelName);
        this.dev = dev;
        this.rep = rep;
        this.channelName = channelName;
        this.socketPath = Comch.socketPath(channelName);
    }

    /** {@code doca_comch_server_create(dev, repr, name)}; {@code rep} may be null (no representor filter). */
    public static ComchServer create(Dev dev, DevRep rep, String name) {
        if (dev == null) {
            throw new DocaException(DocaError.INVALID_VALUE, "comch server needs a device");
        }
        try {
            Comch.sanitize(name);
        } catch (IllegalArgumentException e) {
            throw new DocaException(DocaError.INVALID_VALUE, "bad comch channel name: " + e.getMessage());
        }
        return new ComchServer(dev, rep, name);
    }

    /** {@code doca_comch_server_event_connection_status_changed_register}; IDLE only. */
    public DocaError eventConnectionStatusChangedRegister(ComchEventConnectionStatus cb) {
        if (state() != io.jdoca.core.exec.CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        this.connectionCb = cb;
        return DocaError.SUCCESS;
    }

    public String channelName() {
        return channelName;
    }

    public Dev dev() {
        return dev;
    }

    public DevRep rep() {
        return rep;
    }

    /** The connected client, or null. */
    public ComchConnection connection() {
        return connection;
    }

    /** This server's identity, sent to every client in its ACCEPT (any time; the next client gets it). */
    public void setIdentity(ComchIdentity id) {
        this.identity = id;
    }

    /** The live server that holds this channel name, found by a failed {@link #start()} (IN_USE); null if unknown. */
    public ComchIdentity holder() {
        return holder;
    }

    /** Clients turned away because one was already connected. */
    public long rejectedClients() {
        return rejected;
    }

    @Override
    protected DocaError onStart() {
        stopping = false;
        try {
            try {
                Comch.ensurePrivateRuntimeDir();
            } catch (IOException e) {
                LOG.log(Level.WARNING, "{0}: refusing an unsafe comch directory: {1}", name(), e.getMessage());
                return DocaError.NOT_PERMITTED;
            }
            holder = null;
            if (Files.exists(socketPath)) {
                // A live server answers (with its identity); a stale file from a dead one does not and is removed.
                try {
                    holder = Comch.probe(socketPath, 2_000_000_000L);
                    if (holder == null) {
                        holder = new ComchIdentity(0, "an unknown process", "it accepted but did not say who it is");
                    }
                    LOG.log(Level.DEBUG, "{0}: channel name already served at {1} by {2}", name(), socketPath, holder);
                    return DocaError.IN_USE;
                } catch (IOException stale) {
                    Files.deleteIfExists(socketPath);
                }
            }
            ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            s.bind(UnixDomainSocketAddress.of(socketPath), 4);
            try {
                // Only this user may connect (the directory is private too).
                Files.setPosixFilePermissions(socketPath,
                        java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException noPosix) {
                // not a POSIX file system: the directory check above is all we can do
            }
            s.configureBlocking(false);
            listener = s;
            LOG.log(Level.DEBUG, "{0}: listening at {1}", name(), socketPath);
            return DocaError.SUCCESS;
        } catch (IOException e) {
            LOG.log(Level.WARNING, "{0}: cannot listen at {1}: {2}", name(), socketPath, e.getMessage());
            return DocaError.OPERATING_SYSTEM;
        }
    }

    @Override
    protected void onStop() {
        stopping = true;
        closeGreeting();
        ComchConnection c = connection;
        if (c != null) {
            try {
                c.writeFrame(ComchWire.simple(ComchWire.BYE));
            } catch (DocaException ignored) {
                // peer already gone
            }
        }
        closeListener();
    }

    @Override
    protected void onIdle() {
        ComchConnection c = connection;
        connection = null;
        if (c != null) {
            closeConnection(c, false);
            c.unmapRings();
        }
        closeGreeting();
        closeListener();
    }

    private void closeGreeting() {
        for (ComchConnection c : greeting) {
            c.markClosed();
            try {
                c.channel().close();
            } catch (IOException ignored) {
                // best effort
            }
        }
        greeting.clear();
    }

    private void closeListener() {
        ServerSocketChannel s = listener;
        listener = null;
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // best effort
            }
            try {
                Files.deleteIfExists(socketPath);
            } catch (IOException ignored) {
                // best effort
            }
        }
    }

    @Override
    protected int work() {
        int n = 0;
        boolean due = socketPollDue();
        long now = System.nanoTime();
        // accept() allocates even when nobody waits (NIO's FileDescriptor/address holders): poll it
        // every 10 ms only, so a server sharing an engine with the fast path stays allocation-free.
        if (!stopping && due && now - nextAccept >= 0) {
            nextAccept = now + ACCEPT_POLL_NANOS;
            acceptPending();
        }
        if (!greeting.isEmpty() && !stopping && due) {
            n += serveGreeting(now);
        }
        ComchConnection c = connection;
        if (c != null && !stopping && due) {
            int r = readFrames(c);
            if (r < 0) {
                LOG.log(Level.INFO, "{0}: client disconnected", name());
                connection = null;
                closeConnection(c, true);
                n++;
            } else {
                n += r;
            }
        }
        n += drainSends();
        return n;
    }

    private void acceptPending() {
        ServerSocketChannel s = listener;
        if (s == null) {
            return;
        }
        try {
            SocketChannel ch;
            while ((ch = s.accept()) != null) {
                ch.configureBlocking(false);
                String refused = foreignPeer(ch);
                if (refused != null) {
                    LOG.log(Level.WARNING, "{0}: refusing a connection of {1}: the channel is private to its owner",
                            name(), refused);
                    ch.close();
                    continue;
                }
                if (greeting.size() >= MAX_GREETING) {
                    LOG.log(Level.WARNING, "{0}: {1} connections have not said HELLO; closing the oldest", name(),
                            MAX_GREETING);
                    ComchConnection old = greeting.removeFirst();
                    old.markClosed();
                    old.channel().close();
                }
                greeting.add(new ComchConnection(this, ch, System.nanoTime() + HELLO_NANOS));
            }
        } catch (IOException | DocaException e) {
            LOG.log(Level.WARNING, "{0}: accept failed: {1}", name(), e.getMessage());
        }
    }

    /** The user of the peer process if it is not this process's user (socket credentials), else null. */
    private static String foreignPeer(SocketChannel ch) {
        try {
            var cred = ch.getOption(jdk.net.ExtendedSocketOptions.SO_PEERCRED);
            String me = System.getProperty("user.name");
            return me == null || cred.user().getName().equals(me) ? null : "user " + cred.user().getName();
        } catch (IOException | UnsupportedOperationException e) {
            return null; // no credentials on this platform: the directory and socket modes are the fence
        }
    }

    /** Reads the connections that have not said HELLO; closes those past their deadline. */
    private int serveGreeting(long now) {
        int n = 0;
        for (int i = 0; i < greeting.size(); i++) {
            ComchConnection c = greeting.get(i);
            int r = readFrames(c); // a HELLO admits the connection (onFrame) or answers a probe
            boolean admitted = c == connection;
            if (r < 0 || admitted || now - c.helloDeadline > 0) {
                greeting.remove(i--);
                if (!admitted) {
                    if (r >= 0) {
                        LOG.log(Level.WARNING, "{0}: closing a connection that said no HELLO within {1} ms", name(),
                                HELLO_NANOS / 1_000_000);
                    }
                    c.markClosed();
                    try {
                        c.channel().close();
                    } catch (IOException ignored) {
                        // best effort
                    }
                }
                n++;
            }
        }
        return n;
    }

    /** A connection's HELLO: admit it, reject it (a client is connected) or answer its probe. */
    private int hello(ComchConnection c, ByteBuffer payload) {
        byte purpose = payload.get();
        ComchIdentity peer = ComchIdentity.decode(payload);
        c.setPeerIdentity(peer);
        if (purpose == ComchWire.PURPOSE_PROBE) {
            c.writeFrame(ComchWire.withIdentity(ComchWire.IDENTITY, identity));
            return -1;
        }
        if (connection != null && connection.isOpen()) {
            rejected++;
            LOG.log(Level.WARNING, "{0}: rejecting a second client, {1} (serving {2})", name(), peer,
                    connection.peerIdentity());
            c.writeFrame(ComchWire.reject("server " + channelName + " (" + identity + ") already has a client"));
            return -1;
        }
        c.writeFrame(ComchWire.withIdentity(ComchWire.ACCEPT, identity));
        connection = c;
        LOG.log(Level.INFO, "{0}: client connected: {1}", name(), peer);
        if (connectionCb != null) {
            connectionCb.onConnectionStatus(c, true);
        }
        return 1;
    }

    private void closeConnection(ComchConnection c, boolean fireEvents) {
        c.markClosed();
        if (fireEvents) {
            expireAllOf(c);
        }
        try {
            c.channel().close();
        } catch (IOException ignored) {
            // best effort
        }
        if (fireEvents && connectionCb != null) {
            connectionCb.onConnectionStatus(c, false);
        }
    }

    @Override
    boolean admitted(ComchConnection conn) {
        return conn == connection;
    }

    @Override
    int onFrame(ComchConnection conn, byte kind, ByteBuffer payload) {
        if (kind == ComchWire.HELLO && conn != connection && greeting.contains(conn)) {
            return hello(conn, payload);
        }
        LOG.log(Level.WARNING, "{0}: unexpected frame kind {1} from client", name(), kind);
        return -1;
    }
}
