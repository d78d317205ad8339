package io.jdoca.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.Random;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * Property and fuzz tests for everything an RDMA peer can send: connection blobs and the TCP frame
 * stream. No exception may escape, nothing may hang, no memory outside an exported map may change.
 */
class RdmaWireFuzzTest {

    @Property(tries = 2000)
    void blobDecoderRejectsGarbageWithIllegalArgumentOnly(@ForAll @Size(max = 200) byte[] blob) {
        try {
            RdmaConnectionBlob.decode(blob);
        } catch (IllegalArgumentException expected) {
            // the only allowed failure
        }
    }

    @Property(tries = 1000)
    void blobDecoderSurvivesMutationsOfAValidBlob(@ForAll("blobs") RdmaConnectionBlob b, @ForAll int pos,
            @ForAll byte v) {
        byte[] enc = b.encode();
        enc[Math.floorMod(pos, enc.length)] = v;
        try {
            RdmaConnectionBlob.decode(enc);
        } catch (IllegalArgumentException expected) {
            // fine
        }
    }

    @Property(tries = 500)
    void blobRoundTrips(@ForAll("blobs") RdmaConnectionBlob b) {
        assertEquals(b, RdmaConnectionBlob.decode(b.encode()));
    }

    @Property(tries = 2000)
    void cmPrivateDataDecoderRejectsGarbageWithIllegalArgumentOnly(@ForAll @Size(max = 80) byte[] data) {
        try {
            io.jdoca.rdma.wire.VerbsCmPrivateData.decode(data);
        } catch (IllegalArgumentException expected) {
            // the only allowed failure
        }
    }

    @Property(tries = 500)
    void cmPrivateDataRoundTripsAndFitsARequest(@ForAll long pid, @ForAll long hi, @ForAll long lo, @ForAll int perms,
            @ForAll int rkey, @ForAll long addr) {
        var d = new io.jdoca.rdma.wire.VerbsCmPrivateData(Math.max(1, pid & Long.MAX_VALUE), new UUID(hi, lo), perms,
                rkey, (addr | 8) & ~7L);
        byte[] enc = d.encode();
        assertTrue(enc.length <= 56, "an RDMA_PS_TCP connection request carries at most 56 bytes of private data");
        assertEquals(d, io.jdoca.rdma.wire.VerbsCmPrivateData.decode(enc));
        // rdma_cm pads the private data to the message's size: trailing bytes are allowed
        assertEquals(d, io.jdoca.rdma.wire.VerbsCmPrivateData.decode(java.util.Arrays.copyOf(enc, 56)));
    }

    @Provide
    Arbitrary<RdmaConnectionBlob> blobs() {
        Arbitrary<String> host = Arbitraries.strings().ofMaxLength(40);
        Arbitrary<String> ring = Arbitraries.longs().between(1, 0xffffffffL).map(n -> n + "-" + (n * 31 + 1));
        return Combinators.combine(Arbitraries.integers().between(0, 2), Arbitraries.longs().between(0, 0xffffffffL),
                Arbitraries.integers(), Arbitraries.longs(), Arbitraries.integers().between(1, 65535), host, ring)
                .as((t, pid, perms, nonce, port, h, p) -> new RdmaConnectionBlob(t, pid, perms, nonce, new UUID(nonce,
                        pid), port, h, p,
                        nonce * 7, ~nonce));
    }

    @Property(tries = 300)
    void connectWithGarbageBlobReturnsInvalidValue(@ForAll @Size(max = 120) byte[] blob) {
        try (Side a = new Side(RdmaTransportType.TCP)) {
            a.rdma.start();
            RdmaExport x = a.rdma.export();
            DocaError e = a.rdma.connect(blob, x.connection());
            assertTrue(e == DocaError.INVALID_VALUE || e == DocaError.SUCCESS, "connect returned " + e);
        }
    }

    /**
     * A fake peer that completes the TCP hand-shake and then sends random frames (well-formed
     * headers with random fields aimed at the exported map, and raw noise). The context must keep
     * its memory outside the exported window intact, never throw, and reach IDLE once the peer
     * closes.
     */
    @Property(tries = 15)
    void randomFrameStreamNeverCorruptsOrHangs(@ForAll long seed) throws Exception {
        Random rnd = new Random(seed);
        try (Side a = new Side(RdmaTransportType.TCP); ServerSocketChannel fake = ServerSocketChannel.open()) {
            fake.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            // The exported window is the middle of the map; the rest is a guard zone filled with a pattern.
            long lo = 1 << 20;
            long hi = 2 << 20;
            a.mem.fill((byte) 0x5A);
            io.jdoca.core.mem.MemoryMap window = io.jdoca.core.mem.MemoryMap.create();
            window.setMemrange(a.mem.asSlice(lo, hi - lo));
            window.addDev(a.dev);
            window.setPermissions(io.jdoca.core.AccessFlags.LOCAL_READ_WRITE | io.jdoca.core.AccessFlags.ANY_RDMA);
            window.start();
            io.jdoca.core.mem.MmapExport ex = io.jdoca.core.mem.MmapExport.decode(window.exportRdma(a.dev));
            a.rdma.start();
            RdmaExport x = a.rdma.export();
            byte[] peer = new RdmaConnectionBlob(2, ProcessHandle.current().pid(), io.jdoca.core.AccessFlags.ANY_RDMA,
                    -1L,
                    Rdma.HOST, fake.socket().getLocalPort(), "127.0.0.1", "", 0, 0).encode();
            assertEquals(DocaError.SUCCESS, a.rdma.connect(peer, x.connection()));
            SocketChannel s = fake.accept();
            ByteBuffer hello = ByteBuffer.allocate(TcpFrame.SIZE);
            while (hello.hasRemaining()) {
                s.read(hello);
            }
            Side.progressUntil(() -> a.rdma.state() == CtxState.RUNNING, Duration.ofSeconds(10), "running", a);
            ByteBuffer f = ByteBuffer.allocateDirect(TcpFrame.SIZE + 256);
            TcpFrame frame = new TcpFrame().wrap(MemorySegment.ofBuffer(f).asSlice(0, TcpFrame.SIZE));
            // Drain whatever the context answers so it never blocks on a full socket.
            Thread sink = Thread.ofVirtual().start(() -> {
                ByteBuffer d = ByteBuffer.allocate(65536);
                try {
                    while (s.read(d.clear()) >= 0) {
                        // discard
                    }
                } catch (java.io.IOException e) {
                    // closed
                }
            });
            try {
                for (int i = 0; i < 50 && a.rdma.state() == CtxState.RUNNING; i++) {
                    f.clear();
                    if (rnd.nextInt(5) == 0) {
                        byte[] noise = new byte[TcpFrame.SIZE];
                        rnd.nextBytes(noise);
                        f.put(noise).flip();
                    } else {
                        int op = TcpFrame.OP_SEND + rnd.nextInt(TcpFrame.OP_NOP - TcpFrame.OP_SEND + 1);
                        long len = rnd.nextInt(4) == 0 ? rnd.nextInt() & 0xffffffffL : rnd.nextInt(256);
                        long addr = window.baseAddress() + (rnd.nextBoolean()
                                ? rnd.nextInt((int) (hi - lo)) : rnd.nextLong() % (4L << 20));
                        frame.init(op).seq(rnd.nextLong()).mapId(rnd.nextInt(4) == 0
                                ? rnd.nextLong() : window.id()).addr(addr)
                                .length(len).operand(rnd.nextLong()).swap(rnd.nextLong())
                                .cap(ex.cap0(), rnd.nextInt(4) == 0 ? rnd.nextLong() : ex.cap1());
                        int payload = TcpFrame.hasPayload(op) ? (int) Math.min(len, 256) : 0;
                        f.position(TcpFrame.SIZE);
                        for (int k = 0; k < payload; k++) {
                            f.put((byte) rnd.nextInt());
                        }
                        f.flip();
                    }
                    while (f.hasRemaining()) {
                        s.write(f);
                    }
                    a.pe.progress();
                }
            } catch (java.io.IOException closedByContext) {
                // the context dropped the connection: fine
            }
            s.close();
            sink.join(5000);
            Side.progressUntil(() -> a.rdma.state() == CtxState.IDLE, Duration.ofSeconds(10),
                    "IDLE after the peer left", a);
            byte[] guardLo = a.read(0, (int) lo);
            byte[] guardHi = a.read(hi, (int) (Side.MEM - hi));
            byte[] expectLo = new byte[(int) lo];
            byte[] expectHi = new byte[(int) (Side.MEM - hi)];
            java.util.Arrays.fill(expectLo, (byte) 0x5A);
            java.util.Arrays.fill(expectHi, (byte) 0x5A);
            assertArrayEquals(expectLo, guardLo, "memory below the exported window");
            assertArrayEquals(expectHi, guardHi, "memory above the exported window");
            window.close();
        }
    }
}
