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
            Side.progressUntil(() -> a.rdma.state() == CtxState.IDLE, Duration.ofSeconds(5), "context IDLE after peer death", a);
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
            Side.progressUntil(() -> a.rdma.state() == CtxState.IDLE, Duration.ofSeconds(20), "silent peer declared dead", a);
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
        java.util.Set<Thread> before = new java.util.HashSet<>(threadsNamed("jdoca-rdma-tcp-"));
        a = new Side(transport());
        b = new Side(transport());
        RdmaConnection[] cs = Side.connect(a, b, 3, null);
        io.jdoca.core.mem.MemoryMap remote = a.importMap(b.exportMap());
        for (int i = 0; i < cs.length; i++) {
            // Only a's engine runs: b's agent serves the write on each of b's connections, like a NIC.
            a.fill(i * 8L, bytes("agent-" + i));
            Side.check(a.rdma.taskWriteAllocInit(cs[i], a.buf(i * 8L, 7, 7), a.remoteBuf(remote, i * 8L, 8, 0), i).submit());
            int k = i;
            Side.progressUntil(() -> a.done.size() == k + 1, T, "write " + k + " served by b's agent", a);
            assertTrue(a.done.get(k).status() == io.jdoca.core.DocaError.SUCCESS, "write " + k + ": " + a.done.get(k).status());
            assertTrue(("agent-" + i).equals(new String(b.read(i * 8L, 7), java.nio.charset.StandardCharsets.UTF_8)), "data");
        }
        java.util.List<Thread> agents = threadsNamed("jdoca-rdma-tcp-").stream().filter(t -> !before.contains(t)).toList();
        assertTrue(agents.size() == 2, "one agent per context (two contexts, three connections): " + agents);
        assertTrue(threadsNamed("jdoca-rdma-keepalive").isEmpty(), "no keepalive thread");
        assertTrue(threadsNamed("jdoca-rdma-io-").stream().noneMatch(t -> !t.getName().startsWith("jdoca-rdma-io-verbs")),
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
