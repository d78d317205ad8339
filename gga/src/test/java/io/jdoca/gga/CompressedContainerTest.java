package io.jdoca.gga;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.DocaError;
import io.jdoca.compress.Lz4Codec;
import io.jdoca.compress.Lz4StreamCodec;
import io.jdoca.testkit.AllocationMeter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The B-byte container of reference §3: layout, limits, round trip, corruption handling, no allocation. */
class CompressedContainerTest {
    private final Lz4StreamCodec lz4 = new Lz4StreamCodec(Lz4Codec.create());

    static byte[] text(int len, long seed) {
        String words = "the quick brown fox jumps over the lazy dog erasure coding gateway block ";
        Random r = new Random(seed);
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
            b[i] = (byte) words.charAt((i * 7 + r.nextInt(3)) % words.length());
        }
        return b;
    }

    @Test
    void layoutIsHeaderStreamPaddingTrailer() {
        int bs = 4096;
        byte[] in = text(bs, 1);
        byte[] c = new byte[bs];
        java.util.Arrays.fill(c, (byte) 0xEE);
        byte[] scratch = new byte[bs];
        int csize = CompressedContainer.pack(lz4, MemorySegment.ofArray(in), 0, bs, MemorySegment.ofArray(scratch), 0,
                MemorySegment.ofArray(c), 0);
        assertThat(csize).isPositive().isLessThanOrEqualTo(bs - 12);
        ByteBuffer bb = ByteBuffer.wrap(c); // big-endian by default, as DOCA's htobe32
        assertThat(bb.getInt(0)).isEqualTo(bs); // original_size
        assertThat(bb.getInt(4)).isEqualTo(csize); // compressed_size
        for (int i = 8; i < csize + 8; i++) {
            assertThat(c[i]).isEqualTo(scratch[i - 8]);
        }
        for (int i = 8 + csize; i < bs; i++) {
            assertThat(c[i]).as("padding/trailer byte %d", i).isZero();
        }
        byte[] back = new byte[bs];
        int n = CompressedContainer.unpack(lz4, MemorySegment.ofArray(c), 0, bs, MemorySegment.ofArray(back), 0, bs);
        assertThat(n).isEqualTo(bs);
        assertThat(back).isEqualTo(in);
    }

    @Test
    void incompressibleBlockIsTooBig() {
        byte[] in = new byte[4096];
        new Random(7).nextBytes(in);
        byte[] c = new byte[4096];
        int r = CompressedContainer.pack(lz4, MemorySegment.ofArray(in), 0, 4096,
                MemorySegment.ofArray(new byte[4096]), 0,
                MemorySegment.ofArray(c), 0);
        assertThat(r).isEqualTo(-DocaError.TOO_BIG.code());
    }

    @Test
    void exactlyBMinus12FitsAndOneMoreDoesNot() {
        // Reference §3 step 2: fail if compressed + 12 > B.
        assertThat(CompressedContainer.maxPayload(4096)).isEqualTo(4084);
    }

    @Test
    void corruptHeadersAreIoFailed() {
        int bs = 1024;
        byte[] c = new byte[bs];
        CompressedContainer.pack(lz4, MemorySegment.ofArray(text(bs, 3)), 0, bs, MemorySegment.ofArray(new byte[bs]), 0,
                MemorySegment.ofArray(c), 0);
        byte[] dst = new byte[bs];
        int[][] bad = {{0, 0}, {bs + 1, 100}, {bs, 0}, {bs, bs - 11}, {bs, -5}};
        for (int[] h : bad) {
            byte[] x = c.clone();
            ByteBuffer.wrap(x).putInt(0, h[0]).putInt(4, h[1]);
            assertThat(CompressedContainer.unpack(lz4, MemorySegment.ofArray(x), 0, bs, MemorySegment.ofArray(dst), 0,
                    bs))
                    .as("header %d/%d", h[0], h[1]).isEqualTo(-DocaError.IO_FAILED.code());
        }
        byte[] zero = new byte[bs];
        assertThat(CompressedContainer.unpack(lz4, MemorySegment.ofArray(zero), 0, bs, MemorySegment.ofArray(dst), 0,
                bs))
                .isEqualTo(-DocaError.IO_FAILED.code());
    }

    @Property(tries = 100)
    void roundTripsAtEveryEcBlockSize(@ForAll @IntRange(min = 1, max = 64) int halves64, @ForAll long seed) {
        int bs = halves64 * 128;
        byte[] in = text(bs, seed);
        byte[] c = new byte[bs];
        int csize = CompressedContainer.pack(lz4, MemorySegment.ofArray(in), 0, bs,
                MemorySegment.ofArray(new byte[bs]), 0,
                MemorySegment.ofArray(c), 0);
        if (csize < 0) {
            assertThat(csize).isEqualTo(-DocaError.TOO_BIG.code()); // tiny blocks may not shrink by 12 bytes
            return;
        }
        byte[] back = new byte[bs];
        assertThat(CompressedContainer.unpack(lz4, MemorySegment.ofArray(c), 0, bs, MemorySegment.ofArray(back), 0, bs))
                .isEqualTo(bs);
        assertThat(back).isEqualTo(in);
    }

    @Test
    void packAndUnpackAllocateNothing() {
        int bs = 4096;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(4L * bs, 64);
            MemorySegment.copy(MemorySegment.ofArray(text(bs, 9)), 0, s, 0, bs);
            long[] sink = {0};
            AllocationMeter.Result r = AllocationMeter.steadyState(20_000, 100_000, () -> {
                int c = CompressedContainer.pack(lz4, s, 0, bs, s, 2L * bs, s, bs);
                sink[0] += c + CompressedContainer.unpack(lz4, s, bs, bs, s, 3L * bs, bs);
            });
            assertThat(sink[0]).isPositive();
            assertThat(r.bytesPerOp()).as("bytes/op").isLessThan(1.0);
            assertThat(s.get(ValueLayout.JAVA_BYTE, 3L * bs)).isEqualTo(s.get(ValueLayout.JAVA_BYTE, 0));
        }
    }
}
