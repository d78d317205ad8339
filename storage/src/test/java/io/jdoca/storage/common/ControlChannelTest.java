package io.jdoca.storage.common;

import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlMessageType;
import io.jdoca.storage.wire.ControlPayload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Devices;
import java.net.InetSocketAddress;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The control channel abstraction over TCP and over Comch: request matching, parking, errors, bad frames. */
class ControlChannelTest {
    private static final long T = 10_000_000_000L;

    /** Serves: answers query with a fixed size, init with an error, anything else with its empty response. */
    private static int serve(ControlChannel s, int n) {
        int served = 0;
        while (served < n) {
            ControlMessage m = s.receive(T);
            if (m == null) {
                return served;
            }
            ControlMessage r = switch (m.type()) {
                case QUERY_STORAGE_REQUEST -> new ControlMessage(ControlMessageType.QUERY_STORAGE_RESPONSE,
                        m.messageId(),
                        m.correlationId(), new ControlPayload.StorageInfo(1 << 20, 512));
                case INIT_STORAGE_REQUEST -> m.errorResponse(DocaError.NOT_SUPPORTED, "no init here");
                default -> m.emptyResponse();
            };
            s.send(r);
            served++;
        }
        return served;
    }

    private static void exercise(ControlChannel client) {
        ControlMessage q = client.request(ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST, 10, 3), T);
        assertThat(q.asStorageInfo().blockSize()).isEqualTo(512);
        assertThat(q.messageId()).isEqualTo(10);
        assertThat(q.correlationId()).isEqualTo(3);
        assertThatThrownBy(() -> client.request(new ControlMessage(ControlMessageType.INIT_STORAGE_REQUEST, 11, 3,
                new ControlPayload.InitStorage(1, 1, new byte[4])), T))
                .isInstanceOfSatisfying(DocaException.class, e ->
                        assertThat(e.error()).isEqualTo(DocaError.NOT_SUPPORTED))
                .hasMessageContaining("no init here");
        ControlMessage s = client.request(ControlMessage.of(ControlMessageType.START_STORAGE_REQUEST, 12, 3), T);
        assertThat(s.type()).isEqualTo(ControlMessageType.START_STORAGE_RESPONSE);
    }

    @Test
    void tcp() throws Exception {
        ExecutorService ex = Executors.newCachedThreadPool();
        try (TcpControlChannel server = TcpControlChannel.server(0)) {
            CompletableFuture<Integer> f = CompletableFuture.supplyAsync(() -> serve(server, 3), ex);
            try (TcpControlChannel client = TcpControlChannel.client(new InetSocketAddress("127.0.0.1",
                    server.localPort()), T)) {
                exercise(client);
            }
            assertThat(f.get(20, TimeUnit.SECONDS)).isEqualTo(3);
        } finally {
            ex.shutdownNow();
        }
    }

    @Test
    void comch() throws Exception {
        ExecutorService ex = Executors.newCachedThreadPool();
        String name = "cc-" + UUID.randomUUID();
        try (ComchControlChannel server = ComchControlChannel.server(Devices.open("sw0"), null, name)) {
            CompletableFuture<Integer> f = CompletableFuture.supplyAsync(() -> serve(server, 4), ex);
            try (ComchControlChannel client = ComchControlChannel.client(Devices.open("sw0"), name, T)) {
                exercise(client);
                // a frame the server cannot decode gets an error_response echoing its ids, and the server keeps serving
                client.sendRawForTest(java.util.HexFormat.of().parseHex("0000000c000000630000002a0000002b"));
                ControlMessage e = client.receive(T);
                assertThat(e.asError().error()).isEqualTo(DocaError.INVALID_VALUE);
                assertThat(e.messageId()).isEqualTo(42);
                ControlMessage stop = client.request(ControlMessage.of(ControlMessageType.STOP_STORAGE_REQUEST, 13, 3),
                        T);
                assertThat(stop.type()).isEqualTo(ControlMessageType.STOP_STORAGE_RESPONSE);
                assertThat(server.malformedFrames()).isEqualTo(1);
            }
            assertThat(f.get(20, TimeUnit.SECONDS)).isEqualTo(4);
        } finally {
            ex.shutdownNow();
        }
    }

    /** Issue 12 item 11. Fails on main: an empty Comch message fed the decoder nothing and got no reply. */
    @Test
    void anEmptyComchMessageGetsAnErrorReply() throws Exception {
        ExecutorService ex = Executors.newCachedThreadPool();
        String name = "cc-" + UUID.randomUUID();
        try (ComchControlChannel server = ComchControlChannel.server(Devices.open("sw0"), null, name)) {
            CompletableFuture<Integer> f = CompletableFuture.supplyAsync(() -> serve(server, 1), ex);
            try (ComchControlChannel client = ComchControlChannel.client(Devices.open("sw0"), name, T)) {
                client.sendRawForTest(new byte[0]);
                ControlMessage e = client.receive(T);
                assertThat(e).as("a reply to the empty message").isNotNull();
                assertThat(e.asError().error()).isEqualTo(DocaError.INVALID_VALUE);
                assertThat(e.asError().message()).contains("empty control message");
                // and the server keeps serving
                ControlMessage q = client.request(ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST, 5, 5), T);
                assertThat(q.type()).isEqualTo(ControlMessageType.QUERY_STORAGE_RESPONSE);
            }
            assertThat(f.get(20, TimeUnit.SECONDS)).isEqualTo(1);
        } finally {
            ex.shutdownNow();
        }
    }

    @Test
    void comchClientWithoutServerTimesOut() {
        assertThatThrownBy(() -> ComchControlChannel.client(Devices.open("sw0"), "absent-" + UUID.randomUUID(),
                300_000_000L))
                .isInstanceOfSatisfying(DocaException.class, e -> assertThat(e.error()).isEqualTo(DocaError.TIME_OUT));
    }

    @Test
    void serviceStateMachineIsStrict() {
        ServiceControlState s = ServiceControlState.WAIT_QUERY;
        ControlMessageType[] order = {ControlMessageType.QUERY_STORAGE_REQUEST, ControlMessageType.INIT_STORAGE_REQUEST,
                ControlMessageType.START_STORAGE_REQUEST, ControlMessageType.STOP_STORAGE_REQUEST,
                ControlMessageType.SHUTDOWN_REQUEST};
        for (ControlMessageType t : order) {
            for (ControlMessageType other : ControlMessageType.values()) {
                assertThat(s.accepts(other)).as("%s accepts %s", s, other).isEqualTo(other == t);
            }
            assertThat(s.canTransitionTo(s.next())).isTrue();
            assertThat(s.canTransitionTo(s)).isFalse();
            s = s.next();
        }
        assertThat(s).isEqualTo(ServiceControlState.SHUT_DOWN);
        // a service outlives its initiators: after shutdown the next session starts at WAIT_QUERY
        assertThat(s.canTransitionTo(ServiceControlState.WAIT_QUERY)).isTrue();
        assertThat(ServiceControlState.WAIT_QUERY.canTransitionTo(ServiceControlState.WAIT_QUERY)).isFalse();
        assertThat(s.canTransitionTo(ServiceControlState.RUNNING)).isFalse();
    }
}
