package io.jdoca.rdma;

import io.jdoca.core.DocaError;
import io.jdoca.core.PeerLiveness;
import io.jdoca.core.ring.SpscRing;
import java.io.EOFException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the two halves of one tcp connection share, in one place: the engine half ({@link TcpEndpoint}) and the
 * agent's half ({@link TcpConnectionIo}, with its {@link TcpSender} and {@link TcpReceiver}) meet only here. The
 * socket, the two SPSC rings (engine → agent: submitted tasks up to the {@link #doorbell}; agent → engine:
 * completions), the engine's liveness ticks for the RNR clock, the broken verdict, and the teardown as one
 * {@link Phase} state machine whose transitions both threads make with compare-and-set.
 *
 * <p>Threads: fields are written by the side the comment names; every cross-thread field is volatile or atomic.
 */
final class TcpLink {
    private static final VarHandle PHASE;

    static {
        try {
            PHASE = MethodHandles.lookup().findVarHandle(TcpLink.class, "phase", Phase.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Teardown of the connection. The engine closes it (OPEN → CLOSING, or EXITED → CLOSED_EXITED when the agent
     * left first); the agent lets the socket go after handing back every task it held (OPEN → EXITED,
     * CLOSING → CLOSED_EXITED); the engine then completes what the agent never took (CLOSED_EXITED → FLUSHED).
     */
    enum Phase {
        OPEN, CLOSING, EXITED, CLOSED_EXITED, FLUSHED;

        boolean canTransitionTo(Phase next) {
            return switch (this) {
                case OPEN -> next == CLOSING || next == EXITED;
                case CLOSING, EXITED -> next == CLOSED_EXITED;
                case CLOSED_EXITED -> next == FLUSHED;
                case FLUSHED -> false;
            };
        }

        /** The engine closed it (whatever the agent did). */
        boolean closing() {
            return this == CLOSING || this == CLOSED_EXITED || this == FLUSHED;
        }

        /** The agent let the socket go and handed every task back. */
        boolean exited() {
            return this == EXITED || this == CLOSED_EXITED || this == FLUSHED;
        }
    }

    /** Marks an orderly peer disconnect ({@code OP_DISCONNECT}) apart from a bare EOF. */
    static final String DISCONNECT = "disconnect frame";

    final Rdma rdma;
    final RdmaConnection conn;
    final SocketChannel ch;
    /** Engine → agent: submitted tasks, in order; the agent takes them up to {@link #doorbell}. */
    final SpscRing submitted;
    /** Agent → engine: finished tasks and filled receives. */
    final SpscRing completions;
    /** Tasks the agent may take (engine writes). */
    volatile long doorbell;
    /** Why the engine closed it (written before CLOSING is published, read by the agent after). */
    DocaError closeReason;
    /** Engine ticks (the RNR clock runs only while the engine runs) and whether it sleeps (engine writes). */
    final AtomicLong engineTicks = new AtomicLong();
    volatile boolean engineSleeping;
    /** The agent's verdict: the connection broke (either side may set it; the first one stays). */
    private volatile DocaError broken;
    private volatile String brokenWhy;
    @SuppressWarnings("unused") // through PHASE
    private volatile Phase phase = Phase.OPEN;

    TcpLink(Rdma rdma, RdmaConnection conn, SocketChannel ch, int sendQueueSize, int recvQueueSize) {
        this.rdma = rdma;
        this.conn = conn;
        this.ch = ch;
        this.submitted = new SpscRing(sendQueueSize);
        this.completions = new SpscRing(submitted.capacity() + recvQueueSize + 2);
    }

    Phase phase() {
        return (Phase) PHASE.getVolatile(this);
    }

    boolean closing() {
        return phase().closing();
    }

    boolean exited() {
        return phase().exited();
    }

    /** Engine: closes the link; false if it was closed already. */
    boolean close(DocaError reason) {
        while (true) {
            Phase p = phase();
            if (p.closing()) {
                return false;
            }
            Phase next = p == Phase.OPEN ? Phase.CLOSING : Phase.CLOSED_EXITED;
            closeReason = reason;
            if (PHASE.compareAndSet(this, p, next)) {
                return true;
            }
        }
    }

    /** Agent: the socket is let go and every task handed back; false if it was already. */
    boolean exit() {
        while (true) {
            Phase p = phase();
            if (p.exited()) {
                return false;
            }
            Phase next = p == Phase.OPEN ? Phase.EXITED : Phase.CLOSED_EXITED;
            if (PHASE.compareAndSet(this, p, next)) {
                return true;
            }
        }
    }

    /** Engine: what the agent never took is completed; once. */
    boolean flush() {
        return PHASE.compareAndSet(this, Phase.CLOSED_EXITED, Phase.FLUSHED);
    }

    DocaError broken() {
        return broken;
    }

    String brokenWhy() {
        return brokenWhy;
    }

    /** Records the first broken verdict and wakes the engine to act on it. Any thread. */
    void markBroken(DocaError reason, String why) {
        if (broken == null) {
            brokenWhy = why;
            broken = reason;
        }
        rdma.pe().notifyWork();
    }

    /** The rule a reader's failure fired, for the log (see {@link PeerLiveness.Rule}). */
    static String lostBecause(Throwable e) {
        if (e instanceof EOFException) {
            return DISCONNECT.equals(e.getMessage())
                    ? PeerLiveness.Rule.CLOSED.label() + ": the peer disconnected (disconnect frame)"
                    : PeerLiveness.Rule.EOF.label() + ": peer closed the connection";
        }
        String m = String.valueOf(e.getMessage());
        if (m.toLowerCase(java.util.Locale.ROOT).contains("reset")) {
            return PeerLiveness.Rule.RST.label() + ": connection reset by the peer (" + m + ")";
        }
        return "connection lost: " + e;
    }
}
