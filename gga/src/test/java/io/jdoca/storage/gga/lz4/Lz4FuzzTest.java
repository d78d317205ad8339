package io.jdoca.storage.gga.lz4;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Fuzzing of the LZ4 decoders (their input is what a storage target returns, i.e. outside input):
 * random bytes and mutated valid streams never throw, never write outside the destination window,
 * and end with a size or ERROR.
 */
class Lz4FuzzTest {
    private static final int GUARD = 64;

    @Test
    void randomAndMutatedInputNeverEscapes() {
        Random r = new Random(0xF00D);
        Lz4BlockStream enc = new Lz4BlockStream();
        long decoded = 0;
        for (int iter = 0; iter < 40_000; iter++) {
            byte[] src;
            if (iter % 2 == 0) {
                src = new byte[r.nextInt(300)];
                r.nextBytes(src);
            } else {
                byte[] plain = Lz4BlockStreamPropertiesTest.gen(1 + r.nextInt(9000), r.nextLong(), 1 + r.nextInt(3));
                byte[] s = new byte[Lz4BlockStream.maxStreamLength(plain.length)];
                int n = enc.compress(MemorySegment.ofArray(plain), 0, plain.length, MemorySegment.ofArray(s), 0, s.length);
                src = Arrays.copyOf(s, n);
                int flips = 1 + r.nextInt(4);
                for (int f = 0; f < flips && src.length > 0; f++) {
                    src[r.nextInt(src.length)] ^= (byte) (1 << r.nextInt(8));
                }
                if (r.nextInt(4) == 0) {
                    src = Arrays.copyOf(src, r.nextInt(src.length + 1)); // truncated
                }
            }
            int cap = r.nextInt(12_000);
            byte[] dst = new byte[cap + 2 * GUARD];
            Arrays.fill(dst, (byte) 0x5A);
            int m = Lz4BlockStream.decompress(MemorySegment.ofArray(src), 0, src.length, MemorySegment.ofArray(dst), GUARD, cap);
            assertThat(m).isBetween(Lz4BlockStream.ERROR, cap);
            int b = Lz4Block.decompress(MemorySegment.ofArray(src), 0, src.length, MemorySegment.ofArray(dst), GUARD, cap);
            assertThat(b).isBetween(Lz4Block.ERROR, cap);
            for (int i = 0; i < GUARD; i++) {
                assertThat(dst[i]).isEqualTo((byte) 0x5A);
                assertThat(dst[GUARD + cap + i]).isEqualTo((byte) 0x5A);
            }
            decoded += m > 0 ? 1 : 0;
        }
        assertThat(decoded).as("some mutated streams still decode").isPositive();
    }
}
