package io.jdoca.gga;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.rdma.RdmaPeerAddresses;
import io.jdoca.storage.common.AppSupport;
import io.jdoca.storage.common.TcpControlChannel;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlMessageType;
import io.jdoca.storage.wire.ControlPayload;
import java.io.PrintStream;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's three targets as its control thread sees them: their TCP control connections (each
 * opened with its first request, a query, at once: a target closes a silent connection at its
 * handshake deadline), their {@link TargetState} and the lost mask of the session, the message ids
 * of everything sent to them, and the rule on the RDMA blobs they send back (only the target's own
 * address or an {@code --allow-peer} one, issue 29 item 3). The dirty-stripe logs live in
 * {@link DirtyLog}.
 *
 * <p>Not thread-safe: the gateway's control thread only.
 */
final class GgaTargets implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GgaTargets.class);

    private final List<String> servers;
    private final List<InetAddress> allowedPeers;
    private final long timeoutNanos;
    private final PrintStream out;
    private final TcpControlChannel[] channels = new TcpControlChannel[TargetRole.COUNT];
    /** The answer to the query each connection was opened with, until a session's query takes it. */
    private final ControlPayload.StorageInfo[] opened = new ControlPayload.StorageInfo[TargetRole.COUNT];
    private final TargetState[] state = {TargetState.UP, TargetState.UP, TargetState.UP};
    private int lostMask;
    private int nextMessageId;

    GgaTargets(List<String> servers, List<InetAddress> allowedPeers, long timeoutNanos, PrintStream out) {
        this.servers = servers;
        this.allowedPeers = allowedPeers == null ? List.of() : List.copyOf(allowedPeers);
        this.timeoutNanos = timeoutNanos;
        this.out = out;
    }

    /** A fresh message id for a request to a target. */
    int nextId() {
        return nextMessageId++;
    }

    String server(int role) {
        return servers.get(role);
    }

    /** The current state of a target. */
    TargetState state(int role) {
        return state[role];
    }

    /** Follows the explicit transition table; an illegal move is ignored (and logged). */
    void setState(int role, TargetState next) {
        if (state[role] == next) {
            return;
        }
        if (state[role].canTransitionTo(next)) {
            LOG.info("target {}: {} -> {}", TargetRole.name(role), state[role], next);
            state[role] = next;
        } else {
            LOG.warn("target {}: illegal transition {} -> {} ignored", TargetRole.name(role), state[role], next);
        }
    }

    /** Targets lost during this session ({@link TargetRole#bit}). */
    int lostMask() {
        return lostMask;
    }

    boolean isLost(int role) {
        return (lostMask & TargetRole.bit(role)) != 0;
    }

    /**
     * Opens the control connection of {@code role} and sends its first request (a query) at once;
     * returns the target's geometry. {@code timeoutNanos}: how long the target may take to answer the
     * connect (it may still be starting).
     */
    ControlPayload.StorageInfo open(int role, long connectNanos) {
        close(role);
        TcpControlChannel c = TcpControlChannel.client(AppSupport.parseAddress(servers.get(role)), connectNanos);
        c.setTimeoutFlag(AppSupport.CONTROL_TIMEOUT_FLAG);
        channels[role] = c;
        ControlPayload.StorageInfo info = c.request(ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST,
                nextId(), 0),
                timeoutNanos).asStorageInfo();
        opened[role] = info;
        LOG.info("connected to {} target {}: {} bytes in blocks of {}", TargetRole.name(role), servers.get(role),
                info.totalSize(), info.blockSize());
        return info;
    }

    /** True when {@code role}'s control connection is open. */
    boolean connected(int role) {
        TcpControlChannel c = channels[role];
        return c != null && c.isConnected();
    }

    /**
     * A session's query: reconnects the targets whose control connection is closed (NOT_CONNECTED
     * naming the missing one when it does not answer), and returns each target's geometry (the answer
     * the connection was opened with, or a new query). Clears the session's lost mask.
     */
    ControlPayload.StorageInfo[] query(int correlationId) {
        ControlPayload.StorageInfo[] infos = new ControlPayload.StorageInfo[TargetRole.COUNT];
        for (int r = 0; r < TargetRole.COUNT; r++) {
            if (!connected(r)) {
                try {
                    open(r, timeoutNanos);
                } catch (DocaException e) {
                    close(r);
                    throw new DocaException(DocaError.NOT_CONNECTED, "target " + TargetRole.name(r) + " ("
                            + servers.get(r) + ") is not reachable; a session needs all three targets at its start: "
                            + e.getMessage());
                }
            }
            infos[r] = opened[r] != null ? opened[r] : forward(r,
                    ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST,
                    nextId(), correlationId)).asStorageInfo();
            opened[r] = null;
        }
        lostMask = 0;
        return infos;
    }

    /** Sends {@code req} to {@code role} (lost or not: a rejoining target) and waits for its answer. */
    ControlMessage request(int role, ControlMessage req) {
        if (channels[role] == null) {
            throw new DocaException(DocaError.NOT_CONNECTED, "target " + TargetRole.name(role) + " is not connected");
        }
        return channels[role].request(req, timeoutNanos);
    }

    /** Sends {@code req} to {@code role} and waits for its answer; NOT_CONNECTED when the target is lost. */
    ControlMessage forward(int role, ControlMessage req) {
        if (isLost(role) || channels[role] == null) {
            throw new DocaException(DocaError.NOT_CONNECTED, "target " + TargetRole.name(role) + " is lost");
        }
        return channels[role].request(req, timeoutNanos);
    }

    /**
     * Stop and shutdown go to every target still there; one whose connection fails is lost. Returns
     * the mask of targets lost by this relay.
     */
    int relayToSurvivors(ControlMessageType type, int correlationId) {
        int newlyLost = 0;
        for (int r = 0; r < TargetRole.COUNT; r++) {
            if (isLost(r)) {
                continue;
            }
            try {
                forward(r, ControlMessage.of(type, nextId(), correlationId));
            } catch (DocaException e) {
                if (e.error() == DocaError.CONNECTION_RESET || e.error() == DocaError.NOT_CONNECTED
                        || !channels[r].isConnected()) {
                    if (markLost(r, e.getMessage())) {
                        newlyLost |= TargetRole.bit(r);
                    }
                } else {
                    throw e;
                }
            }
        }
        return newlyLost;
    }

    /**
     * Reads what the targets sent unasked and notices dropped control connections. Returns the mask
     * of targets newly lost (already marked; the caller tells its workers).
     */
    int watch() {
        int newlyLost = 0;
        for (int r = 0; r < TargetRole.COUNT; r++) {
            TcpControlChannel t = channels[r];
            if (isLost(r) || t == null) {
                continue;
            }
            ControlMessage stray = t.poll();
            if (stray != null) {
                LOG.debug("ignoring unsolicited {} from {}", stray.type().wireName(), TargetRole.name(r));
            }
            if (t.wasDisconnected() && !t.isConnected() && markLost(r, "control connection closed")) {
                newlyLost |= TargetRole.bit(r);
            }
        }
        return newlyLost;
    }

    /** Marks {@code role} lost for this session and DOWN, with the operator's line; false if it already was. */
    boolean markLost(int role, String why) {
        if (isLost(role)) {
            return false;
        }
        lostMask |= TargetRole.bit(role);
        setState(role, TargetState.DOWN);
        // Operator-facing event: on stdout (like the stats), not only in the log.
        out.printf(Locale.ROOT, "gga-offload: DEGRADED: target %s (%s) lost: %s; reads continue by EC recovery,"
                + " writes land on the survivors and are logged dirty for it%n", TargetRole.name(role),
                servers.get(role), why);
        out.flush();
        return true;
    }

    /** The session found {@code role} reachable again: no longer lost for it (its state is the caller's). */
    void rejoined(int role) {
        lostMask &= ~TargetRole.bit(role);
    }

    /**
     * A target's RDMA blob may name only the target's own address or an {@code --allow-peer} one
     * (issue 29 item 3); NOT_PERMITTED naming both otherwise.
     */
    void checkPeerBlob(int role, byte[] blob) {
        List<InetAddress> allowed = new ArrayList<>(allowedPeers);
        InetAddress own = channels[role] == null ? null : channels[role].peerAddress();
        if (own != null) {
            allowed.addFirst(own);
        }
        String refused = RdmaPeerAddresses.refusal(blob, allowed);
        if (refused != null) {
            throw new DocaException(DocaError.NOT_PERMITTED, "gga-offload connects only to its targets' addresses or to"
                    + " --allow-peer addresses: target " + TargetRole.name(role) + ": " + refused);
        }
    }

    /** Closes {@code role}'s control connection (the target ends that session). */
    void close(int role) {
        if (channels[role] != null) {
            channels[role].close();
            channels[role] = null;
        }
        opened[role] = null;
    }

    /** Closes every control connection. */
    @Override
    public void close() {
        for (int r = 0; r < TargetRole.COUNT; r++) {
            close(r);
        }
    }
}
