package io.jdoca.sta.nvmf.tls;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import org.bouncycastle.tls.CipherSuite;
import org.bouncycastle.tls.SecurityParameters;
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
 * {@code readInput}, {@code writeApplicationData}, {@code readOutput}) for the handshake, fed one record at a
 * time so that it never takes an application record; then {@link TlsRecords} protects the records with the
 * negotiated traffic keys on this class's buffers (made once, off the heap: the socket reads and writes them
 * without the JDK's copy through a temporary direct buffer, and OpenSSL's AES-GCM takes their addresses).
 * BouncyCastle's own record layer, which allocates per record, remains for tests ({@code ownRecords} false: the
 * other implementation to check against).
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
     * BouncyCastle's handshake over the JDK's own primitives (JCA: X25519, HMAC/HKDF, AES-GCM for the handshake's
     * records); the application records are {@link TlsRecords}', on the JDK's AES-GCM too.
     */
    private static final TlsCrypto CRYPTO = new JcaTlsCryptoProvider().create(new SecureRandom());
    /** TLS record content type handshake: the first byte of a ClientHello. */
    private static final byte CONTENT_HANDSHAKE = 22;

    private final SocketChannel sock;
    private final TlsProtocol tls;
    /** Received bytes not yet taken (handshake and {@link #records} mode; read mode: position..limit). */
    private final ByteBuffer netIn = ByteBuffer.allocateDirect(4 * (TlsRecords.MAX_CIPHER + 5)).limit(0);
    /** Heap copy of received bytes for BouncyCastle (its {@code offerInput} takes arrays); dropped by own records. */
    private byte[] offered = new byte[TlsRecords.MAX_CIPHER + 5];
    /** Decrypted bytes not yet read ({@link #records} mode; read mode). */
    private final ByteBuffer plainIn = ByteBuffer.allocateDirect(TlsRecords.MAX_CIPHER).limit(0);
    private TlsRecords records;
    private boolean keyUpdateDue;
    private boolean eof;
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
     * Which AES-GCM protects the records after the handshake (OpenSSL's through FFM, or jdoca's pure-Java one), as
     * the one line logged when the process decided it; the first call decides (and logs), so a listener calls it
     * at start rather than leave it to its first connection. Thread-safe.
     */
    public static String recordProtection() {
        return TlsAead.description();
    }

    /**
     * The target's handshake on accepted {@code sock}: the first bytes must be a TLS ClientHello; returns the
     * connection once the handshake is complete, or throws {@link TlsHandshakeException} (one line: why) after
     * closing nothing (the caller closes the socket).
     */
    public static TlsChannel accept(SocketChannel sock, NvmeTlsServer server, long timeoutMs) throws IOException {
        return accept(sock, server, timeoutMs, true);
    }

    /** {@link #accept}; {@code ownRecords} false: BouncyCastle's record layer after the handshake (tests). */
    static TlsChannel accept(SocketChannel sock, NvmeTlsServer server, long timeoutMs, boolean ownRecords)
            throws IOException {
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
        ch.takeOver(server.connection(), true, ownRecords);
        return ch;
    }

    /** The host's handshake on connected {@code sock} (see {@link #accept}). */
    public static TlsChannel connect(SocketChannel sock, NvmeTlsClient client, long timeoutMs) throws IOException {
        return connect(sock, client, timeoutMs, true);
    }

    /** {@link #connect}; {@code ownRecords} false: BouncyCastle's record layer after the handshake (tests). */
    static TlsChannel connect(SocketChannel sock, NvmeTlsClient client, long timeoutMs, boolean ownRecords)
            throws IOException {
        TlsClientProtocol p = new TlsClientProtocol();
        TlsChannel ch = new TlsChannel(sock, p);
        try {
            p.connect(client);
            ch.drive(timeoutMs, false);
        } catch (TlsException e) {
            ch.sendAlert();
            throw new TlsHandshakeException(client.failure() != null ? client.failure() : "TLS: " + e.getMessage());
        }
        ch.takeOver(client.connection(), false, ownRecords);
        return ch;
    }

    /** After the handshake: this class protects the records with the traffic secrets (unless not {@code own}). */
    private void takeOver(SecurityParameters sp, boolean server, boolean ownRecords) throws IOException {
        if (!ownRecords) {
            if (netIn.hasRemaining()) {
                offer(netIn.position(), netIn.remaining());
                netIn.position(netIn.limit());
            }
            return;
        }
        offered = null;
        if (tls.getAvailableInputBytes() != 0 || tls.getAvailableOutputBytes() != 0) {
            throw new TlsHandshakeException("TLS: records pending at the end of the handshake");
        }
        int hash = sp.getCipherSuite() == CipherSuite.TLS_AES_256_GCM_SHA384 ? NvmeTlsKey.HASH_SHA384
                : NvmeTlsKey.HASH_SHA256;
        byte[] c = sp.getTrafficSecretClient().extract();
        byte[] s = sp.getTrafficSecretServer().extract();
        records = server ? new TlsRecords(hash, s, c) : new TlsRecords(hash, c, s);
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
                    if (offerRecord()) {
                        continue;
                    }
                    netIn.compact();
                    int r = sock.read(netIn);
                    netIn.flip();
                    if (r < 0) {
                        throw new TlsHandshakeException("the connection closed during the TLS handshake");
                    }
                    if (r > 0) {
                        byte b0 = netIn.get(0);
                        if (first && b0 != CONTENT_HANDSHAKE) {
                            throw new TlsHandshakeException(b0 == 0 ? "a plaintext NVMe/TCP ICReq on a "
                                    + "secure-channel listener" : "not a TLS ClientHello (first byte " + b0 + ")");
                        }
                        first = false;
                        continue;
                    }
                }
                key.interestOps(SelectionKey.OP_READ | (outPending() ? SelectionKey.OP_WRITE : 0));
                sel.select(Math.max(1, left / 1_000_000));
            }
        }
    }

    /** Offers BouncyCastle the next whole record received, if there is one (the handshake takes no more). */
    private boolean offerRecord() throws IOException {
        int p = netIn.position();
        if (netIn.remaining() < 5) {
            return false;
        }
        int len = recordLength(p);
        if (len > TlsRecords.MAX_CIPHER) {
            throw new TlsHandshakeException("TLS record of " + len + " bytes during the handshake (record_overflow)");
        }
        if (netIn.remaining() < 5 + len) {
            return false;
        }
        netIn.position(p + 5 + len);
        offer(p, 5 + len);
        return true;
    }

    /** The length field of the record header at {@code p} in {@link #netIn}. */
    private int recordLength(int p) {
        return ((netIn.get(p + 3) & 0xff) << 8) | (netIn.get(p + 4) & 0xff);
    }

    /** Gives BouncyCastle {@code n} received bytes at {@code p} of {@link #netIn} (through {@link #offered}). */
    private void offer(int p, int n) throws IOException {
        for (int done = 0; done < n; ) {
            int c = Math.min(n - done, offered.length);
            netIn.get(p + done, offered, 0, c);
            tls.offerInput(offered, 0, c);
            done += c;
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
        return out.hasRemaining() || (records == null && tls.getAvailableOutputBytes() > 0);
    }

    private void flushOut() throws IOException {
        if (records != null) {
            if (out.hasRemaining()) {
                sock.write(out);
            }
            return;
        }
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
        if (records != null) {
            try {
                return readRecords(dst);
            } catch (RuntimeException e) {
                throw new IOException("TLS: " + e.getClass().getSimpleName(), e); // never into the engine
            }
        }
        int n = 0;
        while (true) {
            int avail = tls.getAvailableInputBytes();
            if (avail > 0 && dst.hasRemaining()) {
                n += tls.readInput(dst, Math.min(avail, dst.remaining()));
            }
            if (!dst.hasRemaining()) {
                return n;
            }
            netIn.clear();
            int r = sock.read(netIn);
            if (r < 0) {
                return n > 0 ? n : -1;
            }
            if (r == 0) {
                return n;
            }
            offer(0, r);
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
        if (records != null) {
            try {
                return writeRecords(src);
            } catch (RuntimeException e) {
                throw new IOException("TLS: " + e.getClass().getSimpleName(), e);
            }
        }
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

    private int readRecords(ByteBuffer dst) throws IOException {
        int n = 0;
        while (true) {
            if (plainIn.hasRemaining() && dst.hasRemaining()) {
                int c = Math.min(plainIn.remaining(), dst.remaining());
                int lim = plainIn.limit();
                plainIn.limit(plainIn.position() + c);
                dst.put(plainIn);
                plainIn.limit(lim);
                n += c;
            }
            if (!dst.hasRemaining() || eof) {
                return n == 0 && eof ? -1 : n;
            }
            if (netIn.remaining() >= 5) {
                int p = netIn.position();
                int len = recordLength(p);
                byte type = netIn.get(p);
                if (type != TlsRecords.APPLICATION_DATA || len > TlsRecords.MAX_CIPHER || len < 17) {
                    throw new IOException("TLS record of type " + type + " and " + len + " bytes after the handshake");
                }
                if (netIn.remaining() >= 5 + len) {
                    plainIn.clear();
                    byte inner = records.open(netIn, len, plainIn);
                    plainIn.flip();
                    if (inner != TlsRecords.APPLICATION_DATA) {
                        control(inner);
                    }
                    continue;
                }
            }
            netIn.compact();
            int r = sock.read(netIn);
            netIn.flip();
            if (r < 0) {
                eof = true;
                return n > 0 ? n : -1;
            }
            if (r == 0) {
                return n;
            }
        }
    }

    /** An alert or a post-handshake message (in {@link #plainIn}, which it empties). */
    private void control(byte type) throws IOException {
        int p = plainIn.position();
        int len = plainIn.remaining();
        int b0 = len > 0 ? plainIn.get(p) : -1;
        int b1 = len > 1 ? plainIn.get(p + 1) : -1;
        int b4 = len > 4 ? plainIn.get(p + 4) : -1;
        plainIn.limit(p);
        if (type == TlsRecords.ALERT && len == 2) {
            if (b1 == 0) { // close_notify
                eof = true;
                return;
            }
            throw new IOException("the peer sent TLS alert " + b1);
        }
        if (type == TlsRecords.HANDSHAKE && len >= 4) {
            if (b0 == 4) { // NewSessionTicket: jdoca resumes no session
                return;
            }
            if (b0 == 24 && len == 5) { // KeyUpdate
                records.updateRead();
                keyUpdateDue |= b4 == 1;
                return;
            }
        }
        throw new IOException("unexpected TLS record after the handshake (content type " + type + ")");
    }

    private int writeRecords(ByteBuffer src) throws IOException {
        flushOut();
        int total = 0;
        while (!out.hasRemaining() && (src.hasRemaining() || keyUpdateDue)) {
            out.clear();
            if (keyUpdateDue) {
                ByteBuffer ku = ByteBuffer.wrap(new byte[] {24, 0, 0, 1, 0}); // update_not_requested; rare
                records.seal(ku, TlsRecords.HANDSHAKE, out);
                records.updateWrite();
                keyUpdateDue = false;
            }
            while (src.hasRemaining() && out.remaining() >= TlsRecords.wireSize(Math.min(src.remaining(), RECORD))) {
                int c = Math.min(src.remaining(), RECORD);
                int lim = src.limit();
                src.limit(src.position() + c);
                records.seal(src, TlsRecords.APPLICATION_DATA, out);
                src.limit(lim);
                total += c;
            }
            out.flip();
            sock.write(out);
        }
        return total;
    }

    @Override
    public boolean isOpen() {
        return sock.isOpen() && (records != null ? !eof : !tls.isClosed());
    }

    /** Which AES-GCM implementation protects this connection's records ("openssl", "java"); null before them. */
    String recordEngine() {
        return records == null ? null : records.engine();
    }

    /** Sends close_notify if it can at once, then closes the socket and frees the record keys. */
    @Override
    public void close() throws IOException {
        try {
            if (records != null) {
                flushOut();
                if (!out.hasRemaining()) {
                    out.clear();
                    records.seal(ByteBuffer.wrap(new byte[] {1, 0}), TlsRecords.ALERT, out);
                    out.flip();
                    sock.write(out);
                }
                return;
            }
            tls.close();
            flushOut();
        } catch (IOException e) {
            // closing anyway
        } finally {
            if (records != null) {
                records.close();
            }
            sock.close();
        }
    }
}
