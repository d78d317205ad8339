package io.jdoca.rdma;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.core.PeerLiveness;
import io.jdoca.core.exec.CtxState;
import io.jdoca.testkit.JavaProcess;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite over the TCP transport, plus its liveness rules ({@link PeerLiveness}):
 * a peer that goes away is seen at once (EOF), a silent one only after the configured timeout,
 * with the rule in the reason (a paused peer: {@link RdmaConformanceTest}).
 */
class TcpConformanceTest extends RdmaConformanceTest {
    @Override
    RdmaTransportType transport() {
        return RdmaTransportType.TCP;
    }

    /** Who runs the transport agent of the sides this class makes (the child processes keep the default). */
    TcpTransportAgent.Threading threading() {
        return TcpTransportAgent.Threading.INVOKER;
    }

    @org.junit.jupiter.api.BeforeEach
    void chooseThreading() {
        Side.tcpThreading = threading();
    }

    @org.junit.jupiter.api.AfterEach
    void defaultThreading() {
        Side.tcpThreading = null;
    }

    /**
     * INVOKER: no transport thread; the engine's progress runs the agent, and its notification wait
     * sleeps in the agent's selector, so a peer's write wakes a sleeping engine at once rather than
     * at its next deadline (the keepalive tick, 100 ms). When its last context goes idle the engine
     * parks again.
     */
    @Test
    void invokerServesThePeerFromTheEngineWhichSleepsInTheSelector() throws InterruptedException {
        org.junit.jupiter.api.Assumptions.assumeTrue(threading() == TcpTransportAgent.Threading.INVOKER);
        java.util.Set<Thread> before = new java.util.HashSet<>(threadsNamed("jdoca-rdma-tcp-"));
        a = new Side(transport());
        b = new Side(transport());
        RdmaConnection[] cs = Side.connect(a, b, 2, null);
        io.jdoca.core.mem.MemoryMap remote = a.importMap(b.exportMap());
        assertTrue(b.pe.sleeper() != null, "b's engine sleeps in its transport's selector");
        java.util.concurrent.atomic.AtomicBoolean run = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.concurrent.atomic.AtomicLong sleeps = new java.util.concurrent.atomic.AtomicLong();
        // b's engine from now on: its own thread, in notification mode (up to 10 s a wait) whenever idle.
        Thread bEngine = Thread.ofPlatform().name("b-engine").start(() -> {
            while (run.get()) {
                if (!b.pe.progress()) {
                    b.pe.requestNotification();
                    sleeps.incrementAndGet();
                    b.pe.waitForNotification(10_000_000_000L);
                    b.pe.clearNotification();
                }
            }
        });
        long[] ms = new long[20];
        try {
            for (int i = 0; i < ms.length; i++) {
                long s0 = sleeps.get();
                Side.progressUntil(() -> sleeps.get() > s0 + 1, T, "b's engine goes to sleep", a);
                a.fill(i * 8L, bytes("wake-" + (i % 10) + "!"));
                long t0 = System.nanoTime();
                Side.check(a.rdma.taskWriteAllocInit(cs[i % 2], a.buf(i * 8L, 7, 7), a.remoteBuf(remote, i * 8L, 8, 0),
                        i).submit());
                int k = i;
                Side.progressUntil(() -> a.done.size() == k + 1, T, "write " + k + " served by b's sleeping engine", a);
                ms[i] = (System.nanoTime() - t0) / 1_000_000;
                assertTrue(a.done.get(k).status() == io.jdoca.core.DocaError.SUCCESS, "write " + k + ": "
                        + a.done.get(k).status());
            }
        } finally {
            run.set(false);
            b.pe.notifyWork();
            bEngine.join(10_000);
        }
        assertTrue(!bEngine.isAlive(), "b's engine thread ended");
        long[] sorted = ms.clone();
        java.util.Arrays.sort(sorted);
        // Woken only by its deadlines, the median would be ~50 ms (a tick every 100 ms).
        assertTrue(sorted[ms.length / 2] < 25, "a write to a sleeping engine takes (ms): "
                + java.util.Arrays.toString(ms));
        assertTrue(threadsNamed("jdoca-rdma-tcp-").stream().allMatch(before::contains), "no transport thread");
        a.rdma.stop();
        b.rdma.stop();
        await(() -> a.rdma.state() == CtxState.IDLE && b.rdma.state() == CtxState.IDLE, "both contexts IDLE");
        assertTrue(a.pe.sleeper() == null && b.pe.sleeper() == null,
                "the engines park again once their tcp contexts are idle");
    }

    /**
     * A busy connection is read directly, not after a selector poll at every look (the poll is a
     * second system call per message on the round trip: docs/performance/rdma.md); the selector
     * is asked again only after a pause in the traffic.
     */
    @Test
    void aBusyConnectionIsReadWithoutASelectorPollAtEveryLook() {
        org.junit.jupiter.api.Assumptions.assumeTrue(threading() == TcpTransportAgent.Threading.INVOKER);
        a = new Side(transport());
        b = new Side(transport());
        RdmaConnection c = Side.connect(a, b, 1, null)[0];
        io.jdoca.core.mem.MemoryMap remote = a.importMap(b.exportMap());
        TcpTransportAgent agent = endpoint(c).agent();
        long cycles0 = agent.dutyCycles();
        long polls0 = agent.selectorPolls();
        int n = 500;
        for (int i = 0; i < n; i++) {
            Side.check(a.rdma.taskWriteAllocInit(c, a.buf(i % 64 * 8L, 8, 8), a.remoteBuf(remote, i % 64 * 8L, 8, 0),
                    i).submit());
            int k = i;
            Side.progressUntil(() -> a.done.size() == k + 1, T, "write " + k, a, b);
        }
        assertTrue(a.done.stream().allMatch(d -> d.status() == io.jdoca.core.DocaError.SUCCESS),
                "every write succeeded");
        long cycles = agent.dutyCycles() - cycles0;
        long polls = agent.selectorPolls() - polls0;
        assertTrue(cycles >= n, n + " writes took " + cycles + " duty cycles");
        // Polling at every look gives polls == cycles; only pauses of the test thread (a loaded machine) may add some.
        assertTrue(polls * 4 < cycles, "selector polls " + polls + " in " + cycles + " duty cycles");
    }

    private static TcpEndpoint endpoint(RdmaConnection c) {
        return (TcpEndpoint) c.endpoint;
    }

    /** A peer that dies is seen at once, by the EOF rule, not after any timeout. */
    @Test
    void peerThatClosesItsSocketIsSeenAtOnceByTheEofRule(@TempDir Path dir) throws Exception {
        a = new Side(transport());
        JavaProcess[] child = new JavaProcess[1];
        try {
            RdmaConnection c = connectToChild(a, child, dir, "echo", 0);
            child[0].awaitOutput("RUNNING", Duration.ofSeconds(60));
            roundTrip(c, 30);
            child[0].kill();
            assertTrue(child[0].process().waitFor(10, java.util.concurrent.TimeUnit.SECONDS), "child died");
            long t0 = System.nanoTime();
            Side.progressUntil(() -> a.rdma.state() == CtxState.IDLE, Duration.ofSeconds(5),
                    "context IDLE after peer death", a);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms < PeerLiveness.timeoutMillis() / 10, "seen after " + ms + " ms");
            String why = endpoint(c).brokenWhy();
            assertTrue(why.startsWith("EOF") || why.startsWith("RST"), "rule in the reason: " + why);
        } finally {
            if (child[0] != null) {
                child[0].close();
            }
        }
    }

    /** A silent peer (stopped, socket open) is declared dead once the configured timeout passed, naming the rule. */
    @Test
    void silentPeerIsDeclaredDeadAfterTheConfiguredTimeoutNamingTheRule(@TempDir Path dir) throws Exception {
        long saved = PeerLiveness.timeoutMillis();
        a = new Side(transport());
        JavaProcess[] child = new JavaProcess[1];
        try {
            Side.check(PeerLiveness.setTimeoutMillis(400));
            RdmaConnection c = connectToChild(a, child, dir, "echo", 0);
            child[0].awaitOutput("RUNNING", Duration.ofSeconds(60));
            roundTrip(c, 40);
            long t0 = System.nanoTime();
            signal(child[0], "STOP");
            Side.progressUntil(() -> a.rdma.state() == CtxState.IDLE, Duration.ofSeconds(20),
                    "silent peer declared dead", a);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            String why = endpoint(c).brokenWhy();
            assertTrue(why.startsWith("silent") && why.contains("> timeout 400 ms"), "rule in the reason: " + why);
            assertTrue(ms >= 400, "declared dead after " + ms + " ms, before the timeout");
        } finally {
            PeerLiveness.setTimeoutMillis(saved);
            if (child[0] != null) {
                signal(child[0], "CONT");
                child[0].close();
            }
        }
    }

    private static java.util.List<Thread> threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix)).toList();
    }

    /**
     * Issue 17: one transport agent per context serves every connection of it (no thread per
     * connection, no keepalive thread), and it ends when its context goes idle.
     */
    @Test
    void oneTransportAgentPerContextServesEveryConnectionAndEndsWithIt() throws InterruptedException {
        org.junit.jupiter.api.Assumptions.assumeTrue(threading() == TcpTransportAgent.Threading.DEDICATED);
        java.util.Set<Thread> before = new java.util.HashSet<>(threadsNamed("jdoca-rdma-tcp-"));
        a = new Side(transport());
        b = new Side(transport());
        RdmaConnection[] cs = Side.connect(a, b, 3, null);
        io.jdoca.core.mem.MemoryMap remote = a.importMap(b.exportMap());
        for (int i = 0; i < cs.length; i++) {
            // Only a's engine runs: b's agent serves the write on each of b's connections, like a NIC.
            a.fill(i * 8L, bytes("agent-" + i));
            Side.check(a.rdma.taskWriteAllocInit(cs[i], a.buf(i * 8L, 7, 7), a.remoteBuf(remote, i * 8L, 8, 0),
                    i).submit());
            int k = i;
            Side.progressUntil(() -> a.done.size() == k + 1, T, "write " + k + " served by b's agent", a);
            assertTrue(a.done.get(k).status() == io.jdoca.core.DocaError.SUCCESS, "write " + k + ": "
                    + a.done.get(k).status());
            assertTrue(("agent-" + i).equals(new String(b.read(i * 8L, 7), java.nio.charset.StandardCharsets.UTF_8)),
                    "data");
        }
        java.util.List<Thread> agents = threadsNamed("jdoca-rdma-tcp-").stream().filter(t ->
                !before.contains(t)).toList();
        assertTrue(agents.size() == 2, "one agent per context (two contexts, three connections): " + agents);
        assertTrue(threadsNamed("jdoca-rdma-keepalive").isEmpty(), "no keepalive thread");
        assertTrue(threadsNamed("jdoca-rdma-io-").stream().noneMatch(t ->
                !t.getName().startsWith("jdoca-rdma-io-verbs")),
                "no per-connection I/O thread");
        a.rdma.stop();
        b.rdma.stop();
        await(() -> a.rdma.state() == CtxState.IDLE && b.rdma.state() == CtxState.IDLE, "both contexts IDLE");
        for (Thread t : agents) {
            t.join(10_000);
            assertTrue(!t.isAlive(), "agent still running after its context went idle: " + t);
        }
    }
}
