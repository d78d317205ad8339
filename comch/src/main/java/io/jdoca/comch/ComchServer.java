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
 * another live server holds the name.
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
            if (Files.exists(socketPath)) {
                // A live server answers; a stale file from a dead one does not and is removed.
                try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                    probe.connect(UnixDomainSocketAddress.of(socketPath));
                    LOG.log(Level.WARNING, "{0}: channel name already served at {1}", name(), socketPath);
                    return DocaError.IN_USE;
                } catch (IOException stale) {
                    Files.deleteIfExists(socketPath);
                }
            }
            ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            s.bind(UnixDomainSocketAddress.of(socketPath), 4);
            try {
                // Only this user may connect (the directory is private too).
                Files.setPosixFilePermissions(socketPath, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
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
        closeListener();
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
                ComchConnection c = new ComchConnection(this, ch);
                if (connection != null && connection.isOpen()) {
                    rejected++;
                    LOG.log(Level.WARNING, "{0}: rejecting a second client", name());
                    try {
                        c.writeFrame(ComchWire.reject("server " + channelName + " already has a client"));
                    } catch (DocaException ignored) {
                        // it left already
                    }
                    ch.close();
                    continue;
                }
                c.writeFrame(ComchWire.simple(ComchWire.ACCEPT));
                connection = c;
                LOG.log(Level.DEBUG, "{0}: client connected", name());
                if (connectionCb != null) {
                    connectionCb.onConnectionStatus(c, true);
                }
            }
        } catch (IOException | DocaException e) {
            LOG.log(Level.WARNING, "{0}: accept failed: {1}", name(), e.getMessage());
        }
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
    int onFrame(ComchConnection conn, byte kind, ByteBuffer payload) {
        LOG.log(Level.WARNING, "{0}: unexpected frame kind {1} from client", name(), kind);
        return -1;
    }
}
