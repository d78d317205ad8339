package io.jdoca.rdma.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.rdma.RdmaTransportType;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 31: each of DOCA's RDMA sample pairs completes and verifies its data, on the shm and tcp transports (the
 * verbs transport in {@link RdmaSamplesVerbsTest}, run in the Soft-RoCE guest): both peers run at once, here on
 * two threads, exchanging descriptors by files as the samples do (-ld, -re, -m), and one pair per transport through
 * the CM ({@code -cm}). The requester side's and the responder side's outputs are checked for the data that crossed.
 */
class RdmaSamplesTest {
    /** The pairs, requester (or sender) first. */
    enum Pair {
        READ(RdmaSamples.READ_REQUESTER, RdmaSamples.READ_RESPONDER),
        WRITE(RdmaSamples.WRITE_REQUESTER, RdmaSamples.WRITE_RESPONDER),
        WRITE_IMMEDIATE(RdmaSamples.WRITE_IMMEDIATE_REQUESTER, RdmaSamples.WRITE_IMMEDIATE_RESPONDER),
        SEND_RECEIVE(RdmaSamples.SEND, RdmaSamples.RECEIVE),
        SEND_RECEIVE_IMMEDIATE(RdmaSamples.SEND_IMMEDIATE, RdmaSamples.RECEIVE_IMMEDIATE),
        SYNC_EVENT(RdmaSamples.SYNC_EVENT_REQUESTER, RdmaSamples.SYNC_EVENT_RESPONDER);

        final RdmaSamples requester;
        final RdmaSamples responder;

        Pair(RdmaSamples requester, RdmaSamples responder) {
            this.requester = requester;
            this.responder = responder;
        }
    }

    /** Both sides' exit statuses and outputs. */
    record Run(int requesterRc, String requesterOut, int responderRc, String responderOut) {
    }

    /** Runs a pair on {@code transport} over {@code device}: by descriptor files, or through the CM at {@code cm}. */
    static Run run(Pair p, String device, RdmaTransportType transport, Path dir, InetAddress cm, long timeoutMs)
            throws Exception {
        int port = cm == null ? 0 : freePort();
        RdmaSampleRuntime.Options req = new RdmaSampleRuntime.Options(device, -1, dir.resolve("req.desc"),
                dir.resolve("resp.desc"), dir.resolve("mmap.desc"), cm != null, cm, port, timeoutMs, transport);
        RdmaSampleRuntime.Options resp = new RdmaSampleRuntime.Options(device, -1, dir.resolve("resp.desc"),
                dir.resolve("req.desc"), dir.resolve("mmap.desc"), cm != null, cm, port, timeoutMs, transport);
        String text = "jdoca " + p + " over " + transport;
        ByteArrayOutputStream ro = new ByteArrayOutputStream();
        ByteArrayOutputStream qo = new ByteArrayOutputStream();
        CompletableFuture<Integer> responder = CompletableFuture.supplyAsync(
                () -> p.responder.run(resp, text, new PrintStream(ro, true, StandardCharsets.UTF_8)));
        if (cm != null) {
            // the requester dials once the responder listens
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            while (!ro.toString(StandardCharsets.UTF_8).contains("Listening on") && System.nanoTime() < deadline
                    && !responder.isDone()) {
                Thread.onSpinWait();
            }
        }
        int rq = p.requester.run(req, text, new PrintStream(qo, true, StandardCharsets.UTF_8));
        int rs = responder.get(timeoutMs * 2, TimeUnit.MILLISECONDS);
        return new Run(rq, qo.toString(StandardCharsets.UTF_8), rs, ro.toString(StandardCharsets.UTF_8));
    }

    static int freePort() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** What each pair must show on both sides. */
    static void verify(Pair p, RdmaTransportType transport, Run r) {
        String text = "jdoca " + p + " over " + transport;
        assertThat(r.requesterRc()).as("requester of %s: %s%nresponder: %s", p, r.requesterOut(), r.responderOut())
                .isZero();
        assertThat(r.responderRc()).as("responder of %s: %s%nrequester: %s", p, r.responderOut(), r.requesterOut())
                .isZero();
        String imm = "(immediate 0x" + Integer.toHexString(RdmaSamples.IMMEDIATE) + ")";
        switch (p) {
            case READ -> assertThat(r.requesterOut()).contains("Remote buffer content: " + text);
            case WRITE -> assertThat(r.responderOut()).contains("Requester has written: " + text);
            case WRITE_IMMEDIATE -> assertThat(r.responderOut()).contains("Requester has written: " + text + " " + imm);
            case SEND_RECEIVE -> assertThat(r.responderOut()).contains("Received message: " + text);
            case SEND_RECEIVE_IMMEDIATE -> assertThat(r.responderOut()).contains("Received message: " + text + " "
                    + imm);
            case SYNC_EVENT -> {
                assertThat(r.requesterOut()).contains("The responder answered: 2").contains("Notified completion: 3");
                assertThat(r.responderOut()).contains("The requester signalled: 1")
                        .contains("The requester completed: 3");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Pair.class)
    @Timeout(120)
    void everyPairCompletesAndVerifiesOnShm(Pair p, @TempDir Path dir) throws Exception {
        verify(p, RdmaTransportType.SHM, run(p, "sw0", RdmaTransportType.SHM, dir, null, 30_000));
    }

    @ParameterizedTest
    @EnumSource(Pair.class)
    @Timeout(120)
    void everyPairCompletesAndVerifiesOnTcp(Pair p, @TempDir Path dir) throws Exception {
        verify(p, RdmaTransportType.TCP, run(p, "sw0", RdmaTransportType.TCP, dir, null, 30_000));
    }

    @ParameterizedTest
    @EnumSource(value = RdmaTransportType.class, names = {"SHM", "TCP"})
    @Timeout(120)
    void aPairConnectsThroughTheCm(RdmaTransportType t, @TempDir Path dir) throws Exception {
        verify(Pair.SEND_RECEIVE, t, run(Pair.SEND_RECEIVE, "sw0", t, dir, InetAddress.getLoopbackAddress(), 30_000));
    }
}
