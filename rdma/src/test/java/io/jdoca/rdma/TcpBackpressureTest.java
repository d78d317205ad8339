package io.jdoca.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.exec.CtxState;
import io.jdoca.rdma.wire.RdmaConnectionBlob;
import io.jdoca.rdma.wire.TcpFrame;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 17, tcp transport: the engine never waits on the socket. A hand-written peer reads nothing
 * while the application submits far more than the socket buffers hold (16 sends of 4 MiB): every
 * submit and progress call returns at once (the transport agent keeps the rest pending), and once
 * the peer reads and acknowledges, every send completes in order.
 */
class TcpBackpressureTest {
    private static final int SENDS = 16;
    private static final long SIZE = Side.MEM;

    @Test
    // A separate thread: an engine stuck in a write (the design before issue 17's last step) fails the test, not hangs
    // it.
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aPeerThatDoesNotReadNeverBlocksTheEngine() throws Exception {
        try (Side a = new Side(RdmaTransportType.TCP); ServerSocketChannel fake = ServerSocketChannel.open()) {
            fake.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            a.rdma.start();
            RdmaExport x = a.rdma.export();
            byte[] peer = new RdmaConnectionBlob(2, ProcessHandle.current().pid(), AccessFlags.ANY_RDMA, -1L, Rdma.HOST,
                    fake.socket().getLocalPort(), "127.0.0.1", "", 0, 0).encode();
            assertThat(a.rdma.connect(peer, x.connection())).isEqualTo(DocaError.SUCCESS);
            try (SocketChannel s = fake.accept()) {
                readFully(s, ByteBuffer.allocate(TcpFrame.SIZE)); // the hello
                Side.progressUntil(() -> a.rdma.state() == CtxState.RUNNING, Duration.ofSeconds(10), "running", a);
                RdmaConnection c = x.connection();

                long worst = 0;
                for (int i = 0; i < SENDS; i++) {
                    long t0 = System.nanoTime();
                    assertThat(a.rdma.taskSendAllocInit(c, a.buf(0, SIZE, SIZE),
                            i).submit()).isEqualTo(DocaError.SUCCESS);
                    a.pe.progress();
                    worst = Math.max(worst, System.nanoTime() - t0);
                }
                // The peer still reads nothing: the engine keeps polling without ever waiting on the socket.
                long end = System.nanoTime() + 300_000_000L;
                while (System.nanoTime() - end < 0) {
                    long t0 = System.nanoTime();
                    a.pe.progress();
                    worst = Math.max(worst, System.nanoTime() - t0);
                }
                assertThat(a.done).as("nothing completes while the peer reads nothing").isEmpty();
                assertThat(worst).as("longest submit or progress call, ns (64 MiB queued, the peer reading nothing)")
                        .isLessThan(200_000_000L);

                // Now the peer reads every frame and acknowledges each send.
                ByteBuffer h = ByteBuffer.allocate(TcpFrame.SIZE);
                TcpFrame f = new TcpFrame().wrap(MemorySegment.ofArray(h.array()));
                ByteBuffer sink = ByteBuffer.allocateDirect(1 << 20);
                ByteBuffer ack = ByteBuffer.allocate(TcpFrame.SIZE);
                TcpFrame af = new TcpFrame().wrap(MemorySegment.ofArray(ack.array()));
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                int acked = 0;
                Thread engine = Thread.ofPlatform().start(() -> {
                    while (a.done.size() < SENDS && System.nanoTime() - deadline < 0) {
                        a.pe.progress();
                        Thread.yield();
                    }
                });
                try {
                    while (acked < SENDS) {
                        h.clear();
                        readFully(s, h);
                        int op = f.opcode();
                        if (op == TcpFrame.OP_HEARTBEAT) {
                            continue;
                        }
                        assertThat(op).isEqualTo(TcpFrame.OP_SEND);
                        assertThat(f.seq()).isEqualTo(acked);
                        assertThat(f.length()).isEqualTo(SIZE);
                        long left = f.length();
                        while (left > 0) {
                            sink.clear().limit((int) Math.min(sink.capacity(), left));
                            int n = s.read(sink);
                            assertThat(n).as("payload bytes").isPositive();
                            left -= n;
                        }
                        af.init(TcpFrame.OP_ACK).seq(acked).status(0);
                        ack.clear();
                        while (ack.hasRemaining()) {
                            s.write(ack);
                        }
                        acked++;
                    }
                } finally {
                    engine.join(Duration.ofSeconds(70));
                }
                assertThat(a.done).hasSize(SENDS);
                for (int i = 0; i < SENDS; i++) {
                    assertThat(a.done.get(i).status()).as("send %d", i).isEqualTo(DocaError.SUCCESS);
                    assertThat(a.done.get(i).userData()).isEqualTo(i);
                }
            }
            Side.progressUntil(() -> a.rdma.state() == CtxState.IDLE, Duration.ofSeconds(10),
                    "IDLE after the peer left", a);
        }
    }

    private static void readFully(SocketChannel s, ByteBuffer b) throws java.io.IOException {
        while (b.hasRemaining()) {
            if (s.read(b) < 0) {
                throw new java.io.EOFException("peer closed");
            }
        }
    }
}
