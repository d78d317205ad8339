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
}
