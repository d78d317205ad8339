package io.jdoca.compress;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** LZ4 block and stream round trips on every codec, and cross-codec compatibility. */
class Lz4PropertiesTest {
    static List<Lz4Codec> codecs() {
        List<Lz4Codec> l = new ArrayList<>();
        if (Lz4Codec.isLiblz4Available()) {
            l.add(Lz4Codec.liblz4());
        }
        if (Lz4Codec.isNativeAvailable()) {
            l.add(Lz4Codec.aircompressorNative());
        }
        l.add(Lz4Codec.aircompressorJava());
        try {
            l.add(Lz4Codec.lz4JavaJni());
        } catch (Throwable t) {
            System.err.println("lz4-java JNI unavailable on this platform, its cases are skipped: " + t);
        }
        l.add(Lz4Codec.lz4JavaSafe());
        l.add(Lz4Codec.javaSafe());
        return l;
    }

    @Provide
    Arbitrary<String> kind() {
        return Arbitraries.of("random", "text", "zero", "json");
    }

    static MemorySegment seg(Arena a, byte[] b) {
        MemorySegment s = a.allocate(Math.max(1, b.length), 64);
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 0, b.length);
        return s;
    }

    @Property(tries = 60)
    void blockRoundTripOnEveryCodecPair(@ForAll("kind") String kind, @ForAll @IntRange(min = 1, max = 70000) int n,
            @ForAll long seed) {
        byte[] data = TestData.of(kind, n, seed);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = seg(a, data);
            MemorySegment comp = a.allocate(Lz4Codec.maxCompressedLength(n));
            MemorySegment out = a.allocate(n + 64);
            for (Lz4Codec c : codecs()) {
                int cl = c.compress(src, 0, n, comp, 0, (int) comp.byteSize());
                assertThat(cl).as(c.name()).isPositive();
                for (Lz4Codec d : codecs()) {
                    out.fill((byte) 0x5a);
                    int dl = d.decompress(comp, 0, cl, out, 0, n + 64);
                    assertThat(dl).as("%s -> %s", c.name(), d.name()).isEqualTo(n);
                    assertThat(out.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(data);
                    // One byte short of the output: a clear error, never a partial success.
                    assertThat(d.decompress(comp, 0, cl, out, 0, n - 1)).as("%s short dst", d.name())
                            .isEqualTo(Lz4Codec.ERR_DST_TOO_SMALL);
                }
            }
        }
    }

    @Property(tries = 40)
    void streamRoundTrip(@ForAll("kind") String kind, @ForAll @IntRange(min = 0, max = 300000) int n,
            @ForAll long seed) {
        byte[] data = TestData.of(kind, n, seed);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = seg(a, data);
            for (Lz4Codec c : codecs()) {
                Lz4StreamCodec s = new Lz4StreamCodec(c);
                MemorySegment comp = a.allocate(s.maxCompressedLength(n));
                int cl = s.compress(src, 0, n, comp, 0, (int) comp.byteSize());
                assertThat(cl).as(c.name()).isGreaterThanOrEqualTo(0);
                if (n > 0 && kind.equals("random")) {
                    assertThat(cl).as("incompressible blocks stored raw").isEqualTo(n + 4 * ((n + 65535) / 65536));
                }
                MemorySegment out = a.allocate(Math.max(1, n));
                int dl = s.decompress(false, true, comp, 0, cl, out, 0, n);
                assertThat(dl).as(c.name()).isEqualTo(n);
                assertThat(out.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(data);
                if (n > 0) {
                    assertThat(s.decompress(false, true, comp, 0, cl, out, 0, n - 1))
                            .isEqualTo(Lz4Codec.ERR_DST_TOO_SMALL);
                    assertThat(s.compress(src, 0, n, comp, 0, Math.min(cl - 1, 3)))
                            .isEqualTo(Lz4Codec.ERR_DST_TOO_SMALL);
                }
            }
        }
    }

    @Property(tries = 30)
    void streamWithChecksumsVerifiesEveryBlock(@ForAll @IntRange(min = 1, max = 200000) int n, @ForAll long seed) {
        byte[] data = TestData.text(n, seed);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = seg(a, data);
            Lz4StreamCodec s = new Lz4StreamCodec(Lz4Codec.aircompressorJava());
            MemorySegment plain = a.allocate(s.maxCompressedLength(n));
            int cl = s.compress(src, 0, n, plain, 0, (int) plain.byteSize());
            // Re-frame with a checksum after each block.
            MemorySegment withCs = a.allocate(cl + 4L * ((n + 65535) / 65536 + 1));
            long sp = 0;
            long dp = 0;
            var le = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
            while (sp < cl) {
                int w = plain.get(le, sp);
                int size = w & 0x7fffffff;
                MemorySegment.copy(plain, sp, withCs, dp, 4L + size);
                withCs.set(le, dp + 4 + size, Lz4StreamCodec.blockChecksum(plain, sp + 4, size));
                sp += 4 + size;
                dp += 8 + size;
            }
            MemorySegment out = a.allocate(n);
            assertThat(s.decompress(true, true, withCs, 0, (int) dp, out, 0, n)).isEqualTo(n);
            assertThat(out.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(data);
            // Flip one byte of the first block's data: the checksum catches it.
            withCs.set(ValueLayout.JAVA_BYTE, 4, (byte) (withCs.get(ValueLayout.JAVA_BYTE, 4) ^ 1));
            assertThat(s.decompress(true, true, withCs, 0, (int) dp, out, 0, n)).isEqualTo(Lz4StreamCodec.ERR_CHECKSUM);
        }
    }

    @Property(tries = 20)
    void xxHash32MatchesLz4Java(@ForAll @IntRange(min = 0, max = 5000) int n, @ForAll long seed, @ForAll int hashSeed) {
        byte[] data = TestData.random(n, seed);
        try (Arena a = Arena.ofConfined()) {
            int mine = XxHash32.hash(seg(a, data), 0, n, hashSeed);
            int ref = net.jpountz.xxhash.XXHashFactory.safeInstance().hash32().hash(data, 0, n, hashSeed);
            assertThat(mine).isEqualTo(ref);
        }
    }
}
