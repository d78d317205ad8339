package io.jdoca.sta.nvmf.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Random;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Records sealed by one {@link TlsAead} implementation open with the other and with the JDK's
 * {@code AES/GCM/NoPadding} (a third implementation), and the JDK's sealed bytes are the same; a flipped byte of the
 * ciphertext or the tag makes both implementations refuse the record. Random lengths 0 to past a TLS record's
 * 16 KiB, both key sizes, heap or direct buffers (plaintext and sealed side each either) at random offsets. Where
 * libcrypto did not load, the Java implementation stands on both sides (still against the JDK).
 */
class TlsAeadPropertyTest {
    @Property(tries = 300)
    void sealedByOneOpensWithTheOtherAndTheJdk(@ForAll @IntRange(max = 16_700) int len, @ForAll boolean aes256,
            @ForAll boolean openSslSeals, @ForAll boolean plainDirect, @ForAll boolean sealedDirect,
            @ForAll @IntRange(max = 40) int off, @ForAll long seed) throws Exception {
        Random rnd = new Random(seed);
        byte[] key = new byte[aes256 ? 32 : 16];
        byte[] nonce = new byte[12];
        byte[] aad = new byte[5];
        byte[] plain = new byte[len];
        rnd.nextBytes(key);
        rnd.nextBytes(nonce);
        rnd.nextBytes(aad);
        rnd.nextBytes(plain);
        boolean openssl = TlsAead.openSslAvailable();
        try (TlsAead a = openssl && openSslSeals ? TlsAead.openSsl(key) : TlsAead.java(key);
                TlsAead b = openssl && !openSslSeals ? TlsAead.openSsl(key) : TlsAead.java(key)) {
            ByteBuffer src = TlsAeadTest.buffer(plainDirect, off + len).put(off, plain);
            ByteBuffer sealed = TlsAeadTest.buffer(sealedDirect, len + 16 + off);
            a.seal(nonce, aad, src, off, len, sealed, off);
            byte[] got = TlsAeadTest.bytes(sealed, off, len + 16);

            SecretKeySpec k = new SecretKeySpec(key, "AES");
            Cipher jdk = Cipher.getInstance("AES/GCM/NoPadding");
            jdk.init(Cipher.ENCRYPT_MODE, k, new GCMParameterSpec(128, nonce));
            jdk.updateAAD(aad);
            assertThat(got).as("sealed as the JDK seals").isEqualTo(jdk.doFinal(plain));
            jdk.init(Cipher.DECRYPT_MODE, k, new GCMParameterSpec(128, nonce));
            jdk.updateAAD(aad);
            assertThat(jdk.doFinal(got)).as("the JDK opens it").isEqualTo(plain);

            ByteBuffer back = TlsAeadTest.buffer(plainDirect, len + off);
            assertThat(b.open(nonce, aad, sealed, off, len, back, off)).as(b.engine() + " opens it").isTrue();
            assertThat(TlsAeadTest.bytes(back, off, len)).isEqualTo(plain);
            assertThat(a.open(nonce, aad, sealed, off, len, back, off)).as(a.engine() + " opens it").isTrue();

            int at = off + rnd.nextInt(len + 16);
            sealed.put(at, (byte) (sealed.get(at) ^ (1 << rnd.nextInt(8))));
            assertThat(b.open(nonce, aad, sealed, off, len, back, off)).as(b.engine() + ", flipped").isFalse();
            assertThat(a.open(nonce, aad, sealed, off, len, back, off)).as(a.engine() + ", flipped").isFalse();
        }
    }
}
