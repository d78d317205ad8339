package io.jdoca.comch;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.ProgressEngine;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The server's frame parser fed garbage by a raw socket client (random bytes, random kinds with
 * random payloads, absurd consumer announcements): no exception escapes progress, the connection is
 * dropped when needed, and the server then admits a well-behaved client.
 */
class ComchFuzzTest {
    @Test
    void garbageFromAClientNeverBreaksTheServer() throws Exception {
        String name = "fuzz-" + UUID.randomUUID();
        ProgressEngine pe = ProgressEngine.create();
        ComchServer server = ComchServer.create(Devices.open("sw0"), null, name);
        int[] msgs = {0};
        server.eventMsgRecvRegister((c, m, l) -> msgs[0]++);
        server.eventConsumerRegister((c, id) -> { }, (c, id) -> { });
        pe.connectCtx(server);
        assertThat(server.start()).isEqualTo(DocaError.SUCCESS);
        Random rnd = new Random(42);
        for (int round = 0; round < 200; round++) {
            try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                ch.connect(UnixDomainSocketAddress.of(Comch.socketPath(name)));
                byte[] junk;
                switch (round % 3) {
                    case 0 -> {
                        junk = new byte[rnd.nextInt(200)];
                        rnd.nextBytes(junk);
                    }
                    case 1 -> {
                        // a plausible header with a random kind and payload
                        int len = rnd.nextInt(60);
                        ByteBuffer b = ByteBuffer.allocate(5 + len).putInt(1 + len).put((byte) rnd.nextInt(10));
                        byte[] p = new byte[len];
                        rnd.nextBytes(p);
                        junk = b.put(p).array();
                    }
                    default -> {
                        // a consumer announcement with random geometry and a random path
                        ByteBuffer b = ByteBuffer.allocate(64).putInt(60).put(ComchWire.CONSUMER_NEW)
                                .putInt(rnd.nextInt())
                                .putInt(1 << rnd.nextInt(31)).putInt(rnd.nextInt()).putInt(rnd.nextInt())
                                .putLong(rnd.nextLong()).putInt(20);
                        while (b.hasRemaining()) {
                            b.put((byte) (rnd.nextInt(96) + 32));
                        }
                        junk = b.array();
                    }
                }
                ch.write(ByteBuffer.wrap(junk));
                // the server accepts every 10 ms
                long end = System.nanoTime() + 15_000_000L;
                while (System.nanoTime() < end) {
                    pe.progress();
                }
            }
            long end = System.nanoTime() + 2_000_000L;
            while (System.nanoTime() < end) {
                pe.progress();
            }
            assertThat(server.state()).isEqualTo(CtxState.RUNNING);
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (server.connection() != null && System.nanoTime() < deadline) {
            pe.progress();
        }
        ProgressEngine cpe = ProgressEngine.create();
        ComchClient client = ComchClient.create(Devices.open("sw0"), name);
        cpe.connectCtx(client);
        client.start();
        while (client.state() == CtxState.STARTING && System.nanoTime() < deadline) {
            pe.progress();
            cpe.progress();
        }
        assertThat(client.state()).isEqualTo(CtxState.RUNNING);
        client.stop();
        server.stop();
        while ((client.state() != CtxState.IDLE || server.state() != CtxState.IDLE) && System.nanoTime() < deadline) {
            pe.progress();
            cpe.progress();
        }
        pe.close();
        cpe.close();
    }
}
