package io.jdoca.storage.gga.lz4;

import static org.assertj.core.api.Assertions.assertThat;

import io.airlift.compress.v3.lz4.Lz4JavaCompressor;
import io.airlift.compress.v3.lz4.Lz4JavaDecompressor;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Property tests of the LZ4 block and block-stream codec: round trips on compressible and
 * incompressible data, and byte-level interoperability with an independent LZ4 implementation
 * (aircompressor) in both directions.
 */
class Lz4BlockStreamPropertiesTest {

    /** Data with structure LZ4 can find: runs, repeats of earlier text, and random noise, mixed. */
    @Provide
    Arbitrary<byte[]> data() {
        return Combinators.combine(Arbitraries.integers().between(0, 200_000), Arbitraries.longs(),
                Arbitraries.integers().between(0, 3)).as((len, seed, kind) -> gen(len, seed, kind));
    }

    static byte[] gen(int len, long seed, int kind) {
        Random r = new Random(seed);
        byte[] b = new byte[len];
        switch (kind) {
            case 0 -> r.nextBytes(b); // incompressible
            case 1 -> {
                for (int i = 0; i < len; i++) {
                    b[i] = (byte) "abcd efgh".charAt(r.nextInt(9)); // small alphabet
                }
            }
            case 2 -> {
                int i = 0;
                while (i < len) {
                    int run = 1 + r.nextInt(300);
                    byte v = (byte) r.nextInt(4);
                    for (int j = 0; j < run && i < len; j++) {
                        b[i++] = v;
                    }
                }
            }
            default -> {
                int i = 0;
                while (i < len) {
                    if (i > 16 && r.nextBoolean()) {
                        int from = r.nextInt(i);
                        int n = Math.min(len - i, 4 + r.nextInt(400));
                        for (int j = 0; j < n; j++) {
                            b[i + j] = b[from + j]; // may overlap: period < n
                        }
                        i += n;
                    } else {
                        b[i++] = (byte) r.nextInt(256);
                    }
                }
            }
        }
        return b;
    }

    @Property(tries = 200)
    void streamRoundTrips(@ForAll("data") byte[] input) {
        MemorySegment src = MemorySegment.ofArray(input);
        byte[] out = new byte[Lz4BlockStream.maxStreamLength(input.length)];
        int n = new Lz4BlockStream().compress(src, 0, input.length, MemorySegment.ofArray(out), 0, out.length);
        assertThat(n).isPositive().isLessThanOrEqualTo(out.length);
        byte[] back = new byte[input.length + 16];
        int m = Lz4BlockStream.decompress(MemorySegment.ofArray(out), 0, n, MemorySegment.ofArray(back), 0, back.length);
        assertThat(m).isEqualTo(input.length);
        assertThat(Arrays.copyOf(back, m)).isEqualTo(input);
    }

    @Property(tries = 200)
    void ourBlocksDecodeWithAircompressor(@ForAll("data") byte[] input) {
        if (input.length == 0) {
            return;
        }
        byte[] out = new byte[Lz4Block.maxCompressedLength(input.length)];
        int n = new Lz4Block().compress(MemorySegment.ofArray(input), 0, input.length, MemorySegment.ofArray(out), 0,
                out.length);
        assertThat(n).isPositive();
        byte[] back = new byte[input.length];
        int m = new Lz4JavaDecompressor().decompress(out, 0, n, back, 0, back.length);
        assertThat(m).isEqualTo(input.length);
        assertThat(back).isEqualTo(input);
    }

    @Property(tries = 200)
    void aircompressorBlocksDecodeWithOurs(@ForAll("data") byte[] input) {
        if (input.length == 0) {
            return;
        }
        Lz4JavaCompressor c = new Lz4JavaCompressor();
        byte[] out = new byte[c.maxCompressedLength(input.length)];
        int n = c.compress(input, 0, input.length, out, 0, out.length);
        byte[] back = new byte[input.length];
        int m = Lz4Block.decompress(MemorySegment.ofArray(out), 0, n, MemorySegment.ofArray(back), 0, back.length);
        assertThat(m).isEqualTo(input.length);
        assertThat(back).isEqualTo(input);
    }

    @Property(tries = 100)
    void compressRefusesWhatDoesNotFit(@ForAll("data") byte[] input) {
        int cap = input.length / 3;
        byte[] out = new byte[cap + 8];
        Arrays.fill(out, (byte) 0x77);
        int n = new Lz4BlockStream().compress(MemorySegment.ofArray(input), 0, input.length, MemorySegment.ofArray(out), 0, cap);
        assertThat(n).isLessThanOrEqualTo(cap);
        for (int i = cap; i < out.length; i++) {
            assertThat(out[i]).as("byte %d past the capacity", i).isEqualTo((byte) 0x77);
        }
    }

    @Property(tries = 50)
    void incompressibleBlocksAreStoredRawAsLz4fDoes(@ForAll("seed") long seed) {
        byte[] input = gen(4096, seed, 0);
        byte[] out = new byte[Lz4BlockStream.maxStreamLength(4096)];
        int n = new Lz4BlockStream().compress(MemorySegment.ofArray(input), 0, 4096, MemorySegment.ofArray(out), 0, out.length);
        assertThat(n).isEqualTo(4096 + 4);
        int word = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        assertThat(word).isEqualTo(0x8000_0000 | 4096); // LZ4 frame format: top bit = uncompressed
    }

    @Provide
    Arbitrary<Long> seed() {
        return Arbitraries.longs();
    }
}
