package io.jdoca.storage.targetrdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.DocaError;
import io.jdoca.storage.wire.ControlCodec;
import io.jdoca.storage.wire.ControlFrameDecoder;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlMessageType;
import io.jdoca.storage.wire.ControlPayload;
import io.jdoca.storage.common.TargetControlState;
import io.jdoca.storage.common.TcpControlChannel;
import io.jdoca.testkit.JavaProcess;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** target-rdma's control sequence and its handling of bad input, over a real TCP control channel. */
class TargetControlTest {
    private final ExecutorService ex = Executors.newCachedThreadPool();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final AtomicBoolean abort = new AtomicBoolean();
    private CompletableFuture<Integer> rc;
    private int port;

    @BeforeEach
    void start() throws Exception {
        port = JavaProcess.freePort();
        TargetRdma t = new TargetRdma(new TargetRdma.Config("sw0", List.of(0), port, null, 16, 4096, null,
                5_000_000_000L),
                abort);
        rc = CompletableFuture.supplyAsync(() -> t.run(new PrintStream(out, true)), ex);
    }

    @AfterEach
    void stop() throws Exception {
        abort.set(true);
        rc.get(20, TimeUnit.SECONDS);
        ex.shutdownNow();
    }

    private TcpControlChannel client() {
        return TcpControlChannel.client(new InetSocketAddress("127.0.0.1", port), 10_000_000_000L);
    }

    private Socket connect() throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try {
                return new Socket("127.0.0.1", port);
            } catch (java.net.ConnectException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(20);
            }
        }
    }

    private static ControlMessage ask(TcpControlChannel c, ControlMessage m) {
        c.send(m);
        ControlMessage r = c.receive(5_000_000_000L);
        assertThat(r).as("reply to %s", m).isNotNull();
        assertThat(r.messageId()).isEqualTo(m.messageId());
        assertThat(r.correlationId()).isEqualTo(m.correlationId());
        return r;
    }

    @Test
    void outOfOrderMessagesGetUnexpectedAndChangeNothing() {
        try (TcpControlChannel c = client()) {
            ControlMessage r = ask(c, ControlMessage.of(ControlMessageType.START_STORAGE_REQUEST, 1, 77));
            assertThat(r.type()).isEqualTo(ControlMessageType.ERROR_RESPONSE);
            assertThat(r.asError().error()).isEqualTo(DocaError.UNEXPECTED);
            assertThat(r.asError().message()).contains("expected query_storage_request");
            ControlMessage q = ask(c, ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST, 2, 77));
            assertThat(q.asStorageInfo()).isEqualTo(new ControlPayload.StorageInfo(16 * 4096, 4096));
            ControlMessage again = ask(c, ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST, 3, 77));
            assertThat(again.asError().error()).isEqualTo(DocaError.UNEXPECTED);
        }
    }

    @Test
    void initWithMoreCoresThanCpusIsInvalidValue() {
        try (TcpControlChannel c = client()) {
            ask(c, ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST, 1, 1));
            ControlMessage r = ask(c, new ControlMessage(ControlMessageType.INIT_STORAGE_REQUEST, 2, 1,
                    new ControlPayload.InitStorage(8, 2, new byte[10])));
            assertThat(r.asError().error()).isEqualTo(DocaError.INVALID_VALUE);
            assertThat(r.asError().message()).contains("2 cores").contains("has 1");
            ControlMessage bad = ask(c, new ControlMessage(ControlMessageType.INIT_STORAGE_REQUEST, 3, 1,
                    new ControlPayload.InitStorage(8, 1, new byte[10])));
            assertThat(bad.asError().error()).isEqualTo(DocaError.INVALID_VALUE);
            assertThat(bad.asError().message()).contains("malformed memory map export");
        }
    }

    /** Reads one whole control message from {@code in} (fails if the connection closes first). */
    static ControlMessage readMessage(InputStream in) throws java.io.IOException {
        ControlFrameDecoder d = new ControlFrameDecoder();
        byte[] buf = new byte[512];
        while (true) {
            ControlMessage m = d.next();
            if (m != null) {
                return m;
            }
            int n = in.read(buf);
            assertThat(n).as("connection closed before a whole frame").isPositive();
            d.feed(buf, 0, n);
        }
    }

    /**
     * Garbage inside a session is answered and the session goes on. (A connection whose first frame is
     * garbage never gets the session: TargetHandshakeTest.)
     */
    @Test
    void garbageFramesGetErrorResponsesAndTheTargetKeepsServing() throws Exception {
        try (Socket s = connect()) {
            OutputStream o = s.getOutputStream();
            InputStream in = s.getInputStream();
            s.setSoTimeout(5000);
            // the session's first request, then unknown type 99 with ids 5/6, a truncated init_storage
            // payload and an out-of-order query
            o.write(ControlCodec.encode(ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST, 1, 1)));
            o.flush();
            assertThat(readMessage(in).type()).isEqualTo(ControlMessageType.QUERY_STORAGE_RESPONSE);
            o.write(HexFormat.of().parseHex("0000000c 00000063 00000005 00000006".replace(" ", "")));
            o.write(HexFormat.of().parseHex("0000000e 00000003 00000007 00000008 0000".replace(" ", "")));
            o.write(ControlCodec.encode(ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST, 9, 9)));
            o.flush();
            ControlFrameDecoder d = new ControlFrameDecoder();
            ControlMessage[] got = new ControlMessage[3];
            int n = 0;
            byte[] buf = new byte[512];
            while (n < 3) {
                int k = in.read(buf);
                assertThat(k).isPositive();
                d.feed(buf, 0, k);
                ControlMessage m;
                while ((m = d.next()) != null) {
                    got[n++] = m;
                }
            }
            assertThat(got[0].asError().error()).isEqualTo(DocaError.INVALID_VALUE);
            assertThat(got[0].messageId()).isEqualTo(5);
            assertThat(got[0].asError().message()).contains("unknown control message type 99");
            assertThat(got[1].asError().error()).isEqualTo(DocaError.INVALID_VALUE);
            assertThat(got[1].messageId()).isEqualTo(7);
            assertThat(got[2].asError().error()).isEqualTo(DocaError.UNEXPECTED); // the session is in WAIT_INIT
        }
    }

    @Test
    void oversizedFrameDropsTheClientAndTheTargetExitsCleanly() throws Exception {
        try (Socket s = connect()) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(ControlCodec.encode(ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST,
                    1, 1)));
            assertThat(readMessage(s.getInputStream()).type()).isEqualTo(ControlMessageType.QUERY_STORAGE_RESPONSE);
            s.getOutputStream().write(HexFormat.of().parseHex("7fffffff0000000100000002000000030000"));
            s.getOutputStream().flush();
            s.setSoTimeout(5000);
            byte[] buf = new byte[512];
            int k = s.getInputStream().read(buf);
            ControlFrameDecoder d = new ControlFrameDecoder();
            d.feed(buf, 0, k);
            ControlMessage m = d.next();
            assertThat(m.asError().error()).isEqualTo(DocaError.TOO_BIG);
        }
        assertThat(rc.get(20, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("disconnected before shutdown").contains("| Stats");
    }

    @Test
    void stateMachineTableIsStrict() {
        for (TargetControlState a : TargetControlState.values()) {
            for (TargetControlState b : TargetControlState.values()) {
                boolean legal = a.canTransitionTo(b);
                // the end of a session (shutdown, or the client gone) returns any state to WAIT_QUERY
                boolean expected = b == TargetControlState.WAIT_QUERY
                        ? a != TargetControlState.WAIT_QUERY : switch (a) {
                    case WAIT_QUERY -> b == TargetControlState.WAIT_INIT;
                    case WAIT_INIT -> b == TargetControlState.WAIT_RDMA_CONNECTIONS;
                    case WAIT_RDMA_CONNECTIONS -> b == TargetControlState.WAIT_RDMA_CONNECTIONS
                            || b == TargetControlState.WAIT_START;
                    case WAIT_START -> b == TargetControlState.RUNNING;
                    case RUNNING -> b == TargetControlState.STOPPED;
                    case STOPPED -> b == TargetControlState.SHUT_DOWN;
                    case SHUT_DOWN -> false;
                };
                assertThat(legal).as("%s -> %s", a, b).isEqualTo(expected);
            }
        }
        assertThat(TargetControlState.WAIT_RDMA_CONNECTIONS.next(3,
                4)).isEqualTo(TargetControlState.WAIT_RDMA_CONNECTIONS);
        assertThat(TargetControlState.WAIT_RDMA_CONNECTIONS.next(4, 4)).isEqualTo(TargetControlState.WAIT_START);
    }
}
