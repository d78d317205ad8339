package io.jdoca.rdma;

import io.jdoca.core.DocaError;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;

/**
 * The TCP transport of one connection, engine half: one non-blocking socket whose only reader and only writer is
 * the context's {@link TcpTransportAgent} (the NIC of this transport), through this connection's agent half
 * ({@link TcpConnectionIo}: {@link TcpSender} and {@link TcpReceiver}), run by the engine's progress (the
 * default) or by a thread of its own ({@link TcpTransportAgent.Threading}). The engine side never touches the
 * socket: it hands submitted tasks to the agent through an SPSC ring ({@link #submit}, rung like a doorbell: once
 * per duty cycle for tasks submitted from completion callbacks) and takes completions back from another
 * ({@link #work()}). The two halves share only the {@link TcpLink} (rings, doorbell, broken verdict, teardown
 * state). There is no lock, no hand-over of the receive side between threads, and the engine never waits on a
 * full socket. The wire is {@link io.jdoca.rdma.wire.TcpFrame}'s.
 *
 * <p>Threads: every method here on the engine thread; {@link #io()} is the agent's. Allocation-free on the data
 * path.
 */
final class TcpEndpoint extends RdmaEndpoint {
    static final long HEARTBEAT_NANOS = 200_000_000L;
    private static final int SOCKET_BUFFER = 4 << 20;
    /**
     * Payloads up to this size are copied behind the header and leave in one write. A header sent
     * alone wakes the peer's reader for 64 bytes and the payload wakes it again: measured on
     * loopback, copying up to 64 KiB to avoid that doubles 64 KiB write and read throughput (0.55-0.64x
     * of a raw socket stream with two writes, 1.3-1.4x with one). One write without the copy would be
     * a gathering write, and NIO allocates a scope releaser per call for segment-backed buffers.
     * Larger payloads go straight from registered memory after their header.
     */
    static final int COALESCE = RdmaProperties.TCP_COALESCE.asInt();
    /** Longer than this without an engine tick (and not asleep), the engine is paused: RNR time does not run. */
    static final long ENGINE_PAUSE_NANOS = 100_000_000L;
    /** Most RNR wait one check may count (a late check saw nothing in between). */
    static final long RNR_CREDIT_NANOS = 10_000_000L;
    /** Longest a message's acknowledgement waits for a request of the local application to ride with. */
    static final long ACK_DELAY_NANOS = 20_000L;

    private final TcpLink link;
    private final TcpConnectionIo io;
    /** Most tasks of this connection in flight (submitted, not yet completed on the engine). */
    private final int depth;
    private long nextSeq;
    private int inflight;
    /** Tasks published into the submission ring so far. */
    private long published;
    /** Tasks were published during the duty cycle: the doorbell rings in {@link #afterWork()}. */
    private boolean doorbellOwed;
    /** The context's transport agent, which serves this socket (null: not started). */
    private TcpTransportAgent agent;

    TcpEndpoint(Rdma rdma, RdmaConnection conn, SocketChannel ch, int sendQueueSize, int recvQueueSize, int maxList) {
        super(rdma, conn);
        this.link = new TcpLink(rdma, conn, ch, sendQueueSize, recvQueueSize);
        this.depth = link.submitted.capacity();
        this.io = new TcpConnectionIo(link);
    }

    static void configure(SocketChannel ch) throws IOException {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
        ch.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
        ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
    }

    /** The agent's half (the agent's thread only). */
    TcpConnectionIo io() {
        return io;
    }

    /**
     * Control path, engine thread: switches the socket to non-blocking and hands it to the
     * context's transport {@code agent}, its only reader and writer from now on.
     */
    void startIo(TcpTransportAgent agent) {
        if (agent == null) {
            abandon("no tcp transport agent to serve the socket");
            return;
        }
        try {
            link.ch.configureBlocking(false);
        } catch (IOException | RuntimeException e) {
            abandon("cannot set up the socket: " + e);
            return;
        }
        this.agent = agent;
        if (!agent.add(this)) {
            this.agent = null;
            abandon("too many connections for the tcp transport agent");
        }
    }

    /** The socket never reached an agent: broken, and nothing to hand back. */
    private void abandon(String why) {
        link.markBroken(DocaError.CONNECTION_RESET, why);
        link.exit();
    }

    @Override
    DocaError submit(RdmaTask t) {
        if (link.phase() != TcpLink.Phase.OPEN) {
            return DocaError.NOT_CONNECTED;
        }
        if (inflight >= depth) {
            return DocaError.AGAIN;
        }
        t.seq = nextSeq++;
        link.submitted.offer(t); // never full: at most depth tasks are in flight
        inflight++;
        published++;
        if (rdma.inWork()) {
            // Submitted from a completion callback: the doorbell rings at the end of the duty cycle,
            // so the requests a burst of completions re-arms leave in one system call.
            doorbellOwed = true;
        } else {
            TcpTransportAgent a = agent;
            if (a != null && a.runsOnThisThread() && io.attached()) {
                // INVOKER: this thread is also the agent's; the request leaves in this call, as from a NIC's
                // doorbell, instead of at the next engine pass (one pass less per message on this side).
                doorbellOwed = false;
                link.doorbell = published;
                if (io.sendNow()) {
                    a.wake(); // the rest (or the write interest, or the verdict) at the next pass
                }
            } else {
                ring();
            }
        }
        return DocaError.SUCCESS;
    }

    /** Lets the agent take every published task, and wakes it if it sleeps. */
    private void ring() {
        doorbellOwed = false;
        link.doorbell = published;
        TcpTransportAgent a = agent;
        if (a != null) {
            a.wake();
        }
    }

    @Override
    int work() {
        link.engineTicks.lazySet(link.engineTicks.getPlain() + 1);
        if (link.engineSleeping) {
            link.engineSleeping = false;
        }
        int n = drainCompletions();
        DocaError b = link.broken();
        if (b != null && !link.closing()) {
            close(b);
            rdma.connectionBroken(conn, b, link.brokenWhy());
        }
        if (link.phase() == TcpLink.Phase.CLOSED_EXITED && link.flush()) {
            n += drainCompletions();
            // The agent let the socket go: tasks it never took complete here (the ring's consumer
            // is this thread from now on).
            Object o;
            while ((o = link.submitted.poll()) != null) {
                RdmaTask t = (RdmaTask) o;
                t.result = link.closeReason;
                n += finish(t);
            }
        }
        return n;
    }

    private int drainCompletions() {
        int n = 0;
        Object o;
        while ((o = link.completions.poll()) != null) {
            n += finish((RdmaTask) o);
        }
        return n;
    }

    private int finish(RdmaTask t) {
        DocaError r = t.result;
        if (t.kind != RdmaTask.K_RECV) {
            inflight--;
        }
        if (r == DocaError.SUCCESS && (t.kind == RdmaTask.K_WRITE || t.kind == RdmaTask.K_WRITE_IMM)) {
            t.remote.appendData(t.len);
        }
        rdma.done(t, r);
        if (r == DocaError.TIME_OUT && t.kind != RdmaTask.K_RECV && !link.closing()) {
            link.markBroken(DocaError.CONNECTION_RESET, "receiver not ready: the peer posted no receive task within "
                    + rdma.rnrTimeoutNanos() / 1_000_000 + " ms (RNR retries exceeded)");
            close(DocaError.CONNECTION_RESET);
            rdma.connectionBroken(conn, DocaError.CONNECTION_RESET, link.brokenWhy());
        }
        return 1;
    }

    @Override
    boolean hasPendingWork() {
        return !link.completions.isEmpty() || doorbellOwed || (link.broken() != null && !link.closing())
                || link.phase() == TcpLink.Phase.CLOSED_EXITED;
    }

    @Override
    void afterWork() {
        if (doorbellOwed) {
            ring();
        }
    }

    /** The engine goes to sleep: the doorbell rings if it still owes it, and the RNR clock notes the sleep. */
    void beforeWait() {
        if (doorbellOwed) {
            ring();
        }
        if (!link.engineSleeping) {
            link.engineSleeping = true;
        }
    }

    @Override
    void close(DocaError reason) {
        if (!link.close(reason)) {
            return;
        }
        TcpTransportAgent a = agent;
        if (a == null) {
            try {
                link.ch.close();
            } catch (IOException ignored) {
                // nothing else to do with it
            }
            link.exit();
        } else {
            // The agent owns the socket: it says goodbye, closes it and hands back every task it held.
            a.wake();
        }
    }

    @Override
    boolean isDrained() {
        return link.phase() == TcpLink.Phase.FLUSHED && link.completions.isEmpty();
    }

    @Override
    void release() {
        // Direct buffers are freed by their cleaners; the agent closed the socket when it let it go.
    }

    @Override
    long maxSleepNanos() {
        // The agent wakes the engine on every completion; poll now and then for the keepalive's verdict.
        return 50_000_000L;
    }

    /** Why the connection broke (the liveness rule that fired), or null; tests and logs. */
    String brokenWhy() {
        return link.brokenWhy();
    }

    /** The agent serving this connection (tests), null before {@link #startIo}. */
    TcpTransportAgent agent() {
        return agent;
    }
}
