package io.jdoca.storage.common;

import io.jdoca.storage.wire.ControlCodec;
import io.jdoca.storage.wire.ControlFrameDecoder;
import io.jdoca.storage.wire.ControlMessage;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * A connection to a {@link TcpControlChannel} server that does not hold the session (issue 29 item
 * 1): in its handshake (no complete first request yet, closed at its deadline), ready (its first
 * request is in; it gets the session once the last one is released), or refused (told it is busy,
 * kept until it closes or {@link #LINGER_NANOS} pass, so that our close does not reset the
 * connection before it has read the answer).
 *
 * <pre>
 *   HANDSHAKE → READY (valid first request)      HANDSHAKE → REFUSED (bad first frame, answered)
 *   READY → REFUSED (another client holds the session)
 * </pre>
 * (A READY connection that gets the session leaves the list; every stage may be closed.)
 *
 * <p>Not thread-safe: the control thread only.
 */
final class PendingControlClient {
    /** How long a refused client may keep its socket open to read the answer. */
    static final long LINGER_NANOS = 2_000_000_000L;

    /** Where a waiting connection stands. */
    enum Stage {
        HANDSHAKE,
        READY,
        REFUSED;

        /** The explicit transition table above. */
        boolean canTransitionTo(Stage next) {
            return switch (this) {
                case HANDSHAKE -> next == READY || next == REFUSED;
                case READY -> next == REFUSED;
                case REFUSED -> false;
            };
        }
    }

    private final SocketChannel ch;
    private final InetSocketAddress from;
    private final ControlFrameDecoder decoder = new ControlFrameDecoder();
    private final long acceptedAt = System.nanoTime();
    private final long deadline;
    private Stage stage = Stage.HANDSHAKE;
    private ControlMessage first;
    private long lingerUntil;

    PendingControlClient(SocketChannel ch, InetSocketAddress from, long deadline) {
        this.ch = ch;
        this.from = from;
        this.deadline = deadline;
    }

    SocketChannel channel() {
        return ch;
    }

    InetSocketAddress from() {
        return from;
    }

    ControlFrameDecoder decoder() {
        return decoder;
    }

    Stage stage() {
        return stage;
    }

    /** The first request (READY and after). */
    ControlMessage first() {
        return first;
    }

    long ageMillis() {
        return (System.nanoTime() - acceptedAt) / 1_000_000;
    }

    boolean handshakeOver() {
        return System.nanoTime() - deadline > 0;
    }

    boolean lingerOver() {
        return System.nanoTime() - lingerUntil > 0;
    }

    /** Its first request is in. */
    void ready(ControlMessage m) {
        move(Stage.READY);
        first = m;
    }

    private void move(Stage next) {
        if (!stage.canTransitionTo(next)) {
            throw new IllegalStateException("pending client " + from + ": " + stage + " -> " + next);
        }
        stage = next;
    }

    /**
     * Reads once: in the handshake and while ready into the decoder (what a ready client sends after
     * its first request goes with it to the session, in order), refused it discards. Returns the
     * byte count, or -1 once the peer has closed.
     */
    int read(ByteBuffer rx) {
        rx.clear();
        int n;
        try {
            n = ch.read(rx);
        } catch (IOException e) {
            n = -1;
        }
        if (n > 0 && stage != Stage.REFUSED) {
            decoder.feed(rx.array(), 0, n);
        }
        return n;
    }

    /** Sends {@code answer}, shuts our side down and lingers until the client closes (REFUSED). */
    void answerAndShutdown(ControlMessage answer) {
        ByteBuffer out = ByteBuffer.wrap(ControlCodec.encode(answer));
        try {
            while (out.hasRemaining() && ch.write(out) > 0) {
                // a small frame: the socket buffer takes it at once
            }
            ch.shutdownOutput();
        } catch (IOException e) {
            // it is gone already; closed with the others
        }
        move(Stage.REFUSED);
        lingerUntil = System.nanoTime() + LINGER_NANOS;
    }

    void close() {
        closeQuietly(ch);
    }

    static void closeQuietly(SocketChannel c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // already gone
        }
    }

    /**
     * At most {@link #PER_WINDOW} warnings per 10 s window, then one line with the number left out:
     * a flood of stalled connections cannot flood the log. Control thread only.
     */
    static final class LogBudget {
        private static final int PER_WINDOW = 20;
        private static final long WINDOW_NANOS = 10_000_000_000L;
        private long windowStart = System.nanoTime();
        private int used;
        private long suppressed;

        void warn(String line) {
            long now = System.nanoTime();
            if (now - windowStart > WINDOW_NANOS) {
                if (suppressed > 0) {
                    AbstractControlChannel.LOG.log(System.Logger.Level.WARNING, suppressed
                            + " more such connection warnings in the last 10 s were not logged");
                }
                windowStart = now;
                used = 0;
                suppressed = 0;
            }
            if (used++ < PER_WINDOW) {
                AbstractControlChannel.LOG.log(System.Logger.Level.WARNING, line);
            } else {
                suppressed++;
            }
        }
    }
}
