package io.jdoca.sta.nvmf.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Both {@link TlsAead} implementations against the GCM known-answer vectors of McGrew and Viega's "The Galois/Counter
 * Mode of Operation" (the test cases NIST SP 800-38D's validation refers to): AES-128 and AES-256, without and with
 * additional data, on heap and direct buffers at an offset; a flipped ciphertext or tag byte is refused with a
 * status. Random records across the implementations and the JDK: {@link TlsAeadPropertyTest}.
 */
class TlsAeadTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final String P4 = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c9595680953"
            + "2fcf0e2449a6b525b16aedf5aa0de657ba637b39";
    private static final String A4 = "feedfacedeadbeeffeedfacedeadbeefabaddad2";

    /** One test case: key, IV, plaintext, AAD, ciphertext, tag (hex). */
    record Vector(String name, String key, String iv, String plain, String aad, String cipher, String tag) {
    }

    static final Vector[] VECTORS = {
        new Vector("test case 1 (AES-128, empty)", "00000000000000000000000000000000", "000000000000000000000000", "",
                "", "", "58e2fccefa7e3061367f1d57a4e7455a"),
        new Vector("test case 2 (AES-128)", "00000000000000000000000000000000", "000000000000000000000000",
                "00000000000000000000000000000000", "", "0388dace60b6a392f328c2b971b2fe78",
                "ab6e47d42cec13bdf53a67b21257bddf"),
        new Vector("test case 4 (AES-128, AAD)", "feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888", P4,
                A4, "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa05"
                        + "1ba30b396a0aac973d58e091", "5bc94fbc3221a5db94fae95ae7121a47"),
        new Vector("test case 14 (AES-256)", "0000000000000000000000000000000000000000000000000000000000000000",
                "000000000000000000000000", "00000000000000000000000000000000", "", "cea7403d4d606b6e074ec5d3baf39d18",
                "d0d1c8a799996bf0265b98b5d48ab919"),
        new Vector("test case 16 (AES-256, AAD)", "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
                "cafebabefacedbaddecaf888", P4, A4, "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
                        + "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
                "76fc6ece0f4e1768cddf8853bb2d551b"),
    };

    /** The implementation named {@code engine}; the test is skipped with a line when libcrypto did not load. */
    static TlsAead aead(String engine, byte[] key) throws IOException {
        if (engine.equals("openssl")) {
            assumeTrue(TlsAead.openSslAvailable(), () -> "skipped: " + Libcrypto.unavailableReason());
            return TlsAead.openSsl(key);
        }
        return TlsAead.java(key);
    }

    static ByteBuffer buffer(boolean direct, int size) {
        return direct ? ByteBuffer.allocateDirect(size) : ByteBuffer.allocate(size);
    }

    static byte[] bytes(ByteBuffer b, int at, int n) {
        byte[] a = new byte[n];
        b.get(at, a);
        return a;
    }

    @ParameterizedTest
    @ValueSource(strings = {"java", "openssl"})
    void knownAnswerVectorsSealAndOpen(String engine) throws IOException {
        for (Vector v : VECTORS) {
            byte[] plain = HEX.parseHex(v.plain());
            byte[] aad = HEX.parseHex(v.aad());
            byte[] nonce = HEX.parseHex(v.iv());
            byte[] expected = HEX.parseHex(v.cipher() + v.tag());
            int n = plain.length;
            try (TlsAead gcm = aead(engine, HEX.parseHex(v.key()))) {
                for (boolean direct : new boolean[] {true, false}) {
                    String what = engine + ", " + v.name() + (direct ? ", direct" : ", heap");
                    ByteBuffer src = buffer(direct, n + 3).put(3, plain);
                    ByteBuffer sealed = buffer(direct, n + 16 + 7);
                    gcm.seal(nonce, aad, src, 3, n, sealed, 7);
                    assertThat(HEX.formatHex(bytes(sealed, 7, n + 16))).as(what).isEqualTo(HEX.formatHex(expected));
                    ByteBuffer back = buffer(direct, n + 5);
                    assertThat(gcm.open(nonce, aad, sealed, 7, n, back, 5)).as(what).isTrue();
                    assertThat(bytes(back, 5, n)).as(what).isEqualTo(plain);
                    // a flipped bit anywhere (ciphertext, tag) or other additional data: a status, no exception
                    for (int at = 7; at < 7 + n + 16; at += Math.max(1, (n + 16) / 5)) {
                        sealed.put(at, (byte) (sealed.get(at) ^ 0x10));
                        assertThat(gcm.open(nonce, aad, sealed, 7, n, back, 5)).as(what + ", byte " + at).isFalse();
                        sealed.put(at, (byte) (sealed.get(at) ^ 0x10));
                    }
                    byte[] otherAad = (v.aad() + "01").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                    assertThat(gcm.open(nonce, otherAad, sealed, 7, n, back, 5)).as(what + ", other AAD").isFalse();
                    assertThat(gcm.open(nonce, aad, sealed, 7, n, back, 5)).as(what + ", again").isTrue();
                }
            }
        }
    }

    /** In place, as TlsRecords seals: source and destination the same bytes. */
    @ParameterizedTest
    @ValueSource(strings = {"java", "openssl"})
    void sealsInPlace(String engine) throws IOException {
        Vector v = VECTORS[4];
        byte[] plain = HEX.parseHex(v.plain());
        try (TlsAead gcm = aead(engine, HEX.parseHex(v.key()))) {
            ByteBuffer b = ByteBuffer.allocateDirect(plain.length + 16 + 5).put(5, plain);
            gcm.seal(HEX.parseHex(v.iv()), HEX.parseHex(v.aad()), b, 5, plain.length, b, 5);
            assertThat(HEX.formatHex(bytes(b, 5, plain.length + 16))).isEqualTo(v.cipher() + v.tag());
        }
    }

    @Test
    void aClosedContextRefusesAndClosesOnce() throws IOException {
        TlsAead gcm = aead("openssl", new byte[16]);
        long live = OpenSslGcm.live();
        long closed = OpenSslGcm.closed();
        gcm.close();
        gcm.close();
        assertThat(OpenSslGcm.live()).isLessThanOrEqualTo(live - 1); // (the cleaner may free others meanwhile)
        assertThat(OpenSslGcm.closed()).isEqualTo(closed + 1);
        ByteBuffer b = ByteBuffer.allocateDirect(64);
        assertThatThrownBy(() -> gcm.seal(new byte[12], new byte[5], b, 0, 16, b, 0)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> gcm.open(new byte[12], new byte[5], b, 0, 16, b, 0)).isInstanceOf(IOException.class);
    }

    @Test
    void rangesOutsideTheBufferAreRefusedBeforeAnyNativeCall() throws IOException {
        try (TlsAead gcm = aead("openssl", new byte[16])) {
            ByteBuffer b = ByteBuffer.allocateDirect(64);
            assertThatThrownBy(() -> gcm.seal(new byte[12], new byte[5], b, 40, 16, b, 40))
                    .isInstanceOf(IndexOutOfBoundsException.class); // the tag would pass the end
            assertThatThrownBy(() -> gcm.open(new byte[12], new byte[5], b, 0, 49, b, 0))
                    .isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> gcm.seal(new byte[12], new byte[5], b, 0, 16, b.asReadOnlyBuffer(), 0))
                    .isInstanceOf(java.nio.ReadOnlyBufferException.class);
        }
    }

    @Test
    void theChoiceFallsBackToJavaWithOneLineSayingWhy() {
        String why = "libcrypto unavailable (nope.so: no such file; Debian: libssl3)";
        TlsAeadChoice.Decision auto = TlsAeadChoice.decide("auto", true, null, "OpenSSL 3.0.20");
        assertThat(auto.openssl()).isTrue();
        assertThat(auto.line()).contains("OpenSSL 3.0.20");
        TlsAeadChoice.Decision missing = TlsAeadChoice.decide("auto", false, why, null);
        assertThat(missing.openssl()).isFalse();
        assertThat(missing.line()).contains("pure-Java", why).doesNotContain("\n");
        assertThat(missing.level()).isEqualTo(Level.INFO);
        TlsAeadChoice.Decision asked = TlsAeadChoice.decide("openssl", false, why, null);
        assertThat(asked.openssl()).isFalse();
        assertThat(asked.level()).isEqualTo(Level.WARNING);
        assertThat(TlsAeadChoice.decide("java", true, null, "OpenSSL 3").openssl()).isFalse();
        TlsAeadChoice.Decision odd = TlsAeadChoice.decide("fast", true, null, "OpenSSL 3");
        assertThat(odd.openssl()).isTrue();
        assertThat(odd.line()).contains("fast");
        // this process: OpenSSL whenever it loaded (the default is auto)
        assertThat(TlsAeadChoice.OPENSSL).isEqualTo(TlsAead.openSslAvailable());
        assertThat(TlsAead.description()).isNotBlank();
    }
}
