package io.jdoca.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.core.DocaError;
import io.jdoca.core.PeerLiveness;
import io.jdoca.core.exec.CtxState;
import io.jdoca.testkit.JavaProcess;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite over the TCP transport, plus its liveness rules ({@link PeerLiveness}):
 * a paused peer is not declared dead, a peer that goes away is seen at once (EOF), a silent one
 * only after the configured timeout, with the rule in the reason.
 */
class TcpConformanceTest extends RdmaConformanceTest {
    @Override
    RdmaTransportType transport() {
        return RdmaTransportType.TCP;
    }

    private static void signal(JavaProcess p, String sig) throws Exception {
        Process k = new ProcessBuilder("kill", "-" + sig, Long.toString(p.pid())).inheritIO().start();
        assertEquals(0, k.waitFor(), "kill -" + sig);
    }

    private static TcpEndpoint endpoint(RdmaConnection c) {
        return (TcpEndpoint) c.endpoint;
    }

    /** One send to the echo child and its echo back (the child answers every message it gets). */
    private void roundTrip(RdmaConnection c, long ud) {
        int before = a.done.size();
        Side.check(a.rdma.taskReceiveAllocInit(a.buf(1_000_000, 4096, 0), ud).submit());
        Side.check(a.rdma.taskSendAllocInit(c, a.buf(8192, 64, 64), ud + 1).submit());
        Side.progressUntil(() -> a.done.size() >= before + 2, Duration.ofSeconds(30), "echo round trip", a);
        for (Side.Done d : a.done.subList(before, a.done.size())) {
            assertEquals(DocaError.SUCCESS, d.status(), "round trip " + ud + ": " + d);
        }
    }

    /**
     * Regression (issue 12): a peer whose whole process stalls (a GC pause, a starved or stopped
     * JVM) for longer than the old fixed 3 s limit was declared dead ("no traffic from the peer for
     * 3000 ms"); with the default timeout it is still connected afterwards and answers.
     */
    @Test
    void peerPausedLongerThanTheOldThreeSecondLimitIsNotDeclaredDead(@TempDir Path dir) throws Exception {
        a = new Side(transport());
        JavaProcess[] child = new JavaProcess[1];
        try {
            RdmaConnection c = connectToChild(a, child, dir, "echo", 0);
            child[0].awaitOutput("RUNNING", Duration.ofSeconds(60));
            roundTrip(c, 10);
            signal(child[0], "STOP");
            try {
                // The stimulus is the pause itself: 4.5 s with the peer frozen, this side polling.
                long end = System.nanoTime() + 4_500_000_000L;
                while (System.nanoTime() - end < 0 && a.rdma.state() == CtxState.RUNNING) {
                    if (!a.pe.progress()) {
                        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
                    }
                }
                assertEquals(CtxState.RUNNING, a.rdma.state(), "context after a 4.5 s peer pause: " + endpoint(c).brokenWhy());
                assertEquals(RdmaConnectionState.ESTABLISHED, c.state());
            } finally {
                signal(child[0], "CONT");
            }
            roundTrip(c, 20);
        } finally {
            if (child[0] != null) {
                child[0].close();
            }
        }
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
}
