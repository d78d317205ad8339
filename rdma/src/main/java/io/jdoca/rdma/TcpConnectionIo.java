package io.jdoca.rdma;

import io.jdoca.core.DocaError;
import io.jdoca.core.PeerLiveness;
import io.jdoca.core.SilenceMeter;
import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;

/**
 * The transport agent's half of one tcp connection (the NIC of this transport): the socket's only reader
 * ({@link TcpReceiver}) and only writer ({@link TcpSender}), its selector key, its liveness (keepalive and the
 * peer's silence), and its end ({@link #finishIo}: goodbye, socket closed, every task handed back). The
 * {@link TcpTransportAgent} serves it with {@link #ioService} at each look and {@link #keepalive} at each tick.
 *
 * <p>Liveness ({@link PeerLiveness}): a killed peer is seen at once, by the reader (EOF, RST). The keepalive
 * queues a heartbeat on connections that sent nothing for {@link TcpEndpoint#HEARTBEAT_NANOS}; it declares the
 * peer dead only after {@link PeerLiveness#timeoutNanos()} of silence counted by a {@link SilenceMeter} (this
 * process's own stalls are not the peer's silence) and only if no byte from the peer is waiting unread in the
 * socket (a slow reader here is not a dead peer there).
 *
 * <p>Threads: the agent's (the engine thread itself when the engine runs the agent). Allocation-free on the data
 * path.
 */
final class TcpConnectionIo {
    /** {@link #ioService} result: the connection has ended; the agent drops it. */
    static final long IO_DONE = -1;
    /** Most silence one keepalive tick may count (it ticks every {@code HEARTBEAT_NANOS / 2}). */
    static final long SILENCE_CREDIT_NANOS = 2 * TcpEndpoint.HEARTBEAT_NANOS;
    /**
     * While a frame waits for a posted receive, the agent re-checks at least this often (a posted receive wakes it).
     */
    static final long RNR_RECHECK_NANOS = 1_000_000L;

    private final TcpLink link;
    final TcpSender tx;
    final TcpReceiver rx;
    /** This socket's key in the agent's selector, and the interest set last given to it. */
    private SelectionKey key;
    private int interest;
    /** Silence timeout of this connection, fixed when it is made ({@link PeerLiveness#timeoutNanos()}). */
    private final long deadNanos = PeerLiveness.timeoutNanos();
    /** The peer's silence as the keepalive saw it. */
    private SilenceMeter silence;

    TcpConnectionIo(TcpLink link) {
        this.link = link;
        SegmentViews views = new SegmentViews(2); // slot 0 receiving, slot 1 streaming payloads out
        this.tx = new TcpSender(link, views);
        this.rx = new TcpReceiver(link, tx, views);
    }

    /** Whether the agent serves this socket in the selector (between {@link #attach} and {@link #detach}). */
    boolean attached() {
        return key != null;
    }

    /** Registers the socket with the agent's selector; false if it cannot (the connection then ends). */
    boolean attach(Selector selector, long now) {
        silence = new SilenceMeter(now, rx.lastRxNanos, SILENCE_CREDIT_NANOS);
        try {
            key = link.ch.register(selector, SelectionKey.OP_READ, this);
            interest = SelectionKey.OP_READ;
            return true;
        } catch (IOException | RuntimeException e) {
            if (!link.closing()) {
                link.markBroken(DocaError.CONNECTION_RESET, "cannot watch the socket: " + e);
            }
            finishIo();
            return false;
        }
    }

    /** The agent lets the socket go (its key leaves the selector). */
    void detach() {
        SelectionKey k = key;
        if (k != null) {
            k.cancel();
            key = null;
        }
    }

    /** From the selector: what the socket is ready for. */
    void ready(int readyOps) {
        if ((readyOps & SelectionKey.OP_READ) != 0) {
            rx.readable = true;
        }
        if ((readyOps & SelectionKey.OP_WRITE) != 0) {
            tx.writable = true;
        }
    }

    /** The next look reads the socket (if reading) without the selector's word; what it holds decides. */
    void assumeReadable() {
        if ((interest & SelectionKey.OP_READ) != 0) {
            rx.readable = true;
        }
    }

    /**
     * Whether the next look may read the socket without the selector's word: between frames (the next
     * message's latency is at stake) with room to write. Not mid-payload, where reading at every look would
     * take a large transfer in slivers, nor with a full socket, whose room is the selector's to report (either
     * costs 64 KiB transfers ~10 %: docs/performance/rdma.md).
     */
    boolean directPollable() {
        return rx.state() == TcpReceiver.RxState.HEADER && !tx.txBlocked();
    }

    /** Whether this connection waits for the application to post a receive. */
    boolean awaitingRecv() {
        return rx.state() == TcpReceiver.RxState.AWAIT_RECV;
    }

    /**
     * INVOKER, engine thread (then also the agent's): takes what the doorbell allows and writes it in this call,
     * as a NIC's doorbell would; what the socket does not take stays pending. Returns whether the agent must
     * look again soon (something left, a write interest, a verdict).
     */
    boolean sendNow() {
        if (link.broken() == null) {
            try {
                tx.send(System.nanoTime());
            } catch (IOException | RuntimeException e) {
                if (!link.closing()) {
                    link.markBroken(DocaError.CONNECTION_RESET, TcpLink.lostBecause(e));
                }
            }
        }
        return tx.untaken() || tx.txBlocked() || link.broken() != null;
    }

    /**
     * One look at this connection: takes the submitted tasks the doorbell allows, writes what is pending, reads
     * and serves what the socket holds, and writes the responses (message acknowledgements may wait a little for
     * a request to ride with). Returns {@link #IO_DONE} once the connection has ended (everything it held handed
     * back to the engine), 0 when it did something or has more to do at once, else the longest the agent may
     * sleep before looking again ({@code Long.MAX_VALUE}: until the socket or the engine wakes it).
     */
    long ioService(long now) {
        if (link.closing() || link.broken() != null) {
            finishIo();
            return IO_DONE;
        }
        long work = 0;
        try {
            work += tx.send(now);
            if (rx.wantsLook()) {
                work += rx.pump();
            }
            if (tx.pendingOut() && (!tx.txBlocked() || tx.writable) && tx.flushDue(now)) {
                work += tx.flush(now);
            }
        } catch (IOException | RuntimeException e) {
            if (!link.closing()) {
                link.markBroken(DocaError.CONNECTION_RESET, TcpLink.lostBecause(e));
            }
            return 0;
        }
        if (rx.handedOver) {
            rx.handedOver = false;
            link.rdma.pe().notifyWork();
        }
        boolean awaiting = awaitingRecv();
        boolean more = rx.more() || (rx.paused() && !tx.txBlocked()) || (tx.untaken() && !tx.txBlocked());
        setInterest((rx.paused() || awaiting ? 0 : SelectionKey.OP_READ)
                | (tx.txBlocked() ? SelectionKey.OP_WRITE : 0));
        if (work > 0 || more) {
            return 0;
        }
        long sleep = Long.MAX_VALUE;
        if (tx.pendingOut() && !tx.txBlocked()) {
            sleep = Math.max(1, tx.acksDueAt() - now);
        }
        if (awaiting) {
            sleep = Math.min(sleep, RNR_RECHECK_NANOS);
        }
        return sleep;
    }

    private void setInterest(int ops) {
        if (ops != interest && key != null) {
            interest = ops;
            key.interestOps(ops); // an epoll_ctl: only when the socket fills or a receive is awaited
        }
    }

    /** The connection ended: says goodbye if closed in order, closes the socket, hands back every task. */
    void finishIo() {
        if (link.exited()) {
            return;
        }
        if (link.closing() && link.closeReason == DocaError.SHUTDOWN && link.broken() == null) {
            tx.sayGoodbye();
        }
        detach();
        try {
            link.ch.close();
        } catch (IOException ignored) {
            // gone either way
        }
        DocaError reason = link.closeReason != null ? link.closeReason : link.broken();
        if (reason == null) {
            reason = DocaError.CONNECTION_RESET;
        }
        rx.abandon();
        Object o;
        while ((o = tx.outstanding.poll()) != null) {
            RdmaTask t = (RdmaTask) o;
            t.result = reason;
            link.completions.offer(t);
        }
        while ((o = link.submitted.poll()) != null) {
            RdmaTask t = (RdmaTask) o;
            t.result = reason;
            link.completions.offer(t);
        }
        link.exit();
        link.rdma.pe().notifyWork();
    }

    // ------------------------------------------------------------------ keepalive

    /**
     * At every keepalive tick: the liveness verdict (a dead peer's connection is closed, which the next look
     * ends), else a heartbeat when nothing was sent for {@link TcpEndpoint#HEARTBEAT_NANOS}. Never waits: with
     * bytes still pending, the peer has proof we live.
     */
    void keepalive(long now) {
        if (link.phase() != TcpLink.Phase.OPEN) {
            return;
        }
        String dead = silenceVerdict(now);
        if (dead != null) {
            link.markBroken(DocaError.CONNECTION_RESET, dead);
            return;
        }
        try {
            tx.heartbeatIfIdle(now);
        } catch (IOException | RuntimeException e) {
            link.markBroken(DocaError.CONNECTION_RESET, TcpLink.lostBecause(e));
        }
    }

    /**
     * One liveness check at {@code now}; null while the peer counts as alive, else the rule that fired. A peer is
     * dead only when the silence counted by {@link #silence} passed {@link #deadNanos} and none of its bytes wait
     * unread in our socket (they would prove it alive and this side slow). Package-private: tests drive it with a
     * fake clock.
     */
    String silenceVerdict(long now) {
        SilenceMeter m = silence;
        if (m == null) {
            return null;
        }
        long silent = m.tick(now, rx.lastRxNanos);
        if (silent <= deadNanos) {
            return null;
        }
        if (peerBytesWaiting()) {
            m.reset(now, rx.lastRxNanos);
            return null;
        }
        return PeerLiveness.silentVerdict(silent, deadNanos);
    }

    /** Rare (a silence past the timeout): whether the socket holds input nobody has read yet. */
    private boolean peerBytesWaiting() {
        if (rx.buffered()) {
            return true;
        }
        try (Selector probe = Selector.open()) {
            // The socket is registered with the agent's selector; a second, temporary registration is allowed.
            link.ch.register(probe, SelectionKey.OP_READ);
            return probe.selectNow() > 0;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
