package io.jdoca.sta.nvmf.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** TLS 1.3 PSK handshakes between {@link NvmeTlsClient} and {@link NvmeTlsServer} on loopback, and data after. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsChannelTest {
    private static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:h1";
    private static final String SUB = "nqn.2016-06.io.spdk:cnode1";
    private ServerSocketChannel server;

    @BeforeEach
    void listen() throws IOException {
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    @AfterEach
    void close() throws IOException {
        server.close();
    }

    private CompletableFuture<TlsChannel> serve(NvmeTlsKey key, long timeoutMs) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                SocketChannel s = server.accept();
                try {
                    return TlsChannel.accept(s, new NvmeTlsServer(TlsChannel.crypto(),
                            (h, n) -> HOST.equals(h) && SUB.equals(n) ? key : null), timeoutMs);
                } catch (IOException e) {
                    s.close();
                    throw e;
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    private SocketChannel dial() throws IOException {
        return SocketChannel.open(server.getLocalAddress());
    }

    @Test
    void bothSuitesAndBothIdentityVersionsCarryDataBothWays() throws Exception {
        SecureRandom rnd = new SecureRandom();
        for (int hash = 0; hash <= 2; hash++) {
            for (int version = 0; version <= 1; version++) {
                NvmeTlsKey key = NvmeTlsKey.generate(hash, rnd);
                CompletableFuture<TlsChannel> f = serve(key, 10_000);
                try (TlsChannel c = TlsChannel.connect(dial(), new NvmeTlsClient(TlsChannel.crypto(),
                        key.derive(version, HOST, SUB)), 10_000); TlsChannel s = f.get(20, TimeUnit.SECONDS)) {
                    assertThat(s.identity().hostNqn()).isEqualTo(HOST);
                    assertThat(s.identity().version()).isEqualTo(version);
                    byte[] big = new byte[200_000];
                    rnd.nextBytes(big);
                    assertThat(pump(c, s, big)).isEqualTo(big);
                    assertThat(pump(s, c, big)).isEqualTo(big);
                }
            }
        }
    }

    /**
     * Many connections opened, used and closed: each one's records are OpenSSL's (where libcrypto loads), and
     * closing a connection frees both its cipher contexts (counted by {@link OpenSslGcm#closed()}, which a context
     * freed only by the cleaner does not move; the channels are held until then).
     */
    @Test
    void closingAConnectionFreesItsCipherContexts() throws Exception {
        NvmeTlsKey key = NvmeTlsKey.generate(2, new SecureRandom());
        int n = 40;
        long closed = OpenSslGcm.closed();
        java.util.List<TlsChannel> all = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            CompletableFuture<TlsChannel> f = serve(key, 10_000);
            TlsChannel c = TlsChannel.connect(dial(), new NvmeTlsClient(TlsChannel.crypto(), key.derive(1, HOST, SUB)),
                    10_000);
            TlsChannel s = f.get(20, TimeUnit.SECONDS);
            all.add(c);
            all.add(s);
            assertThat(c.recordEngine()).isEqualTo(TlsAead.openSslAvailable() ? "openssl" : "java");
            byte[] data = new byte[5000 + i];
            assertThat(pump(c, s, data)).isEqualTo(data);
            c.close();
            s.close();
            s.close(); // twice: frees once
        }
        assertThat(OpenSslGcm.closed() - closed).as("contexts freed by close")
                .isEqualTo(TlsAead.openSslAvailable() ? 4L * n : 0);
        assertThat(all).hasSize(2 * n);
    }

    /**
     * What one handshake costs (both sides on this machine, after warm-up), printed for docs/features/tls.md: the
     * time a handshake thread is busy, none of it on an IO engine.
     */
    @Test
    void handshakeTimeIsMeasured() throws Exception {
        NvmeTlsKey key = NvmeTlsKey.generate(1, new SecureRandom());
        int n = 40;
        long total = 0;
        for (int i = 0; i < n; i++) {
            CompletableFuture<TlsChannel> f = serve(key, 10_000);
            long t0 = System.nanoTime();
            try (TlsChannel c = TlsChannel.connect(dial(), new NvmeTlsClient(TlsChannel.crypto(),
                    key.derive(0, HOST, SUB)), 10_000); TlsChannel s = f.get(20, TimeUnit.SECONDS)) {
                if (i >= n / 2) {
                    total += System.nanoTime() - t0;
                }
                assertThat(s.identity()).isNotNull();
                assertThat(c.isOpen()).isTrue();
            }
        }
        System.out.printf("TLS 1.3 PSK handshake (psk_dhe_ke, both sides): %.2f ms%n", total / 1e6 / (n / 2));
    }

    /** Bulk throughput of jdoca's record layer ({@link TlsAead#create}), handshakes by each provider (printed). */
    @Test
    void recordThroughputPerCryptoProvider() throws Exception {
        NvmeTlsKey key = NvmeTlsKey.generate(1, new SecureRandom());
        for (org.bouncycastle.tls.crypto.TlsCrypto crypto : new org.bouncycastle.tls.crypto.TlsCrypto[] {
            new org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto(new SecureRandom()),
            new org.bouncycastle.tls.crypto.impl.jcajce.JcaTlsCryptoProvider().create(new SecureRandom())}) {
            CompletableFuture<TlsChannel> f = CompletableFuture.supplyAsync(() -> {
                try {
                    return TlsChannel.accept(server.accept(), new NvmeTlsServer(crypto, (h, n) -> key), 10_000);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try (TlsChannel c = TlsChannel.connect(dial(), new NvmeTlsClient(crypto, key.derive(0, HOST, SUB)),
                    10_000); TlsChannel s = f.get(20, TimeUnit.SECONDS)) {
                byte[] chunk = new byte[8 << 20];
                pump(s, c, chunk);
                long t0 = System.nanoTime();
                for (int i = 0; i < 4; i++) {
                    pump(s, c, chunk);
                }
                double secs = (System.nanoTime() - t0) / 1e9;
                System.out.printf("records after a %s handshake: %.0f MB/s (encrypt + decrypt on one thread)%n",
                        crypto.getClass().getSimpleName(), 32 / secs);
            }
        }
    }

    /**
     * jdoca's record layer ({@link TlsRecords}) against BouncyCastle's, both directions and both suites: each side
     * reads what the other implementation sealed, so the keys, nonces, inner content type and AAD are the RFC's and
     * not merely self-consistent.
     */
    @Test
    void ownRecordLayerInteroperatesWithBouncyCastles() throws Exception {
        SecureRandom rnd = new SecureRandom();
        for (int hash = 1; hash <= 2; hash++) {
            for (boolean serverOwn : new boolean[] {true, false}) {
                NvmeTlsKey key = NvmeTlsKey.generate(hash, rnd);
                CompletableFuture<TlsChannel> f = CompletableFuture.supplyAsync(() -> {
                    try {
                        return TlsChannel.accept(server.accept(), new NvmeTlsServer(TlsChannel.crypto(),
                                (h, n) -> key), 10_000, serverOwn);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                try (TlsChannel c = TlsChannel.connect(dial(), new NvmeTlsClient(TlsChannel.crypto(),
                        key.derive(1, HOST, SUB)), 10_000, !serverOwn); TlsChannel s = f.get(20, TimeUnit.SECONDS)) {
                    byte[] big = new byte[300_000];
                    rnd.nextBytes(big);
                    assertThat(pump(c, s, big)).isEqualTo(big);
                    assertThat(pump(s, c, big)).isEqualTo(big);
                }
            }
        }
    }

    /** Writes {@code data} on {@code a} and reads it on {@code b}, both non-blocking, in one thread. */
    static byte[] pump(TlsChannel a, TlsChannel b, byte[] data) throws IOException {
        ByteBuffer src = ByteBuffer.wrap(data);
        ByteBuffer dst = ByteBuffer.allocate(data.length);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (dst.hasRemaining() && System.nanoTime() < end) {
            a.write(src);
            if (b.read(dst) < 0) {
                break;
            }
        }
        return dst.array();
    }

    /** The message of the TlsHandshakeException {@code f} failed with. */
    static String failure(CompletableFuture<?> f) throws Exception {
        try {
            f.get(20, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable t = e.getCause();
            while (t.getCause() != null) {
                t = t.getCause();
            }
            assertThat(t).isInstanceOf(TlsHandshakeException.class);
            return t.getMessage();
        }
        throw new AssertionError("the handshake succeeded");
    }

    @Test
    void wrongPskFailsBothSidesWithOneLine() throws Exception {
        SecureRandom rnd = new SecureRandom();
        NvmeTlsKey right = NvmeTlsKey.generate(1, rnd);
        NvmeTlsKey wrong = NvmeTlsKey.generate(1, rnd);
        CompletableFuture<TlsChannel> f = serve(right, 10_000);
        try (SocketChannel sc = dial()) {
            assertThatThrownBy(() -> TlsChannel.connect(sc, new NvmeTlsClient(TlsChannel.crypto(),
                    wrong.derive(0, HOST, SUB)), 10_000)).isInstanceOf(TlsHandshakeException.class)
                    .hasMessageContaining("wrong PSK").message().doesNotContain("\n");
        }
        assertThat(failure(f)).isNotBlank();
    }

    /**
     * SPDK's nvmf_tgt (OpenSSL 3.0's server) answers a wrong PSK with a fatal illegal_parameter alert, not
     * decrypt_error (seen against SPDK v25.09 with OpenSSL 3.0.20, 2026-12-02): the host's line still says why.
     */
    @Test
    void illegalParameterAlertAsOpenSslSendsForAWrongPskNamesThePsk() throws Exception {
        CompletableFuture<Void> f = CompletableFuture.runAsync(() -> {
            try (SocketChannel s = server.accept()) {
                s.read(ByteBuffer.allocate(4096)); // the ClientHello
                s.write(ByteBuffer.wrap(new byte[] {21, 3, 3, 0, 2, 2, 47})); // alert: fatal illegal_parameter
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try (SocketChannel sc = dial()) {
            assertThatThrownBy(() -> TlsChannel.connect(sc, new NvmeTlsClient(TlsChannel.crypto(),
                    NvmeTlsKey.generate(1, new SecureRandom()).derive(0, HOST, SUB)), 10_000))
                    .isInstanceOf(TlsHandshakeException.class)
                    .hasMessageContaining("the target sent illegal_parameter").hasMessageContaining("wrong PSK")
                    .message().doesNotContain("\n");
        }
        f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void hostWithoutKeyIsRefused() throws Exception {
        SecureRandom rnd = new SecureRandom();
        NvmeTlsKey key = NvmeTlsKey.generate(1, rnd);
        CompletableFuture<TlsChannel> f = serve(key, 10_000);
        try (SocketChannel sc = dial()) {
            assertThatThrownBy(() -> TlsChannel.connect(sc, new NvmeTlsClient(TlsChannel.crypto(),
                    key.derive(0, "nqn.2014-08.org.nvmexpress:uuid:other", SUB)), 10_000))
                    .isInstanceOf(TlsHandshakeException.class);
        }
        assertThat(failure(f)).contains("no PSK for the identities offered");
    }

    @Test
    void plaintextIcReqIsRefusedAndAStallingHostMeetsTheDeadline() throws Exception {
        CompletableFuture<TlsChannel> f = serve(NvmeTlsKey.generate(1, new SecureRandom()), 10_000);
        try (SocketChannel sc = dial()) {
            ByteBuffer icreq = ByteBuffer.allocate(128);
            icreq.put(0, (byte) 0).put(2, (byte) 128).put(4, (byte) 128);
            sc.write(icreq);
            assertThat(failure(f)).contains("plaintext NVMe/TCP ICReq");
        }
        CompletableFuture<TlsChannel> g = serve(NvmeTlsKey.generate(1, new SecureRandom()), 300);
        try (SocketChannel stalls = dial()) {
            assertThat(stalls.isConnected()).isTrue();
            assertThat(failure(g)).contains("no TLS handshake within 300 ms");
        }
    }
}
