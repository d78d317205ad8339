package io.jdoca.rdma;

import io.jdoca.core.agent.Agent;
import io.jdoca.core.agent.AgentRunner;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.ring.SpscRing;
import io.jdoca.rdma.wire.TcpFrame;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.Selector;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The TCP transport agent of one {@link Rdma} context: one thread ({@code jdoca-rdma-tcp-<n>}, on a
 * core {@link AgentRunner}) with one {@link Selector} over every socket of the context. It takes the
 * place of a NIC's receive engine while the application does not poll: for each connection whose
 * engine sleeps (notification mode) or has not polled for {@link TcpEndpoint#ENGINE_STALL_NANOS},
 * it services the socket ({@link TcpEndpoint#ioService}: one-sided requests against the exported
 * maps, responses completing tasks, posted receives filled) and wakes the engine on completions.
 * Keepalive is a deadline in its duty cycle: every {@code HEARTBEAT_NANOS / 2} it asks each
 * connection for its liveness verdict and sends a heartbeat on connections idle for
 * {@link TcpEndpoint#HEARTBEAT_NANOS}.
 *
 * <p>Idle, it sleeps in the selector ({@link IdleStrategy#selecting}) until a watched socket is
 * readable, the engine goes to sleep ({@link #wake()}), or the next deadline (an engine-stall check,
 * a receive-not-ready re-check, the keepalive tick).
 *
 * <p>Threads: the engine thread hands new connections over through an SPSC ring
 * ({@link #add}) and wakes the agent; everything else here runs on the agent's thread. Its duty
 * cycle allocates nothing.
 */
final class TcpTransportAgent implements Agent {
    private static final System.Logger LOG = System.getLogger(TcpTransportAgent.class.getName());
    private static final AtomicInteger CONTEXTS = new AtomicInteger();
    /** Most connections one context's agent serves (the hand-over ring's depth; the table grows). */
    private static final int ADD_RING = 256;
    private static final long KEEPALIVE_TICK_NANOS = TcpEndpoint.HEARTBEAT_NANOS / 2;

    private final String role;
    private final Selector selector;
    /** Engine thread → agent: connections to serve. */
    private final SpscRing added = new SpscRing(ADD_RING);
    private final AgentRunner runner;
    // ---- agent thread
    private TcpEndpoint[] eps = new TcpEndpoint[8];
    private int count;
    private long nextKeepalive;
    private final ByteBuffer heartbeat = ByteBuffer.allocateDirect(TcpFrame.SIZE);
    /** Longest the agent may sleep now: the earliest of its deadlines, from the last duty cycle. */
    private long sleepNanos = KEEPALIVE_TICK_NANOS;

    private TcpTransportAgent(Selector selector) {
        this.role = "jdoca-rdma-tcp-" + CONTEXTS.getAndIncrement();
        this.selector = selector;
        new TcpFrame().wrap(MemorySegment.ofBuffer(heartbeat)).init(TcpFrame.OP_HEARTBEAT);
        this.runner = new AgentRunner(this, IdleStrategy.selecting(selector, this::sleepNanos),
                (a, e) -> LOG.log(System.Logger.Level.WARNING, role + ": " + e));
    }

    /** Control path: opens the selector and starts the agent's thread. */
    static TcpTransportAgent start() {
        Selector sel;
        try {
            sel = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a selector for the rdma tcp transport", e);
        }
        TcpTransportAgent a = new TcpTransportAgent(sel);
        a.runner.start();
        return a;
    }

    /** Engine thread (control path): serve {@code ep} from the next duty cycle on; false if the table is full. */
    boolean add(TcpEndpoint ep) {
        if (!added.offer(ep)) {
            return false;
        }
        wake();
        return true;
    }

    Selector selector() {
        return selector;
    }

    /** Any thread: ends the agent's sleep now (the engine went to sleep, a connection closes). */
    void wake() {
        runner.wake();
    }

    /** Control path (the context went idle): stops the thread and closes the selector. */
    void close() {
        runner.close();
    }

    private long sleepNanos() {
        return sleepNanos;
    }

    @Override
    public int doWork() {
        int work = 0;
        Object o;
        long now = System.nanoTime();
        while ((o = added.poll()) != null) {
            TcpEndpoint ep = (TcpEndpoint) o;
            if (ep.attach(selector, now)) {
                if (count == eps.length) {
                    eps = java.util.Arrays.copyOf(eps, count * 2); // control path: a new connection
                }
                eps[count++] = ep;
            }
            work++;
        }
        long sleep = now - nextKeepalive >= 0 ? 0 : nextKeepalive - now;
        for (int i = 0; i < count; i++) {
            TcpEndpoint ep = eps[i];
            long r = ep.ioService(now);
            if (r == TcpEndpoint.IO_DONE) {
                ep.detach();
                eps[i] = eps[--count];
                eps[count] = null;
                i--;
                work++;
            } else if (r == 0) {
                work++;
            } else {
                sleep = Math.min(sleep, r);
            }
        }
        if (now - nextKeepalive >= 0) {
            nextKeepalive = now + KEEPALIVE_TICK_NANOS;
            sleep = Math.min(sleep, KEEPALIVE_TICK_NANOS);
            for (int i = 0; i < count; i++) {
                eps[i].keepalive(heartbeat, now);
            }
        }
        sleepNanos = sleep;
        return work;
    }

    @Override
    public void onClose() {
        for (int i = 0; i < count; i++) {
            eps[i].detach();
        }
        count = 0;
        try {
            selector.close();
        } catch (IOException ignored) {
            // nothing left to do with it
        }
    }

    @Override
    public String roleName() {
        return role;
    }
}
