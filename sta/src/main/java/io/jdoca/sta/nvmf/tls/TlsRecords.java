package io.jdoca.sta.nvmf.tls;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * TLS 1.3 record protection after the handshake (RFC 8446 §5.2, §7.3): AES-GCM with the application traffic
 * keys BouncyCastle negotiated, on the caller's buffers, with a {@link TlsAead} per direction (OpenSSL's AES-GCM
 * through FFM, or jdoca's pure-Java one where libcrypto does not load; keyed once). Sealing
 * writes a whole TLSCiphertext (header, encrypted inner plaintext with its content type, tag) into the output;
 * opening decrypts one record in place of nothing (into the caller's plaintext buffer) and returns its content
 * type. KeyUpdate (§4.6.3) re-derives a direction's secret ("traffic upd"), key and IV. Nothing is allocated per
 * record (a KeyUpdate makes new keys). {@link #close} frees the keys' native state.
 *
 * <p>Not thread-safe: the connection's owner thread.
 */
final class TlsRecords implements AutoCloseable {
    static final byte APPLICATION_DATA = 23;
    static final byte ALERT = 21;
    static final byte HANDSHAKE = 22;
    /** Largest TLSInnerPlaintext content (2^14) and ciphertext expansion allowed (256). */
    static final int MAX_PLAIN = 16384;
    static final int MAX_CIPHER = MAX_PLAIN + 256;

    private final int hash;
    private final int keyLen;
    private byte[] writeSecret;
    private byte[] readSecret;
    private TlsAead writeKey;
    private TlsAead readKey;
    private final byte[] writeIv = new byte[12];
    private final byte[] readIv = new byte[12];
    private final byte[] nonce = new byte[12];
    private final byte[] aad = new byte[5];
    private long writeSeq;
    private long readSeq;

    /** Records of the connection with these traffic secrets (hash id 01/02: AES-128/256-GCM). */
    TlsRecords(int hash, byte[] writeSecret, byte[] readSecret) throws IOException {
        this.hash = hash;
        this.keyLen = hash == NvmeTlsKey.HASH_SHA384 ? 32 : 16;
        this.writeSecret = writeSecret;
        this.readSecret = readSecret;
        writeKey = keys(writeSecret, writeIv);
        try {
            readKey = keys(readSecret, readIv);
        } catch (IOException | RuntimeException e) {
            writeKey.close();
            throw e;
        }
    }

    private TlsAead keys(byte[] secret, byte[] iv) throws IOException {
        byte[] k = TlsHkdf.expandLabel(hash, secret, "key", new byte[0], keyLen);
        System.arraycopy(TlsHkdf.expandLabel(hash, secret, "iv", new byte[0], 12), 0, iv, 0, 12);
        try {
            return TlsAead.create(k);
        } finally {
            Arrays.fill(k, (byte) 0);
        }
    }

    private byte[] nonce(byte[] iv, long seq) {
        for (int i = 0; i < 12; i++) {
            nonce[i] = iv[i];
        }
        for (int i = 0; i < 8; i++) {
            nonce[11 - i] ^= (byte) (seq >>> (8 * i));
        }
        return nonce;
    }

    /** Bytes a record of {@code n} plaintext bytes takes on the wire. */
    static int wireSize(int n) {
        return 5 + n + 1 + 16;
    }

    /** Seals the remaining bytes of {@code plain} (at most {@link #MAX_PLAIN}) as one record of {@code type}. */
    void seal(ByteBuffer plain, byte type, ByteBuffer out) throws IOException {
        int len = plain.remaining() + 1 + 16;
        aad[0] = APPLICATION_DATA;
        aad[1] = 3;
        aad[2] = 3;
        aad[3] = (byte) (len >>> 8);
        aad[4] = (byte) len;
        out.put(aad);
        int at = out.position();
        int n = plain.remaining();
        out.put(plain).put(type); // the inner plaintext, encrypted in place
        writeKey.seal(nonce(writeIv, writeSeq++), aad, out, at, n + 1, out, at);
        out.position(at + n + 1 + 16);
    }

    /**
     * Opens the record of {@code len} ciphertext bytes whose header starts at {@code in}'s position (5 + len bytes
     * there) into {@code plain} (content only, no type, no padding); returns the content type. {@code in}'s
     * position moves past the record. A forged or damaged record throws.
     */
    byte open(ByteBuffer in, int len, ByteBuffer plain) throws IOException {
        int start = plain.position();
        in.get(aad);
        int at = in.position();
        in.position(at + len);
        if (len < 16 || plain.remaining() < len - 16
                || !readKey.open(nonce(readIv, readSeq++), aad, in, at, len - 16, plain, start)) {
            throw new IOException("TLS record authentication failed (bad_record_mac)");
        }
        int end = start + len - 16;
        while (end > start && plain.get(end - 1) == 0) {
            end--;
        }
        if (end == start) {
            throw new IOException("TLS record without a content type (unexpected_message)");
        }
        plain.position(end - 1);
        return plain.get(end - 1);
    }

    /** The peer's KeyUpdate: the next records it sends use the next secret. */
    void updateRead() throws IOException {
        byte[] next = TlsHkdf.expandLabel(hash, readSecret, "traffic upd", new byte[0], TlsHkdf.hashLength(hash));
        Arrays.fill(readSecret, (byte) 0);
        readSecret = next;
        readKey.close();
        readKey = keys(readSecret, readIv);
        readSeq = 0;
    }

    /** After sending our KeyUpdate: the next records we send use the next secret. */
    void updateWrite() throws IOException {
        byte[] next = TlsHkdf.expandLabel(hash, writeSecret, "traffic upd", new byte[0], TlsHkdf.hashLength(hash));
        Arrays.fill(writeSecret, (byte) 0);
        writeSecret = next;
        writeKey.close();
        writeKey = keys(writeSecret, writeIv);
        writeSeq = 0;
    }

    /** Which AES-GCM implementation protects the records ({@link TlsAead#engine()}). */
    String engine() {
        return writeKey.engine();
    }

    /** Frees both directions' keys (idempotent); the connection seals and opens nothing afterwards. */
    @Override
    public void close() {
        writeKey.close();
        readKey.close();
    }
}
