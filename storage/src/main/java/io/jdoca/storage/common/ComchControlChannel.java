package io.jdoca.storage.common;

import io.jdoca.storage.wire.ControlCodec;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.comch.ComchClient;
import io.jdoca.comch.ComchConnection;
import io.jdoca.comch.ComchEndpoint;
import io.jdoca.comch.ComchIdentity;
import io.jdoca.comch.ComchServer;
import io.jdoca.comch.ComchTaskSend;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.DevRep;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import java.util.ArrayList;
import java.util.List;

/**
 * The control channel over Comch (DOCA's {@code comch_client_control_channel} /
 * {@code comch_server_control_channel}): each frame is one Comch send task, and the message-received
 * event feeds the frame decoder (reference §1). It owns the server or client context and a progress
 * engine driven by {@link #poll()}, and records the peer's consumer ids (new/expired events) for the
 * fast path.
 *
 * <p>Not thread-safe: the control thread only. Consumers and producers on the
 * {@link #connection()} may live on other threads.
 */
public final class ComchControlChannel extends AbstractControlChannel {
    private final ProgressEngine pe = ProgressEngine.create();
    private final ComchEndpoint endpoint;
    private final boolean isServer;
    private final List<Integer> liveRemoteConsumers = new ArrayList<>();
    private ComchConnection serverConnection;
    private boolean disconnected;
    private DocaError lastSendStatus = DocaError.SUCCESS;
    private int sendsInFlight;
    private int emptyMessages;

    private ComchControlChannel(ComchEndpoint endpoint, boolean isServer) {
        super(isServer);
        this.endpoint = endpoint;
        this.isServer = isServer;
        endpoint.taskSendSetConf(this::sendDone, this::sendDone, 8);
        endpoint.eventMsgRecvRegister((conn, msg, len) -> {
            if (len <= 0) {
                emptyMessages++; // a frame needs at least its 4-byte length: answered in pump()
            } else {
                decoder.feed(msg, 0, len);
            }
        });
        endpoint.eventConsumerRegister((conn, id) -> liveRemoteConsumers.add(id),
                (conn, id) -> liveRemoteConsumers.remove(Integer.valueOf(id)));
        DocaException.check(pe.connectCtx(endpoint), "connect comch context");
    }

    private void sendDone(ComchTaskSend t, long ud, long cud) {
        lastSendStatus = t.status();
        sendsInFlight--;
        t.free();
    }

    /** {@code make_comch_server_control_channel(dev, rep, name)} with an anonymous identity. */
    public static ComchControlChannel server(Dev dev, DevRep rep, String channelName) {
        return server(dev, rep, channelName, ComchIdentity.of("storage-service", ""));
    }

    /**
     * {@code make_comch_server_control_channel(dev, rep, name)}: listening once this returns, as
     * {@code self} to its clients. IN_USE naming the process that holds the name when another
     * service serves it (issue 29 item 4).
     */
    public static ComchControlChannel server(Dev dev, DevRep rep, String channelName, ComchIdentity self) {
        ComchServer s = ComchServer.create(dev, rep, channelName);
        s.setIdentity(self);
        ComchControlChannel c = new ComchControlChannel(s, true);
        s.eventConnectionStatusChangedRegister((conn, up) -> {
            if (up) {
                c.serverConnection = conn;
            } else {
                c.serverConnection = null;
                c.disconnected = true;
            }
        });
        DocaError e = s.start();
        if (e != DocaError.SUCCESS) {
            c.pe.close();
            if (e == DocaError.IN_USE && s.holder() != null) {
                ComchIdentity h = s.holder();
                throw new DocaException(e, "comch channel '" + channelName + "' is already served by " + h.app()
                        + (h.pid() > 0 ? " (pid " + h.pid() + ")" : "") + "; give this pipeline its own"
                        + " --command-channel-name");
            }
            throw new DocaException(e, "cannot start comch server '" + channelName + "'");
        }
        return c;
    }

    /** Server: the identity the next client sees in its ACCEPT (e.g. once the storage behind is known). */
    public void setIdentity(ComchIdentity self) {
        if (endpoint instanceof ComchServer s) {
            s.setIdentity(self);
        }
    }

    /** Who the peer said it is (the client's HELLO, the server's ACCEPT); null when unknown. */
    public ComchIdentity peerIdentity() {
        ComchConnection c = connection();
        return c == null ? null : c.peerIdentity();
    }

    @Override
    public String peerDescription() {
        ComchIdentity id = peerIdentity();
        return id == null ? null : id.toString();
    }

    /**
     * {@code make_comch_client_control_channel(dev, name)}: connects to the server within
     * {@code timeoutNanos} (TIME_OUT otherwise, CONNECTION_ABORTED if the server turns it away).
     */
    public static ComchControlChannel client(Dev dev, String channelName, long timeoutNanos) {
        return client(dev, channelName, timeoutNanos, ComchIdentity.of("storage-client", ""));
    }

    /** As {@link #client(Dev, String, long)}, introducing itself as {@code self}. */
    public static ComchControlChannel client(Dev dev, String channelName, long timeoutNanos, ComchIdentity self) {
        ComchClient cl = ComchClient.create(dev, channelName);
        cl.setIdentity(self);
        ComchControlChannel c = new ComchControlChannel(cl, false);
        c.setTimeoutFlag(AppSupport.CONTROL_TIMEOUT_FLAG);
        DocaError e = cl.start();
        if (e != DocaError.IN_PROGRESS && e != DocaError.SUCCESS) {
            throw new DocaException(e, "cannot start comch client");
        }
        boolean ok = c.pe.progressUntil(() -> cl.state() != CtxState.STARTING, IdleStrategy.backoff(), timeoutNanos);
        if (cl.state() != CtxState.RUNNING) {
            String why = cl.rejectReason();
            if (cl.state() == CtxState.STARTING) {
                cl.stop();
                c.pe.progressUntil(() -> cl.state() == CtxState.IDLE, IdleStrategy.backoff(), 1_000_000_000L);
            }
            c.pe.close();
            if (why != null) {
                throw new DocaException(DocaError.CONNECTION_ABORTED, "comch server '" + channelName + "' refused us: "
                        + why);
            }
            throw new DocaException(ok ? DocaError.CONNECTION_ABORTED : DocaError.TIME_OUT,
                    "no comch server '" + channelName + "' answered"
                    + AppSupport.raisedBy(AppSupport.CONTROL_TIMEOUT_FLAG,
                            timeoutNanos) + "; is a service serving this --command-channel-name?");
        }
        return c;
    }

    /** The engine the Comch context runs on (progressed by {@link #poll()}). */
    public ProgressEngine pe() {
        return pe;
    }

    /** The connection to the peer (null on a server with no client). */
    public ComchConnection connection() {
        return isServer ? serverConnection : ((ComchClient) endpoint).connection();
    }

    /** The peer's live consumer ids, in the order they appeared. */
    public List<Integer> remoteConsumerIds() {
        return List.copyOf(liveRemoteConsumers);
    }

    /**
     * Server: the owner has released what the last client held; serve the next one (a fresh frame
     * decoder, nothing parked). No-op while a client is connected.
     */
    @Override
    public void nextSession() {
        if (!isServer || isConnected()) {
            return;
        }
        disconnected = false;
        emptyMessages = 0;
        resetPeerState();
    }

    @Override
    public boolean isConnected() {
        ComchConnection c = connection();
        return c != null && c.isOpen() && endpoint.state() == CtxState.RUNNING;
    }

    @Override
    public boolean wasDisconnected() {
        return disconnected || (!isServer && endpoint.state() != CtxState.RUNNING);
    }

    @Override
    protected void pump() {
        pe.progress();
        while (emptyMessages > 0) {
            emptyMessages--;
            LOG.log(System.Logger.Level.WARNING, "{0}: empty control message (no frame header)", describe());
            if (isServer && isConnected()) {
                try {
                    write(ControlCodec.encode(ControlMessage.error(0, 0, DocaError.INVALID_VALUE,
                            "empty control message: a frame needs at least its 4-byte wire_size")));
                } catch (DocaException ignored) {
                    // the peer is gone; nothing more to tell it
                }
            }
        }
    }

    @Override
    protected void write(byte[] frame) {
        ComchConnection c = connection();
        if (c == null) {
            throw new DocaException(DocaError.NOT_CONNECTED, describe() + ": no peer");
        }
        ComchTaskSend t = endpoint.taskSendAllocInit(c, frame, frame.length);
        if (t == null) {
            throw new DocaException(endpoint.lastError(), describe() + ": cannot send a frame of " + frame.length
                    + " bytes (Comch messages are at most " + endpoint.maxMsgSize() + ")");
        }
        DocaError e = t.submit();
        if (e != DocaError.SUCCESS) {
            t.free();
            throw new DocaException(e, describe() + ": send");
        }
        sendsInFlight++;
        if (!pe.progressUntil(() -> sendsInFlight == 0, IdleStrategy.backoff(), 5_000_000_000L)) {
            throw new DocaException(DocaError.TIME_OUT, describe() + ": send did not complete");
        }
        if (lastSendStatus != DocaError.SUCCESS) {
            throw new DocaException(lastSendStatus, describe() + ": send failed");
        }
    }

    /** Sends raw bytes as one Comch message (tests of the peer's malformed-frame handling). */
    void sendRawForTest(byte[] bytes) {
        write(bytes);
    }

    @Override
    protected void dropPeer() {
        // Comch frames are whole messages: an oversized one cannot desynchronize the stream, but
        // the decoder refuses further input after it, so treat the peer as gone.
        disconnected = true;
    }

    /**
     * Progresses the engine until {@code cond} holds or the timeout passes (e.g. waiting for the
     * peer's consumers). Returns whether it holds.
     */
    public boolean progressUntil(java.util.function.BooleanSupplier cond, long timeoutNanos) {
        return pe.progressUntil(cond, IdleStrategy.backoff(), timeoutNanos);
    }

    @Override
    public String describe() {
        return endpoint.name();
    }

    @Override
    public void close() {
        if (endpoint.state() != CtxState.IDLE) {
            endpoint.stop();
            pe.progressUntil(() -> endpoint.state() == CtxState.IDLE, IdleStrategy.backoff(), 2_000_000_000L);
        }
        if (endpoint.state() == CtxState.IDLE) {
            pe.close();
        }
    }
}
