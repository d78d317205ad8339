package io.jdoca.sta.nvmf.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** {@link AesGcm} against the JDK's AES/GCM/NoPadding (an independent implementation): same ciphertext and tag. */
class AesGcmTest {
    @Test
    void sealsAsTheJdkDoesAndOpensWhatItSealed() throws Exception {
        Random rnd = new Random(42);
        for (int round = 0; round < 300; round++) {
            byte[] key = new byte[round % 2 == 0 ? 16 : 32];
            byte[] nonce = new byte[12];
            byte[] aad = new byte[5];
            rnd.nextBytes(key);
            rnd.nextBytes(nonce);
            rnd.nextBytes(aad);
            int len = round < 40 ? round : rnd.nextInt(17_000);
            byte[] plain = new byte[len];
            rnd.nextBytes(plain);
            Cipher jdk = Cipher.getInstance("AES/GCM/NoPadding");
            jdk.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
            jdk.updateAAD(aad);
            byte[] expected = jdk.doFinal(plain);
            AesGcm gcm = new AesGcm(key);
            ByteBuffer out = ByteBuffer.allocateDirect(len + 16 + 7);
            gcm.seal(nonce, aad, ByteBuffer.wrap(plain), 0, len, out, 7);
            byte[] got = new byte[len + 16];
            out.get(7, got);
            assertThat(got).as("round " + round + ", " + len + " bytes").isEqualTo(expected);
            ByteBuffer back = ByteBuffer.allocate(len + 3);
            assertThat(gcm.open(nonce, aad, ByteBuffer.wrap(expected), 0, len, back, 3)).isTrue();
            assertThat(Arrays.copyOfRange(back.array(), 3, 3 + len)).isEqualTo(plain);
            expected[rnd.nextInt(expected.length)] ^= 1;
            assertThat(gcm.open(nonce, aad, ByteBuffer.wrap(expected), 0, len, back, 3)).as("tampered").isFalse();
        }
    }

    /** Sealing speed of 16 KiB records, this class against the JDK's GCM (printed for docs/features/tls.md). */
    @Test
    void speedIsMeasured() throws Exception {
        byte[] key = new byte[16];
        byte[] nonce = new byte[12];
        byte[] aad = new byte[5];
        ByteBuffer src = ByteBuffer.allocateDirect(16384);
        ByteBuffer dst = ByteBuffer.allocateDirect(16384 + 16);
        AesGcm gcm = new AesGcm(key);
        Cipher jdk = Cipher.getInstance("AES/GCM/NoPadding");
        SecretKeySpec k = new SecretKeySpec(key, "AES");
        for (int pass = 0; pass < 2; pass++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < 4000; i++) {
                nonce[0] = (byte) i;
                nonce[1] = (byte) (i >>> 8);
                nonce[2] = (byte) pass;
                gcm.seal(nonce, aad, src, 0, 16384, dst, 0);
            }
            long t1 = System.nanoTime();
            for (int i = 0; i < 4000; i++) {
                nonce[0] = (byte) i;
                nonce[1] = (byte) (i >>> 8);
                nonce[2] = (byte) (pass + 2);
                jdk.init(Cipher.ENCRYPT_MODE, k, new GCMParameterSpec(128, nonce));
                jdk.updateAAD(aad);
                src.clear();
                dst.clear();
                jdk.doFinal(src, dst);
            }
            long t2 = System.nanoTime();
            if (pass == 1) {
                System.out.printf("AES-128-GCM seal, 16 KiB records: AesGcm %.0f MB/s, JDK %.0f MB/s%n",
                        4000 * 16384 / ((t1 - t0) / 1e3), 4000 * 16384 / ((t2 - t1) / 1e3));
            }
        }
    }
}
