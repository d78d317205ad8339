package io.jdoca.sta;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.sta.nvmf.tcp.DataPdu;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import org.junit.jupiter.api.Test;

/**
 * Which sockets an engine reads, over real loopback sockets: in the pass right after its selector returned, only
 * those the selector reported (the others would cost a read that finds nothing, once per back-end completion of
 * an RBD namespace); in busy passes all, except that a socket found empty many times in a row is read on every 16th
 * pass only, and at once when the selector reports it. Each step asserts what the namespace executed.
 */
class SelectorReadsTest {
    private static final int BS = 4096;

    /** One queue's sockets: the target's end is the engine's, {@code arrived} tells the test its bytes are there. */
    private record Wire(ServerSocketChannel server, SocketChannel client, SocketChannel target, Selector arrived)
            implements AutoCloseable {
        static Wire open() throws Exception {
            ServerSocketChannel server = ServerSocketChannel.open()
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            SocketChannel client = SocketChannel.open(server.getLocalAddress());
            SocketChannel target = server.accept();
            client.configureBlocking(false);
            return new Wire(server, client, target, Selector.open());
        }

        /** Blocks until the client's bytes are readable at the target's end (a second selector on it). */
        void awaitBytes() throws Exception {
            arrived.selectedKeys().clear();
            assertThat(arrived.select(10_000)).as("the command reached the target's socket").isEqualTo(1);
        }

        @Override
        public void close() throws IOException {
            arrived.close();
            target.close();
            client.close();
            server.close();
        }
    }

    private static TestClient connect(TestBed bed, Wire w) throws Exception {
        bed.io.qpConnect(w.target()); // non-blocking from here; the engine watches it once it takes the QP over
        w.target().register(w.arrived(), SelectionKey.OP_READ);
        TestClient c = new TestClient(bed, w.client());
        c.connectIoQueue(false, false);
        return c;
    }

    private static void expectRead(TestClient c, int cid) {
        c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
        assertThat(DataPdu.cccid(c.rx, 0)).isEqualTo(cid);
        c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
        assertThat(c.cqeCid()).isEqualTo(cid);
    }

    @Test
    void thePassAfterASelectReadsOnlyTheSocketsItReported() throws Exception {
        try (TestBed bed = new TestBed(8 << 20, BS); Wire w = Wire.open()) {
            TestClient c = connect(bed, w);
            long reads = bed.ns.stats().get("reads");

            // The engine sleeps with nothing to read: its selector returns empty-handed at the timeout.
            bed.io.waitForIo(1_000_000L);
            c.read(5, 0, 1, BS);
            w.awaitBytes();
            bed.pe.progress();
            assertThat(bed.ns.stats().get("reads")).as("not reported by the select: not read in the pass after it")
                    .isEqualTo(reads);
            bed.pe.progress();
            assertThat(bed.ns.stats().get("reads")).as("read by the next (busy) pass").isEqualTo(reads + 1);
            expectRead(c, 5);

            // Bytes there before the sleep: the selector reports them and the pass after it reads them.
            c.read(6, 1, 1, BS);
            w.awaitBytes();
            bed.io.waitForIo(1_000_000_000L);
            bed.pe.progress();
            assertThat(bed.ns.stats().get("reads")).as("reported by the select: read at once").isEqualTo(reads + 2);
            expectRead(c, 6);
        }
    }

    @Test
    void aQuietSocketIsStillReadWithinSixteenBusyPassesAndAtOnceWhenSelected() throws Exception {
        try (TestBed bed = new TestBed(8 << 20, BS); Wire w = Wire.open()) {
            TestClient c = connect(bed, w);
            long reads = bed.ns.stats().get("reads");
            for (int i = 0; i < 100; i++) {
                bed.pe.progress(); // busy passes that find the socket empty
            }
            c.read(7, 2, 1, BS);
            w.awaitBytes();
            int passes = 0;
            while (bed.ns.stats().get("reads") == reads && passes < 64) {
                bed.pe.progress();
                passes++;
            }
            assertThat(passes).as("busy passes until a quiet socket's command ran").isBetween(1, 16);
            expectRead(c, 7);

            for (int i = 0; i < 100; i++) {
                bed.pe.progress();
            }
            c.read(8, 3, 1, BS);
            w.awaitBytes();
            bed.io.waitForIo(1_000_000_000L);
            bed.pe.progress();
            assertThat(bed.ns.stats().get("reads")).as("a quiet socket the selector reports is read at once")
                    .isEqualTo(reads + 2);
            expectRead(c, 8);
        }
    }
}
