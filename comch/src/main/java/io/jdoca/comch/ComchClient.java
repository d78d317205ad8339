package io.jdoca.comch;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * The host side of Comch ({@code doca_comch_client}): connects to the server of a channel name.
 * {@link #start()} returns IN_PROGRESS; the client keeps trying to reach the server while the engine
 * progresses and becomes RUNNING once the server admits it. If the server turns it away (it already
 * has a client) the client goes back to IDLE and {@link #rejectReason()} says why. If the server
 * goes away the client stops by itself.
 *
 * <p>Not thread-safe: configure, start, stop and progress on one thread.
 */
public final class ComchClient extends ComchEndpoint {
    private static final long RETRY_NANOS = 20_000_000L;

    private final Dev dev;
    private final String channelName;
    private final Path socketPath;
    private ComchConnection connection;
    private SocketChannel pending;
    private long nextAttempt;
    private String rejectReason;
    private ComchIdentity identity = ComchIdentity.of("comch-client", "");

    private ComchClient(Dev dev, String channelName) {
        super("comch-client:" + channelName);
        this.dev = dev;
        this.channelName = channelName;
        this.socketPath = Comch.socketPath(channelName);
    }

    /** {@code doca_comch_client_create(dev, name)}. */
    public static ComchClient create(Dev dev, String name) {
        if (dev == null) {
            throw new DocaException(DocaError.INVALID_VALUE, "comch client needs a device");
        }
        try {
            Comch.sanitize(name);
        } catch (IllegalArgumentException e) {
            throw new DocaException(DocaError.INVALID_VALUE, "bad comch channel name: " + e.getMessage());
        }
        return new ComchClient(dev, name);
    }

    public String channelName() {
        return channelName;
    }

    public Dev dev() {
        return dev;
    }

    /** {@code doca_comch_client_get_connection}: null until RUNNING. */
    public ComchConnection connection() {
        return connection;
    }

    /** The identity this client sends in its HELLO (jdoca, issue 29 item 4); IDLE only. */
    public DocaError setIdentity(ComchIdentity id) {
        if (state() != io.jdoca.core.exec.CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        this.identity = id;
        return DocaError.SUCCESS;
    }

    /** Who the server said it is in its ACCEPT; null before RUNNING. */
    public ComchIdentity serverIdentity() {
        ComchConnection c = connection;
        return c == null ? null : c.peerIdentity();
    }

    /** Why the server refused this client, or null. */
    public String rejectReason() {
        return rejectReason;
    }

    @Override
    protected DocaError onStart() {
        stopping = false;
        rejectReason = null;
        nextAttempt = 0;
        return DocaError.IN_PROGRESS;
    }

    @Override
    protected void onStop() {
        stopping = true;
        ComchConnection c = connection;
        if (c != null && c.isOpen()) {
            try {
                c.writeFrame(ComchWire.simple(ComchWire.BYE));
            } catch (DocaException ignored) {
                // peer already gone
            }
        }
    }

    @Override
    protected void onIdle() {
        ComchConnection c = connection;
        connection = null;
        if (c != null) {
            c.markClosed();
            try {
                c.channel().close();
            } catch (IOException ignored) {
                // best effort
            }
            c.unmapRings();
        }
        closePending();
    }

    private void closePending() {
        SocketChannel p = pending;
        pending = null;
        if (p != null) {
            try {
                p.close();
            } catch (IOException ignored) {
                // best effort
            }
        }
    }

    @Override
    protected int work() {
        int n = 0;
        if (state() == io.jdoca.core.exec.CtxState.STARTING) {
            n += connectStep();
        } else if (!stopping && connection != null && socketPollDue()) {
            int r = readFrames(connection);
            if (r < 0) {
                LOG.log(Level.INFO, "{0}: server went away", name());
                connection.markClosed();
                expireAllOf(connection);
                stopFromWithin();
                n++;
            } else {
                n += r;
            }
        }
        n += drainSends();
        return n;
    }

    private int connectStep() {
        if (pending == null) {
            long now = System.nanoTime();
            if (now - nextAttempt < 0) {
                return 0;
            }
            nextAttempt = now + RETRY_NANOS;
            try {
                SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
                try {
                    ch.connect(UnixDomainSocketAddress.of(socketPath));
                    ch.configureBlocking(false);
                } catch (IOException e) {
                    ch.close();
                    return 0;
                }
                pending = ch;
                connection = new ComchConnection(this, ch);
                try {
                    connection.writeFrame(ComchWire.hello(ComchWire.PURPOSE_CONNECT, identity));
                } catch (DocaException e) {
                    closePending();
                    connection = null;
                    return 0;
                }
            } catch (IOException e) {
                return 0;
            }
        }
        // Waiting for ACCEPT or REJECT.
        int r = readFrames(connection);
        if (r < 0) {
            connection.markClosed();
            if (rejectReason != null) {
                LOG.log(Level.WARNING, "{0}: rejected by server: {1}", name(), rejectReason);
                pending = null;
                startCompleted(DocaError.CONNECTION_ABORTED);
                return 1;
            }
            closePending();
            connection = null;
        }
        return 0;
    }

    @Override
    int onFrame(ComchConnection conn, byte kind, ByteBuffer payload) {
        if (kind == ComchWire.ACCEPT && state() == io.jdoca.core.exec.CtxState.STARTING) {
            if (payload.hasRemaining()) {
                conn.setPeerIdentity(ComchIdentity.decode(payload));
            }
            pending = null;
            startCompleted(DocaError.SUCCESS);
            return 1;
        }
        if (kind == ComchWire.REJECT) {
            rejectReason = readString(payload);
            return -1;
        }
        LOG.log(Level.WARNING, "{0}: unexpected frame kind {1} from server", name(), kind);
        return -1;
    }
}
