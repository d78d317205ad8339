package io.jdoca.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.MmapExport;
import io.jdoca.rdma.wire.RdmaConnectionBlob;
import io.jdoca.rdma.wire.TcpFrame;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.Test;

/**
 * Issue 12 item 1, tcp transport: a peer reaches only maps exported to it, presenting their
 * capability. A hand-written peer sends one-sided requests with a wrong capability and for a map
 * that was never exported: each gets a NOT_PERMITTED completion and no byte changes; the same
 * request with the right capability goes through.
 */
class TcpCapabilityTest {

    /** One response frame header as received by the fake peer. */
    record Resp(int op, long seq, int status, long len) {
    }

    @Test
    @SuppressWarnings("try") // the socket is closed early on purpose: it ends the reader thread before the join
    void wrongCapabilityOrUnexportedMapGetsNotPermittedAndNoByteChanges() throws Exception {
        try (Side a = new Side(RdmaTransportType.TCP); ServerSocketChannel fake = ServerSocketChannel.open()) {
            fake.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            a.mem.fill((byte) 0x5A);
            MmapExport ex = MmapExport.decode(a.exportMap());
            // A second map over other memory of the same process, never exported.
            MemoryMap hidden = MemoryMap.create();
            hidden.setMemrange(a.mem.asSlice(1 << 20, 4096));
            hidden.addDev(a.dev);
            hidden.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.ANY_RDMA);
            hidden.start();
            a.rdma.start();
            RdmaExport x = a.rdma.export();
            byte[] peer = new RdmaConnectionBlob(2, ProcessHandle.current().pid(), AccessFlags.ANY_RDMA, -1L, Rdma.HOST,
                    fake.socket().getLocalPort(), "127.0.0.1", "", 0, 0).encode();
            assertThat(a.rdma.connect(peer, x.connection())).isEqualTo(DocaError.SUCCESS);
            try (SocketChannel s = fake.accept()) {
                ByteBuffer hello = ByteBuffer.allocate(TcpFrame.SIZE);
                while (hello.hasRemaining()) {
                    s.read(hello);
                }
                Side.progressUntil(() -> a.rdma.state() == CtxState.RUNNING, Duration.ofSeconds(10), "running", a);
                LinkedBlockingQueue<Resp> responses = new LinkedBlockingQueue<>();
                Thread reader = Thread.ofVirtual().start(() -> readResponses(s, responses));

                long base = ex.baseAddress();
                byte[] payload = new byte[64];
                Arrays.fill(payload, (byte) 0x11);
                send(s, frame(TcpFrame.OP_WRITE, 1, ex.mapId(), base, 64).cap(ex.cap0(), ex.cap1() ^ 1), payload);
                send(s, frame(TcpFrame.OP_WRITE, 2, hidden.id(), hidden.baseAddress(), 64).cap(ex.cap0(), ex.cap1()),
                        payload);
                send(s, frame(TcpFrame.OP_WRITE, 3, 0, base, 64).cap(0, 0), payload);
                send(s, frame(TcpFrame.OP_READ_REQ, 4, ex.mapId(), base, 64).cap(~ex.cap0(), ex.cap1()), null);
                send(s, frame(TcpFrame.OP_FADD, 5, ex.mapId(), base + 8, 0).operand(1).cap(ex.cap0(), 0), null);
                send(s, frame(TcpFrame.OP_CAS, 6, hidden.id(), hidden.baseAddress(), 0).operand(0x5A5A5A5A5A5A5A5AL)
                        .swap(7).cap(ex.cap0(), ex.cap1()), null);
                // The control: the right capability writes.
                send(s, frame(TcpFrame.OP_WRITE, 7, ex.mapId(), base + 4096, 64).cap(ex.cap0(), ex.cap1()), payload);

                Resp[] got = new Resp[7];
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                for (int i = 0; i < got.length; i++) {
                    while (got[i] == null) {
                        assertThat(System.nanoTime() - deadline).as("response %d in time", i + 1).isNegative();
                        a.pe.progress();
                        got[i] = responses.poll();
                    }
                }
                for (int i = 0; i < 6; i++) {
                    assertThat(got[i].seq()).isEqualTo(i + 1);
                    assertThat(DocaError.fromCode(got[i].status())).as("request %d", i
                            + 1).isEqualTo(DocaError.NOT_PERMITTED);
                }
                assertThat(got[3].op()).isEqualTo(TcpFrame.OP_READ_RESP);
                assertThat(got[3].len()).as("no data read back").isZero();
                assertThat(DocaError.fromCode(got[6].status())).isEqualTo(DocaError.SUCCESS);

                byte[] expect = new byte[4096];
                Arrays.fill(expect, (byte) 0x5A);
                assertThat(a.read(0, 4096)).as("exported map, refused requests").isEqualTo(expect);
                assertThat(a.read(1 << 20, 4096)).as("never-exported map").isEqualTo(expect);
                assertThat(a.read(4096, 64)).as("the control write").isEqualTo(payload);
                s.close();
                reader.join(5000);
            }
            Side.progressUntil(() -> a.rdma.state() == CtxState.IDLE, Duration.ofSeconds(10),
                    "IDLE after the peer left", a);
            hidden.close();
        }
    }

    private static TcpFrame frame(int op, long seq, long mapId, long addr, long len) {
        ByteBuffer b = ByteBuffer.allocate(TcpFrame.SIZE).order(ByteOrder.LITTLE_ENDIAN);
        return new TcpFrame().wrap(MemorySegment.ofArray(b.array())).init(op).seq(seq).mapId(mapId).addr(addr)
                .length(len);
    }

    private static void send(SocketChannel s, TcpFrame f, byte[] payload) throws IOException {
        byte[] hdr = f.segment().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        ByteBuffer out = ByteBuffer.allocate(hdr.length + (payload == null ? 0 : payload.length));
        out.put(hdr);
        if (payload != null) {
            out.put(payload);
        }
        out.flip();
        while (out.hasRemaining()) {
            s.write(out);
        }
    }

    private static void readResponses(SocketChannel s, LinkedBlockingQueue<Resp> out) {
        ByteBuffer h = ByteBuffer.allocate(TcpFrame.SIZE);
        TcpFrame f = new TcpFrame().wrap(MemorySegment.ofArray(h.array()));
        try {
            while (true) {
                h.clear();
                while (h.hasRemaining()) {
                    if (s.read(h) < 0) {
                        return;
                    }
                }
                int op = f.opcode();
                long len = op == TcpFrame.OP_READ_RESP ? f.length() : 0;
                ByteBuffer skip = ByteBuffer.allocate((int) len);
                while (skip.hasRemaining()) {
                    if (s.read(skip) < 0) {
                        return;
                    }
                }
                if (op != TcpFrame.OP_HEARTBEAT) {
                    out.add(new Resp(op, f.seq(), f.status(), len));
                }
            }
        } catch (IOException e) {
            // closed
        }
    }
}
