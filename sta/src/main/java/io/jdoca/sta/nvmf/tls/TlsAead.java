package io.jdoca.sta.nvmf.tls;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * AES-GCM as TLS 1.3 protects a record (RFC 8446 §5.2; NIST SP 800-38D): one key, per record a 12-byte nonce and
 * the additional data (the record header), the 16-byte tag right after the ciphertext. Two implementations give
 * the same bytes: OpenSSL's libcrypto through java.lang.foreign ({@code OpenSslGcm}, what {@link #create} picks
 * when the library loads) and jdoca's pure-Java {@code AesGcm} (the fallback, or {@code -Djdoca.sta.tls.aead=java}).
 * {@code TlsRecords} does not know which one it has. After construction, sealing and opening a record allocate
 * nothing, take no lock and throw nothing for a record that does not authenticate ({@link #open} returns false);
 * an {@link IOException} means the cipher itself failed (or the object was closed), never a bad record.
 *
 * <p>Public for the bench module's JMH benchmark ({@code TlsAeadBenchmarks}); {@code TlsRecords} is its user.
 *
 * <p>Not thread-safe: one per direction of a connection, used by one thread at a time; {@link #close} (on that
 * thread) frees what the implementation holds outside the Java heap.
 */
public interface TlsAead extends AutoCloseable {
    /**
     * Encrypts {@code len} bytes of {@code src} at {@code srcOff} into {@code dst} at {@code dstOff} and writes the
     * 16-byte tag after them; the two ranges are the same bytes (in place) or do not overlap. Offsets are absolute;
     * positions and limits do not move.
     */
    void seal(byte[] nonce, byte[] aad, ByteBuffer src, int srcOff, int len, ByteBuffer dst, int dstOff)
            throws IOException;

    /**
     * Decrypts {@code len} ciphertext bytes (the tag after them) of {@code src} at {@code srcOff} into {@code dst}
     * at {@code dstOff}; false (and nothing to be used in dst) when the tag does not match.
     */
    boolean open(byte[] nonce, byte[] aad, ByteBuffer src, int srcOff, int len, ByteBuffer dst, int dstOff)
            throws IOException;

    /** Which implementation: "openssl" or "java". */
    String engine();

    /** Frees what the implementation holds outside the heap; idempotent. Sealing or opening afterwards throws. */
    @Override
    void close();

    /**
     * The AEAD of {@code key} (16 or 32 bytes) by the implementation this process uses (chosen once, logged once:
     * {@link #description()}).
     */
    static TlsAead create(byte[] key) throws IOException {
        return TlsAeadChoice.OPENSSL ? new OpenSslGcm(key) : new AesGcm(key);
    }

    /** jdoca's pure-Java AES-GCM (the JDK's AES keyed once, GHASH from per-key tables). */
    static TlsAead java(byte[] key) throws IOException {
        return new AesGcm(key);
    }

    /** OpenSSL's AES-GCM through FFM; {@link UnsupportedOperationException} when libcrypto did not load. */
    static TlsAead openSsl(byte[] key) throws IOException {
        if (!Libcrypto.available()) {
            throw new UnsupportedOperationException(Libcrypto.unavailableReason());
        }
        return new OpenSslGcm(key);
    }

    /** True when libcrypto loaded (so {@link #openSsl} works). */
    static boolean openSslAvailable() {
        return Libcrypto.available();
    }

    /** The one line logged when the choice was made: which implementation {@link #create} uses, and why. */
    static String description() {
        return TlsAeadChoice.DESCRIPTION;
    }
}
