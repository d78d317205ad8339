package io.jdoca.storage.common;

import io.jdoca.storage.wire.ControlCodec;
import io.jdoca.storage.wire.ControlFrameDecoder;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlProtocolException;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.exec.IdleStrategy;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * Shared logic of the control channels: frame decoding, the malformed-frame policy, parking of
 * unmatched messages and request/response matching on message_id (as DOCA's
 * {@code wait_for_control_response}). Subclasses move bytes. Not thread-safe: the control thread only.
 */
public abstract class AbstractControlChannel implements ControlChannel {
    protected static final System.Logger LOG = System.getLogger("io.jdoca.storage.control");

    protected ControlFrameDecoder decoder = new ControlFrameDecoder();
    private final ArrayDeque<ControlMessage> parked = new ArrayDeque<>();
    private final boolean replyToMalformed;
    private long malformed;
    /** The flag that raises this channel's request timeout, named in a TIME_OUT (null: none). */
    private String timeoutFlag;

    protected AbstractControlChannel(boolean replyToMalformed) {
        this.replyToMalformed = replyToMalformed;
    }

    /** Reads what the transport has (non-blocking) into {@link #decoder}; handles connects and disconnects. */
    protected abstract void pump();

    /** Writes one whole frame. */
    protected abstract void write(byte[] frame);

    /** Drops the current peer (after a fatal protocol error). */
    protected abstract void dropPeer();

    /** Forgets what the last peer left behind (partial frame, parked messages): a new session starts. */
    protected void resetPeerState() {
        decoder = new ControlFrameDecoder();
        parked.clear();
    }

    /** Puts {@code m} before everything not yet delivered (a first request read before the session was handed over). */
    protected final void park(ControlMessage m) {
        parked.addFirst(m);
    }

    /** Names {@code flag} in the message of a request that times out ({@code --control-timeout}). */
    public final void setTimeoutFlag(String flag) {
        this.timeoutFlag = flag;
    }

    /** Number of malformed frames received so far. */
    public long malformedFrames() {
        return malformed;
    }

    @Override
    public final ControlMessage poll() {
        if (!parked.isEmpty()) {
            return parked.poll();
        }
        pump();
        return decodeNext();
    }

    private ControlMessage decodeNext() {
        while (true) {
            try {
                return decoder.next();
            } catch (ControlProtocolException e) {
                malformed++;
                LOG.log(Level.WARNING, "{0}: bad control frame: {1}", describe(), e.getMessage());
                if (replyToMalformed && isConnected()) {
                    try {
                        write(ControlCodec.encode(ControlMessage.error(e.messageId(), e.correlationId(), e.error(),
                                e.getMessage())));
                    } catch (DocaException ignored) {
                        // the peer is gone; nothing more to tell it
                    }
                }
                if (e.isFatal()) {
                    dropPeer();
                    return null;
                }
            }
        }
    }

    @Override
    public final void send(ControlMessage message) {
        if (!isConnected()) {
            throw new DocaException(DocaError.NOT_CONNECTED, describe() + ": cannot send " + message.type().wireName()
                    + ": no peer connected");
        }
        LOG.log(Level.DEBUG, "{0}: send {1}", describe(), message);
        write(ControlCodec.encode(message));
    }

    @Override
    public final ControlMessage receive(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        IdleStrategy idle = IdleStrategy.backoff(16, 16, 10_000, 2_000_000);
        while (true) {
            ControlMessage m = poll();
            if (m != null) {
                LOG.log(Level.DEBUG, "{0}: received {1}", describe(), m);
                return m;
            }
            if (wasDisconnected() && !isConnected() && decoder.buffered() == 0) {
                return null;
            }
            if (System.nanoTime() - deadline > 0) {
                return null;
            }
            idle.idle(0);
        }
    }

    @Override
    public final ControlMessage request(ControlMessage req, long timeoutNanos) {
        send(req);
        long deadline = System.nanoTime() + timeoutNanos;
        IdleStrategy idle = IdleStrategy.backoff(16, 16, 10_000, 2_000_000);
        // Messages that do not answer this request wait in 'held' and are parked afterwards in order.
        ArrayDeque<ControlMessage> held = new ArrayDeque<>();
        try {
            while (true) {
                ControlMessage m;
                if (!parked.isEmpty()) {
                    m = parked.poll();
                } else {
                    pump();
                    m = decodeNext();
                }
                if (m != null) {
                    if (m.messageId() != req.messageId()) {
                        held.add(m);
                        continue;
                    }
                    if (m.isError()) {
                        throw ControlChannel.errorOf(m, describe() + ": " + req.type().wireName());
                    }
                    if (m.type() != req.type().responseType()) {
                        throw new DocaException(DocaError.UNEXPECTED, describe() + ": " + req.type().wireName()
                                + " answered by " + m.type().wireName());
                    }
                    return m;
                }
                if (!isConnected() && wasDisconnected()) {
                    throw new DocaException(DocaError.CONNECTION_RESET, describe()
                            + ": peer disconnected while waiting for "
                            + req.type().responseType().wireName());
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new DocaException(DocaError.TIME_OUT, describe() + ": no "
                            + req.type().responseType().wireName()
                            + " within " + timeoutNanos / 1_000_000 + " ms"
                            + (timeoutFlag == null ? "" : " (" + timeoutFlag + " raises it)"));
                }
                idle.idle(0);
            }
        } finally {
            for (Iterator<ControlMessage> it = held.descendingIterator(); it.hasNext();) {
                parked.addFirst(it.next());
            }
        }
    }
}
