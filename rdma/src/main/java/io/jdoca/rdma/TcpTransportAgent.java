package io.jdoca.rdma;

import io.jdoca.core.agent.Agent;
import io.jdoca.core.agent.AgentRunner;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.ring.SpscRing;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The TCP transport agent of one {@link Rdma} context, its NIC: one thread ({@code jdoca-rdma-tcp-<n>},
 * on a core {@link AgentRunner}) with one {@link Selector} over every socket of the context, the only
 * reader and the only writer of each ({@link TcpEndpoint#ioService}). It takes the tasks the engine
 * submitted from each connection's submission ring (as far as the doorbell allows), writes their
 * frames, serves the peer's requests against the exported maps whether or not the application polls,
 * fills posted receives and hands completions back through the completion ring, waking the engine.
 * Keepalive is a deadline in its duty cycle: every {@code HEARTBEAT_NANOS / 2} it asks each
 * connection for its liveness verdict and queues a heartbeat on connections idle for
 * {@link TcpEndpoint#HEARTBEAT_NANOS}.
 *
 * <p>Idle: while traffic is recent (the last work less than {@link #SPIN_NANOS} ago) it polls its
 * selector without blocking and yields between looks (on two cores a hand-off then costs no wake-up
 * on either side); otherwise it sleeps in the selector until a socket is ready, an engine rings
 * ({@link #wake()}: a system call only when the agent is in {@code select}), a receive is posted
 * while a message waits for one ({@link #recvPosted()}), or its next deadline.
 *
 * <p>Threads: the engine thread hands new connections over through an SPSC ring ({@link #add}) and
 * calls {@link #wake()} / {@link #recvPosted()}; everything else runs on the agent's thread. Its duty
 * cycle allocates nothing.
 */
final class TcpTransportAgent implements Agent {
    private static final System.Logger LOG = System.getLogger(TcpTransportAgent.class.getName());
    private static final AtomicInteger CONTEXTS = new AtomicInteger();
    /** Most connections one context's agent serves (the hand-over ring's depth; the table grows). */
    private static final int ADD_RING = 256;
    private static final long KEEPALIVE_TICK_NANOS = TcpEndpoint.HEARTBEAT_NANOS / 2;
    /**
     * How long after its last work the agent keeps looking without sleeping. A round trip's next
     * step (the engine answering a message, the peer answering a request) comes within tens of
     * microseconds; sleeping in between would cost a wake-up per hop.
     */
    static final long SPIN_NANOS = Long.getLong("jdoca.rdma.tcp.spinNanos", 50_000L);
    /**
     * Yield after a duty cycle that did work too: the engine just handed a completion, or the peer's
     * agent just sent bytes to, may share this core ({@code ./jdoca bench rdma --quick}, tcp only,
     * three alternating runs each: round-trip p50 26–28 µs with it, 30–35 µs without).
     * {@code -Djdoca.rdma.tcp.yieldAfterWork=false} turns it off.
     */
    static final boolean YIELD_AFTER_WORK = Boolean.parseBoolean(System.getProperty("jdoca.rdma.tcp.yieldAfterWork", "true"));

    private final String role;
    private final Selector selector;
    /** Engine thread → agent: connections to serve. */
    private final SpscRing added = new SpscRing(ADD_RING);
    private final IdleStrategy idle;
    /**
     * Readiness from the selector goes straight to the connection (no selected-key set: no
     * allocation); a key delivered while the idle strategy selected makes the readiness fresh.
     */
    private final Consumer<SelectionKey> ready = k -> {
        this.selected = true;
        ((TcpEndpoint) k.attachment()).ready(k.readyOps());
    };
    private final AgentRunner runner;
    /** Some connection waits for a posted receive: a posted receive wakes the agent. */
    private volatile boolean awaitingRecv;
    // ---- agent thread
    private TcpEndpoint[] eps = new TcpEndpoint[8];
    private int count;
    private long nextKeepalive;
    private long lastWorkNanos;
    /** Longest the agent may sleep now (0: look again at once), from the last duty cycle. */
    private long sleepNanos = KEEPALIVE_TICK_NANOS;
    /** The idle strategy's select delivered keys: readiness is fresh, the next duty cycle need not poll the selector. */
    private boolean selected;

    private TcpTransportAgent(Selector selector) {
        this.role = "jdoca-rdma-tcp-" + CONTEXTS.getAndIncrement();
        this.selector = selector;
        // Sleeps in the selector; bounds under 1 ms (recent traffic: 0) yield instead; yields after work too.
        this.idle = IdleStrategy.selecting(selector, () -> sleepNanos, ready, YIELD_AFTER_WORK);
        this.runner = new AgentRunner(this, idle, (a, e) -> LOG.log(System.Logger.Level.WARNING, role + ": " + e));
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
        runner.wake();
        return true;
    }

    Selector selector() {
        return selector;
    }

    /** Any thread: ends the agent's sleep now (a doorbell, a connection closes); no system call unless it sleeps in select. */
    void wake() {
        idle.wake();
    }

    /** Engine thread: a receive was posted; wakes the agent if a message waits for one. */
    void recvPosted() {
        if (awaitingRecv) {
            idle.wake();
        }
    }

    /** Control path (the context went idle): stops the thread and closes the selector. */
    void close() {
        runner.close();
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
        if (!selected && count > 0) {
            try {
                selector.selectNow(ready);
            } catch (IOException | java.nio.channels.ClosedSelectorException e) {
                // every connection is still looked at below; a failing selector shows as failing sockets
            }
        }
        selected = false;
        long sleep = now - nextKeepalive >= 0 ? 0 : nextKeepalive - now;
        boolean recv = false;
        for (int i = 0; i < count; i++) {
            TcpEndpoint ep = eps[i];
            long r = ep.ioService(now);
            if (r == TcpEndpoint.IO_DONE) {
                eps[i] = eps[--count];
                eps[count] = null;
                i--;
                work++;
                continue;
            } else if (r == 0) {
                work++;
            } else {
                sleep = Math.min(sleep, r);
            }
            recv |= ep.awaitingRecv();
        }
        if (recv != awaitingRecv) {
            awaitingRecv = recv;
        }
        if (now - nextKeepalive >= 0) {
            nextKeepalive = now + KEEPALIVE_TICK_NANOS;
            sleep = Math.min(sleep, KEEPALIVE_TICK_NANOS);
            for (int i = 0; i < count; i++) {
                eps[i].keepalive(now);
            }
        }
        if (work > 0) {
            lastWorkNanos = now;
        }
        sleepNanos = now - lastWorkNanos < SPIN_NANOS ? 0 : sleep;
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
