package io.jdoca.rdma;

import io.jdoca.core.agent.Agent;
import io.jdoca.core.agent.AgentRunner;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.ring.SpscRing;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The TCP transport agent, the NIC of this transport: one {@link Selector} over every socket it
 * serves, the only reader and the only writer of each ({@link TcpConnectionIo#ioService}). It takes the
 * tasks the engine submitted from each connection's submission ring (as far as the doorbell allows),
 * writes their frames, serves the peer's requests against the exported maps, fills posted receives
 * and hands completions back through the completion ring. Keepalive is a deadline in its duty
 * cycle: every {@code HEARTBEAT_NANOS / 2} it asks each connection for its liveness verdict and
 * queues a heartbeat on connections idle for {@link TcpEndpoint#HEARTBEAT_NANOS}.
 *
 * <p>Who runs the duty cycle is chosen per process ({@link Threading}, after Aeron's threading
 * modes; {@code -Djdoca.rdma.tcp.threading}):
 * <ul>
 * <li>{@link Threading#INVOKER} (default): the progress engine's thread, inside {@code progress()}
 * (Aeron's agent invoker). One agent per engine, shared by the engine's TCP contexts; the engine's
 * notification wait sleeps in the agent's selector ({@link ProgressEngine#setSleeper}), so a
 * readable socket wakes a sleeping engine and a heartbeat deadline bounds its sleep. A round trip
 * crosses no thread boundary but the socket's; the peer is served while the application
 * progresses or waits in notification mode, not while its engine thread does something else.
 * In both modes a look at a busy connection reads its socket directly rather than after a
 * selector poll ({@link #DIRECT_POLL_MAX}).
 * <li>{@link Threading#DEDICATED}: a thread of its own per context ({@code jdoca-rdma-tcp-<n>} on a
 * core {@link AgentRunner}), which serves the peer whether or not the application progresses, at
 * the price of two thread hand-offs per message on each side (on two cores the send/receive round
 * trip doubles: docs/performance/rdma.md). While traffic is recent (the last work less than
 * {@link #SPIN_NANOS} ago) it looks without blocking and yields between looks;
 * otherwise it sleeps in the selector until a socket is ready, an engine rings ({@link #wake()}: a
 * system call only when the agent is in {@code select}), a receive is posted while a message waits
 * for one ({@link #recvPosted()}), or its next deadline.
 * </ul>
 *
 * <p>Threads: DEDICATED: the engine thread hands new connections over through an SPSC ring
 * ({@link #add}) and calls {@link #wake()} / {@link #recvPosted()}; everything else runs on the
 * agent's thread. INVOKER: everything on the engine thread ({@link #wake()} from any thread). The
 * duty cycle allocates nothing.
 */
final class TcpTransportAgent implements Agent {
    private static final System.Logger LOG = System.getLogger(TcpTransportAgent.class.getName());
    private static final AtomicInteger CONTEXTS = new AtomicInteger();
    /** Most connections one context's agent serves (the hand-over ring's depth; the table grows). */
    private static final int ADD_RING = 256;
    private static final long KEEPALIVE_TICK_NANOS = TcpEndpoint.HEARTBEAT_NANOS / 2;
    /**
     * DEDICATED: how long after its last work the agent keeps looking without sleeping. A round trip's next
     * step (the engine answering a message, the peer answering a request) comes within tens of
     * microseconds; sleeping in between would cost a wake-up per hop.
     */
    static final long SPIN_NANOS = RdmaProperties.TCP_SPIN_NANOS.asLong();
    /**
     * DEDICATED: yield after a duty cycle that did work too: the engine just handed a completion, or the peer's
     * agent just sent bytes to, may share this core ({@code ./jdoca bench rdma --quick}, tcp only,
     * three alternating runs each: round-trip p50 26–28 µs with it, 30–35 µs without).
     * {@code -Djdoca.rdma.tcp.yieldAfterWork=false} turns it off.
     */
    static final boolean YIELD_AFTER_WORK = RdmaProperties.TCP_YIELD_AFTER_WORK.asBoolean();

    /**
     * While traffic is recent (the last work less than {@link #SPIN_NANOS} ago), an agent serving at
     * most this many sockets, each between frames and with room to write ({@link TcpConnectionIo#directPollable}),
     * reads them directly instead of asking its selector first:
     * on a busy connection the selector poll is a system call on every look that the read right
     * after it repeats (round trip p50 ~2 µs shorter: docs/performance/rdma.md). With more sockets
     * one poll is cheaper than a read each. {@code -Djdoca.rdma.tcp.directPollMax=0} turns it off.
     */
    static final int DIRECT_POLL_MAX = RdmaProperties.TCP_DIRECT_POLL_MAX.asInt();

    /**
     * Who runs a context's transport agent ({@code -Djdoca.rdma.tcp.threading=dedicated|invoker}),
     * after Aeron's threading modes: its own thread, or the progress engine's thread inside
     * {@code progress()} (Aeron's agent invoker).
     */
    enum Threading {
        /**
         * A thread of its own per context: the peer's one-sided operations and heartbeats are
         * served whether or not the application progresses (a NIC's behaviour); a round trip
         * crosses two more thread hand-offs on each side.
         */
        DEDICATED,
        /**
         * The engine's progress runs the duty cycle and its notification wait sleeps in the
         * agent's selector: no transport thread, no hand-off between threads, but the peer is
         * served only while the application progresses (or waits in notification mode).
         */
        INVOKER;

        /** The mode named by {@code s}, or null if it names none. */
        static Threading parse(String s) {
            return switch (s.trim().toLowerCase(java.util.Locale.ROOT)) {
                case "dedicated" -> DEDICATED;
                case "invoker" -> INVOKER;
                default -> null;
            };
        }

        /** The process's choice: the property, or INVOKER (a value naming no mode is logged once and ignored). */
        static Threading fromProperty() {
            String v = RdmaProperties.TCP_THREADING.asString();
            Threading t = parse(v);
            if (t == null) {
                LOG.log(System.Logger.Level.WARNING, "-D" + RdmaProperties.TCP_THREADING.name() + "=" + v
                        + " names no mode (invoker or dedicated): using invoker");
                return INVOKER;
            }
            return t;
        }
    }

    /** This process's choice ({@link Threading}). */
    static final Threading THREADING = Threading.fromProperty();

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
        ((TcpConnectionIo) k.attachment()).ready(k.readyOps());
    };
    /** DEDICATED: the agent's own thread; null when INVOKER. */
    private final AgentRunner runner;
    /** INVOKER: the engine whose progress runs the duty cycle; null when DEDICATED. */
    private final ProgressEngine engine;
    /** INVOKER: where the engine sleeps (this agent's selector). */
    private final EngineSleeper engineSleeper;
    /** INVOKER, engine thread: contexts on the engine using this agent. */
    private int users;
    /** INVOKER, engine thread: a doorbell rang since the last duty cycle. */
    private boolean owed;
    /** INVOKER: the engine thread that last ran the duty cycle (null until then, and always for DEDICATED). */
    private Thread invoker;
    /** INVOKER, engine thread: the engine pass of the last duty cycle. */
    private long lastPass = -1;
    /** When the agent must look again at the latest (keepalive, delayed acknowledgements, RNR re-checks). */
    private long deadline;
    /** Some connection waits for a posted receive: a posted receive wakes the agent. */
    private volatile boolean awaitingRecv;
    // ---- agent thread
    private TcpConnectionIo[] eps = new TcpConnectionIo[8];
    private int count;
    private long nextKeepalive;
    private long lastWorkNanos;
    /** Longest the agent may sleep now (0: look again at once), from the last duty cycle. */
    private long sleepNanos = KEEPALIVE_TICK_NANOS;
    /**
     * The idle strategy's select delivered keys: readiness is fresh, the next duty cycle need not poll the selector.
     */
    private boolean selected;
    /** Duty cycles run and selector polls made by them (agent thread writes; tests read). */
    private long dutyCycles;
    private long selectorPolls;

    private TcpTransportAgent(Selector selector, ProgressEngine engine) {
        this.role = "jdoca-rdma-tcp-" + CONTEXTS.getAndIncrement();
        this.selector = selector;
        this.engine = engine;
        if (engine == null) {
            // Sleeps in the selector; bounds under 1 ms (recent traffic: 0) yield instead; yields after work too.
            this.idle = IdleStrategy.selecting(selector, () -> sleepNanos, ready, YIELD_AFTER_WORK);
            this.runner = new AgentRunner(this, idle, (a, e) -> LOG.log(System.Logger.Level.WARNING, role + ": " + e));
            this.engineSleeper = null;
        } else {
            this.idle = null;
            this.runner = null;
            this.engineSleeper = new EngineSleeper(this);
        }
    }

    private static Selector openSelector() {
        try {
            return Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a selector for the rdma tcp transport", e);
        }
    }

    /** Control path: opens the selector and starts the agent's own thread ({@link Threading#DEDICATED}). */
    static TcpTransportAgent start() {
        TcpTransportAgent a = new TcpTransportAgent(openSelector(), null);
        a.runner.start();
        return a;
    }

    /**
     * Control path, engine thread: the agent {@code pe}'s progress runs ({@link Threading#INVOKER}),
     * shared by every TCP context on that engine (one selector, so the engine can sleep in it). Falls
     * back to an agent with its own thread if the engine already sleeps in something else.
     */
    static TcpTransportAgent forEngine(ProgressEngine pe) {
        if (pe.sleeper() instanceof EngineSleeper s) {
            s.agent.users++;
            return s.agent;
        }
        TcpTransportAgent a = new TcpTransportAgent(openSelector(), pe);
        if (pe.setSleeper(a.engineSleeper) != io.jdoca.core.DocaError.SUCCESS) {
            LOG.log(System.Logger.Level.INFO,
                    "rdma tcp: the engine sleeps in another wait; the transport agent gets its own thread");
            try {
                a.selector.close();
            } catch (IOException ignored) {
                // never used
            }
            return start();
        }
        a.users = 1;
        return a;
    }

    /** Whether the engine's progress runs this agent ({@link Threading#INVOKER}). */
    boolean invoked() {
        return engine != null;
    }

    /**
     * INVOKER, engine thread: one duty cycle, at most once per engine pass unless a doorbell rang
     * since (several contexts on the engine share the agent). Returns the work done.
     */
    int invoke() {
        invoker = Thread.currentThread();
        long pass = engine.hits() + engine.misses();
        if (pass == lastPass) {
            if (!owed) {
                return 0;
            }
            // Again in the same pass, for what the callbacks submitted: the selector was just polled.
            selected = true;
        }
        lastPass = pass;
        owed = false;
        return doWork();
    }

    /**
     * INVOKER: whether the calling thread is the engine's, the one that runs this agent (a request
     * submitted there may be written at once). False for DEDICATED.
     */
    boolean runsOnThisThread() {
        return invoker == Thread.currentThread();
    }

    /** Duty cycles run so far (tests; exact on the agent's thread). */
    long dutyCycles() {
        return dutyCycles;
    }

    /** Selector polls the duty cycles made so far, sleeps not counted (tests; exact on the agent's thread). */
    long selectorPolls() {
        return selectorPolls;
    }

    /** INVOKER: a doorbell rang (or a receive was posted) since the last duty cycle. */
    boolean owed() {
        return owed;
    }

    /** INVOKER: the longest the engine may sleep before the agent must look again (its next deadline). */
    long maxSleepNanos() {
        return owed ? 0 : Math.max(0, deadline - System.nanoTime());
    }

    /** Engine thread (control path): serve {@code ep} from the next duty cycle on; false if the table is full. */
    boolean add(TcpEndpoint ep) {
        if (!added.offer(ep.io())) {
            return false;
        }
        wake();
        return true;
    }

    Selector selector() {
        return selector;
    }

    /**
     * Any thread: ends the agent's sleep now (a doorbell, a connection closes); no system call unless it sleeps in
     * select.
     */
    void wake() {
        if (engine == null) {
            idle.wake();
        } else {
            // The engine runs the agent: its next pass does; a sleeping engine wakes.
            owed = true;
            engine.notifyWork();
        }
    }

    /** Engine thread: a receive was posted; wakes the agent if a message waits for one. */
    void recvPosted() {
        if (awaitingRecv) {
            wake();
        }
    }

    /**
     * Control path (a context using it went idle): DEDICATED stops the thread and closes the
     * selector; INVOKER does so when the last context on the engine lets it go, and the engine
     * parks again.
     */
    void close() {
        if (engine == null) {
            runner.close();
        } else if (--users == 0) {
            onClose();
            engine.setSleeper(null);
        }
    }

    @Override
    public int doWork() {
        dutyCycles++;
        int work = 0;
        Object o;
        long now = System.nanoTime();
        while ((o = added.poll()) != null) {
            TcpConnectionIo ep = (TcpConnectionIo) o;
            if (ep.attach(selector, now)) {
                if (count == eps.length) {
                    eps = java.util.Arrays.copyOf(eps, count * 2); // control path: a new connection
                }
                eps[count++] = ep;
            }
            work++;
        }
        if (!selected && count > 0) {
            boolean direct = count <= DIRECT_POLL_MAX && now - lastWorkNanos < SPIN_NANOS;
            for (int i = 0; direct && i < count; i++) {
                direct = eps[i].directPollable();
            }
            if (direct) {
                // Traffic is recent and the sockets are few: read each one directly. A read that finds
                // nothing costs what a selector poll does, and one that finds a frame saves the poll.
                for (int i = 0; i < count; i++) {
                    eps[i].assumeReadable();
                }
            } else {
                selectorPolls++;
                try {
                    selector.selectNow(ready);
                } catch (IOException | java.nio.channels.ClosedSelectorException e) {
                    // every connection is still looked at below; a failing selector shows as failing sockets
                }
            }
        }
        selected = false;
        long sleep = now - nextKeepalive >= 0 ? 0 : nextKeepalive - now;
        boolean recv = false;
        for (int i = 0; i < count; i++) {
            TcpConnectionIo ep = eps[i];
            long r = ep.ioService(now);
            if (r == TcpConnectionIo.IO_DONE) {
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
        deadline = sleep == Long.MAX_VALUE ? Long.MAX_VALUE : now + sleep;
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

    /**
     * INVOKER: the engine's notification wait sleeps in the agent's selector, so a readable socket
     * (or a writable one the agent waits for) wakes the engine. Engine thread, except {@link #wake}.
     */
    private static final class EngineSleeper implements IdleStrategy.Sleeper {
        private static final long SELECT_MIN_NANOS = 1_000_000L;
        final TcpTransportAgent agent;

        EngineSleeper(TcpTransportAgent agent) {
            this.agent = agent;
        }

        @Override
        public void sleep(long maxNanos) {
            try {
                if (maxNanos >= SELECT_MIN_NANOS) {
                    agent.selector.select(agent.ready, maxNanos / 1_000_000L);
                } else {
                    // Selector timeouts are whole milliseconds: a shorter bound (another context's) parks.
                    agent.selector.selectNow(agent.ready);
                    java.util.concurrent.locks.LockSupport.parkNanos(maxNanos);
                }
            } catch (IOException | java.nio.channels.ClosedSelectorException e) {
                java.util.concurrent.locks.LockSupport.parkNanos(Math.min(maxNanos, SELECT_MIN_NANOS));
            }
        }

        @Override
        public void wake() {
            agent.selector.wakeup();
        }
    }

    @Override
    public String roleName() {
        return role;
    }
}
