package io.jdoca.sta.nvmf.tls;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import org.bouncycastle.tls.TlsClientProtocol;
import org.bouncycastle.tls.TlsException;
import org.bouncycastle.tls.TlsProtocol;
import org.bouncycastle.tls.TlsServerProtocol;
import org.bouncycastle.tls.crypto.TlsCrypto;
import org.bouncycastle.tls.crypto.impl.jcajce.JcaTlsCryptoProvider;

/**
 * A TLS 1.3 connection over a non-blocking {@link SocketChannel} as a {@link ByteChannel} of plaintext: what the
 * NVMe/TCP queue pair (and nvme-perf's host) reads and writes instead of the socket, so the PDU handling above
 * stays the same. BouncyCastle's {@link TlsProtocol} in non-blocking mode does the records ({@code offerInput},
 * {@code readInput}, {@code writeApplicationData}, {@code readOutput}); this class moves bytes between it and
 * the socket through buffers made once. BouncyCastle's record layer allocates per record (measured in
 * docs/features/tls.md); the buffers here do not.
 *
 * <p>{@link #accept} and {@link #connect} run the handshake to its end or a deadline, on the caller's thread
 * (a handshake thread, never an IO engine): a host that stalls costs a thread until the deadline, not an
 * engine's time.
 *
 * <p>Not thread-safe: after the handshake, the one thread that owns the queue pair.
 */
public final class TlsChannel implements ByteChannel {
    private static final int RECORD = 16384;
    /**
     * BouncyCastle's TLS over the JDK's own ciphers (JCA: AES-GCM and GHASH with the CPU's instructions, X25519,
     * HMAC): 2.4× the record throughput of BouncyCastle's pure-Java ciphers here ({@code TlsChannelTest}).
     */
    private static final TlsCrypto CRYPTO = new JcaTlsCryptoProvider().create(new SecureRandom());
    /** TLS record content type handshake: the first byte of a ClientHello. */
    private static final byte CONTENT_HANDSHAKE = 22;

    private final SocketChannel sock;
    private final TlsProtocol tls;
    private final byte[] in = new byte[RECORD + 2048];
    private final ByteBuffer inBuf = ByteBuffer.wrap(in);
    private final byte[] plain = new byte[RECORD];
    private final ByteBuffer out = ByteBuffer.allocateDirect(4 * (RECORD + 256));
    private NvmeTlsIdentity identity;

    private TlsChannel(SocketChannel sock, TlsProtocol tls) {
        this.sock = sock;
        this.tls = tls;
        out.limit(0);
    }

    /** The crypto provider of every connection (thread-safe). */
    public static TlsCrypto crypto() {
        return CRYPTO;
    }

    /**
     * The target's handshake on accepted {@code sock}: the first bytes must be a TLS ClientHello; returns the
     * connection once the handshake is complete, or throws {@link TlsHandshakeException} (one line: why) after
     * closing nothing (the caller closes the socket).
     */
    public static TlsChannel accept(SocketChannel sock, NvmeTlsServer server, long timeoutMs) throws IOException {
        TlsServerProtocol p = new TlsServerProtocol();
        TlsChannel ch = new TlsChannel(sock, p);
        try {
            p.accept(server);
            ch.drive(timeoutMs, true);
        } catch (TlsException e) {
            ch.sendAlert();
            throw new TlsHandshakeException(server.failure() != null ? server.failure() : "TLS: " + e.getMessage());
        }
        ch.identity = server.selected();
        return ch;
    }

    /** The host's handshake on connected {@code sock} (see {@link #accept}). */
    public static TlsChannel connect(SocketChannel sock, NvmeTlsClient client, long timeoutMs) throws IOException {
        TlsClientProtocol p = new TlsClientProtocol();
        TlsChannel ch = new TlsChannel(sock, p);
        try {
            p.connect(client);
            ch.drive(timeoutMs, false);
        } catch (TlsException e) {
            ch.sendAlert();
            throw new TlsHandshakeException(client.failure() != null ? client.failure() : "TLS: " + e.getMessage());
        }
        return ch;
    }

    /** Best effort: the alert BouncyCastle queued goes out before the caller closes the socket. */
    private void sendAlert() {
        try {
            flushOut();
        } catch (IOException e) {
            // the peer is gone already
        }
    }

    private void drive(long timeoutMs, boolean server) throws IOException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        sock.configureBlocking(false);
        boolean first = server;
        try (Selector sel = Selector.open()) {
            SelectionKey key = sock.register(sel, SelectionKey.OP_READ);
            while (true) {
                flushOut();
                if (!tls.isHandshaking() && !outPending()) {
                    return;
                }
                if (tls.isClosed()) {
                    throw new TlsHandshakeException("the peer closed the TLS handshake");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TlsHandshakeException("no TLS handshake within " + timeoutMs + " ms");
                }
                if (tls.isHandshaking()) {
                    inBuf.clear();
                    int r = sock.read(inBuf);
                    if (r < 0) {
                        throw new TlsHandshakeException("the connection closed during the TLS handshake");
                    }
                    if (r > 0) {
                        if (first && in[0] != CONTENT_HANDSHAKE) {
                            throw new TlsHandshakeException(in[0] == 0 ? "a plaintext NVMe/TCP ICReq on a "
                                    + "secure-channel listener" : "not a TLS ClientHello (first byte " + in[0] + ")");
                        }
                        first = false;
                        tls.offerInput(in, 0, r);
                        continue;
                    }
                }
                key.interestOps(SelectionKey.OP_READ | (outPending() ? SelectionKey.OP_WRITE : 0));
                sel.select(Math.max(1, left / 1_000_000));
            }
        }
    }

    /** The socket under the connection (the engine's selector watches it). */
    public SocketChannel socket() {
        return sock;
    }

    /** The PSK identity the handshake used (target side), or null. */
    public NvmeTlsIdentity identity() {
        return identity;
    }

    /** True while encrypted bytes wait for the socket. */
    public boolean outputPending() {
        return outPending();
    }

    private boolean outPending() {
        return out.hasRemaining() || tls.getAvailableOutputBytes() > 0;
    }

    private void flushOut() throws IOException {
        while (true) {
            if (out.hasRemaining()) {
                sock.write(out);
                if (out.hasRemaining()) {
                    return;
                }
            }
            int avail = tls.getAvailableOutputBytes();
            if (avail == 0) {
                return;
            }
            out.clear();
            tls.readOutput(out, Math.min(avail, out.capacity()));
            out.flip();
        }
    }

    /**
     * Reads decrypted bytes into {@code dst}: what the TLS layer holds, then what the socket has; 0 when nothing
     * is there yet, -1 at the end. A malformed or forged record throws (the peer gets its alert).
     */
    @Override
    public int read(ByteBuffer dst) throws IOException {
        int n = 0;
        while (true) {
            int avail = tls.getAvailableInputBytes();
            if (avail > 0 && dst.hasRemaining()) {
                n += tls.readInput(dst, Math.min(avail, dst.remaining()));
            }
            if (!dst.hasRemaining()) {
                return n;
            }
            inBuf.clear();
            int r = sock.read(inBuf);
            if (r < 0) {
                return n > 0 ? n : -1;
            }
            if (r == 0) {
                return n;
            }
            tls.offerInput(in, 0, r);
            flushOut();
            if (tls.isClosed() && tls.getAvailableInputBytes() == 0) {
                return n > 0 ? n : -1;
            }
        }
    }

    /**
     * Encrypts as much of {@code src} as the socket takes now (whole records while nothing waits); an empty
     * {@code src} only pushes what waits. Returns the plaintext bytes consumed.
     */
    @Override
    public int write(ByteBuffer src) throws IOException {
        flushOut();
        int total = 0;
        while (src.hasRemaining() && !outPending()) {
            int c = Math.min(src.remaining(), RECORD);
            src.get(plain, 0, c);
            tls.writeApplicationData(plain, 0, c);
            total += c;
            flushOut();
        }
        return total;
    }

    @Override
    public boolean isOpen() {
        return sock.isOpen() && !tls.isClosed();
    }

    /** Sends close_notify if it can at once, then closes the socket. */
    @Override
    public void close() throws IOException {
        try {
            tls.close();
            flushOut();
        } catch (IOException e) {
            // closing anyway
        } finally {
            sock.close();
        }
    }
}
