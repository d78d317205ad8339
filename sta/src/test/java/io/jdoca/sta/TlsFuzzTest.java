package io.jdoca.sta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.sta.nvmf.NvmfQpairState;
import io.jdoca.sta.nvmf.tcp.IcReqPdu;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import io.jdoca.sta.nvmf.tls.NvmeTlsClient;
import io.jdoca.sta.nvmf.tls.NvmeTlsKey;
import io.jdoca.sta.nvmf.tls.NvmeTlsServer;
import io.jdoca.sta.nvmf.tls.TlsChannel;
import io.jdoca.sta.nvmf.tls.TlsHandshakeException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * {@link FuzzTest}'s properties for NVMe/TCP over TLS (issue 33): after a real TLS 1.3 PSK handshake on loopback
 * sockets, the host's socket gets malformed TLS records instead of protected PDUs (truncated, oversized, wrong
 * content type, forged application data, a plaintext handshake message as a renegotiation attempt, random bytes),
 * before or after its ICReq. The queue pair closes within a bound (no hang), no exception escapes the engine,
 * and a healthy TLS connection on the same engine still gets its ICResp. During the handshake, garbage after a
 * handshake record byte fails the handshake, never the acceptor.
 */
class TlsFuzzTest {
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:fuzz";
    static TestBed bed;
    static ServerSocketChannel server;
    static NvmeTlsKey key;

    @BeforeContainer
    static void up() throws IOException {
        bed = new TestBed(1 << 20, 4096);
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        key = NvmeTlsKey.generate(NvmeTlsKey.HASH_SHA256, new SecureRandom());
    }

    @AfterContainer
    static void down() throws IOException {
        server.close();
        bed.close();
    }

    /** A connected TLS queue pair: the target's side accepted by the engine, the host's TLS connection. */
    record Conn(StaQp qp, TlsChannel host) {
    }

    static Conn open() throws Exception {
        CompletableFuture<TlsChannel> accepted = CompletableFuture.supplyAsync(() -> {
            try {
                SocketChannel s = server.accept();
                return TlsChannel.accept(s, new NvmeTlsServer(TlsChannel.crypto(),
                        (h, n) -> HOST.equals(h) && TestBed.NQN.equals(n) ? key : null), 10_000);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        TlsChannel host = TlsChannel.connect(SocketChannel.open(server.getLocalAddress()),
                new NvmeTlsClient(TlsChannel.crypto(), key.derive(0, HOST, TestBed.NQN)), 10_000);
        StaQp qp = bed.io.qpAccept(bed.io.qpAlloc(), accepted.get(20, TimeUnit.SECONDS));
        return new Conn(qp, host);
    }

    static byte[] icReq() {
        MemorySegment m = Arena.ofAuto().allocate(NvmeTcpPdu.IC_LEN);
        IcReqPdu.encode(m, 0, false, false, 0, 0);
        return m.toArray(ValueLayout.JAVA_BYTE);
    }

    /** Pumps the engine until {@code done} or 20 s (busy, bounded: no sleep stands for a condition). */
    static boolean pumpUntil(BooleanSupplier done) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!done.getAsBoolean() && System.nanoTime() < end) {
            bed.pump();
            Thread.yield();
        }
        return done.getAsBoolean();
    }

    /** The host gets an ICResp over TLS for its ICReq: the engine still serves TLS queue pairs. */
    static void healthy() throws Exception {
        Conn c = open();
        try {
            c.host().write(ByteBuffer.wrap(icReq()));
            ByteBuffer in = ByteBuffer.allocate(NvmeTcpPdu.IC_LEN);
            assertTrue(pumpUntil(() -> {
                try {
                    return c.host().read(in) < 0 || !in.hasRemaining();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }), "ICResp in time");
            assertEquals(NvmeTcpPdu.TYPE_IC_RESP, in.get(0));
        } finally {
            c.host().close();
            pumpUntil(() -> c.qp().state() == NvmfQpairState.CLOSED);
        }
    }

    @Provide
    Arbitrary<byte[]> garbage() {
        return Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(600);
    }

    /** The malformed record of kind {@code kind} with filler {@code junk}. */
    static byte[] record(int kind, byte[] junk) {
        ByteBuffer b = ByteBuffer.allocate(5 + Math.max(junk.length, 64));
        int len = junk.length;
        switch (kind) {
            case 0 -> b.put((byte) 23).putShort((short) 0x0303).putShort((short) (len + 40)).put(junk); // truncated
            case 1 -> b.put((byte) 23).putShort((short) 0x0303).putShort((short) 0x4801).put(junk);     // oversized
            case 2 -> b.put((byte) (100 + (junk[0] & 0x7f))).putShort((short) 0x0303).putShort((short) len).put(junk);
            case 3 -> b.put((byte) 23).putShort((short) 0x0303).putShort((short) len).put(junk);        // forged data
            case 4 -> b.put((byte) 22).putShort((short) 0x0303).putShort((short) 64)                    // ClientHello
                    .put((byte) 1).put((byte) 0).put((byte) 0).put((byte) 60).put(new byte[60]);
            default -> b.put(junk);                                                                     // random
        }
        b.flip();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    @Property(tries = 60)
    void malformedRecordsCloseTheQueuePairCleanly(@ForAll("garbage") byte[] junk, @ForAll boolean afterIcReq)
            throws Exception {
        int kind = (junk[junk.length - 1] & 0xff) % 6;
        Conn c = open();
        SocketChannel raw = c.host().socket();
        if (afterIcReq) {
            c.host().write(ByteBuffer.wrap(icReq()));
            assertTrue(pumpUntil(() -> c.qp().state() == NvmfQpairState.READY), "ICReq served");
        }
        raw.write(ByteBuffer.wrap(record(kind, junk)));
        if (kind == 0 || kind == 5) {
            raw.shutdownOutput(); // a truncated record (or random bytes) and then the end of the stream
        }
        assertTrue(pumpUntil(() -> c.qp().state() == NvmfQpairState.CLOSED),
                "kind " + kind + ": the queue pair closes (state " + c.qp().state() + ")");
        raw.close();
        healthy();
    }

    @Property(tries = 30)
    void garbageDuringTheHandshakeFailsIt(@ForAll("garbage") byte[] junk) throws Exception {
        CompletableFuture<TlsChannel> accepted = CompletableFuture.supplyAsync(() -> {
            try {
                SocketChannel s = server.accept();
                try {
                    return TlsChannel.accept(s, new NvmeTlsServer(TlsChannel.crypto(), (h, n) -> key), 2_000);
                } finally {
                    s.close();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try (SocketChannel s = SocketChannel.open(server.getLocalAddress())) {
            ByteBuffer b = ByteBuffer.allocate(junk.length + 1).put((byte) 22).put(junk).flip();
            s.write(b);
            s.shutdownOutput();
            try {
                accepted.get(20, TimeUnit.SECONDS);
                throw new AssertionError("a handshake out of garbage");
            } catch (ExecutionException e) {
                assertTrue(e.getCause().getCause() instanceof TlsHandshakeException, String.valueOf(e.getCause()));
            }
        }
    }
}
