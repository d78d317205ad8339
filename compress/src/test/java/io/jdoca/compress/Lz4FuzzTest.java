package io.jdoca.compress;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import io.jdoca.core.DocaError;
import io.jdoca.core.mem.Buf;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Fuzz: corrupted and random streams and blocks never throw, never hang, never touch memory
 * outside their ranges (the inputs sit in exactly-sized segments, so any stray access would throw
 * IndexOutOfBoundsException from the segment, or crash for native code given a wrong length).
 */
class Lz4FuzzTest {
    private static final Lz4Codec[] CODECS = Lz4PropertiesTest.codecs().toArray(new Lz4Codec[0]);

    @Property(tries = 400)
    void corruptedStreamsFailCleanly(@ForAll long seed, @ForAll @IntRange(min = 1, max = 40) int flips,
            @ForAll boolean checksums, @ForAll boolean independent) {
        Random r = new Random(seed);
        byte[] data = TestData.text(1 + r.nextInt(150_000), seed);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = Lz4PropertiesTest.seg(a, data);
            Lz4StreamCodec enc = new Lz4StreamCodec(Lz4Codec.aircompressorJava());
            MemorySegment comp = a.allocate(enc.maxCompressedLength(data.length));
            int cl = enc.compress(src, 0, data.length, comp, 0, (int) comp.byteSize());
            byte[] bytes = comp.asSlice(0, cl).toArray(ValueLayout.JAVA_BYTE);
            for (int i = 0; i < flips; i++) {
                int p = r.nextInt(bytes.length);
                switch (r.nextInt(3)) {
                    case 0 -> bytes[p] ^= (byte) (1 << r.nextInt(8));
                    case 1 -> bytes[p] = (byte) r.nextInt(256);
                    default -> bytes[p] = (byte) 0xff;
                }
            }
            int len = r.nextInt(4) == 0 ? r.nextInt(bytes.length + 1) : bytes.length; // sometimes truncated
            MemorySegment in = a.allocate(Math.max(1, len));
            MemorySegment.copy(bytes, 0, in, ValueLayout.JAVA_BYTE, 0, len);
            int cap = r.nextBoolean() ? data.length : r.nextInt(data.length + 1);
            MemorySegment out = a.allocate(Math.max(1, cap));
            for (Lz4Codec c : CODECS) {
                int n = new Lz4StreamCodec(c).decompress(checksums, independent, in, 0, len, out, 0, cap);
                assertThat(n).isLessThanOrEqualTo(cap);
                assertThat(n).isGreaterThanOrEqualTo(Lz4StreamCodec.ERR_CHECKSUM);
            }
        }
    }

    @Property(tries = 400)
    void randomBlocksFailCleanly(@ForAll long seed, @ForAll @IntRange(min = 1, max = 5000) int len) {
        Random r = new Random(seed);
        byte[] junk = new byte[len];
        r.nextBytes(junk);
        if (r.nextBoolean()) {
            junk[0] = (byte) 0xf0; // long literal run header: exercises the length parser
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment in = Lz4PropertiesTest.seg(a, junk);
            int cap = r.nextInt(70_000);
            MemorySegment out = a.allocate(Math.max(1, cap));
            for (Lz4Codec c : CODECS) {
                int n = c.decompress(in, 0, len, out, 0, cap);
                assertThat(n).isLessThanOrEqualTo(cap).isGreaterThanOrEqualTo(Lz4Codec.ERR_DST_TOO_SMALL);
            }
            int n = new Lz4StreamCodec(Lz4Codec.aircompressorJava()).decompress(r.nextBoolean(), r.nextBoolean(),
                    in, 0, len, out, 0, cap);
            assertThat(n).isLessThanOrEqualTo(cap).isGreaterThanOrEqualTo(Lz4StreamCodec.ERR_CHECKSUM);
        }
    }

    @Property(tries = 200)
    void corruptDeflateFailsCleanly(@ForAll long seed, @ForAll @IntRange(min = 1, max = 30) int flips) {
        Random r = new Random(seed);
        byte[] data = TestData.json(1 + r.nextInt(100_000), seed);
        try (Arena a = Arena.ofConfined(); DeflateCodec d = new DeflateCodec(1)) {
            MemorySegment src = Lz4PropertiesTest.seg(a, data);
            MemorySegment comp = a.allocate(data.length + 1024);
            int cl = d.compress(src, 0, data.length, comp, 0, (int) comp.byteSize());
            assertThat(cl).isPositive();
            for (int i = 0; i < flips; i++) {
                long p = r.nextInt(cl);
                comp.set(ValueLayout.JAVA_BYTE, p, (byte) r.nextInt(256));
            }
            MemorySegment out = a.allocate(data.length);
            int n = d.decompress(comp, 0, r.nextInt(cl) + 1, out, 0, data.length);
            assertThat(n).isLessThanOrEqualTo(data.length).isGreaterThanOrEqualTo(Lz4Codec.ERR_DST_TOO_SMALL);
        }
    }

    /**
     * Through the context, a corrupted or truncated input split over a buffer list into a
     * destination list of random room: a status, never an exception; on failure nothing appended.
     */
    @Property(tries = 300)
    void corruptListsThroughTheContextFailCleanly(@ForAll long seed, @ForAll @IntRange(min = 0, max = 30) int flips) {
        Random r = new Random(seed);
        var fmt = CompressChainPropertiesTest.Fmt.values()[r.nextInt(3)];
        byte[] data = TestData.text(1 + r.nextInt(100_000), seed);
        try (CompressFixture f = new CompressFixture(4 << 20, CODECS[r.nextInt(CODECS.length)])) {
            f.c.setChecksumsEnabled(r.nextBoolean());
            byte[] bytes = CompressChainPropertiesTest.single(f, true, fmt, data,
                    data.length + data.length / 8 + 1024).out();
            for (int i = 0; i < flips; i++) {
                bytes[r.nextInt(bytes.length)] = (byte) r.nextInt(256);
            }
            if (r.nextInt(4) == 0) {
                bytes = java.util.Arrays.copyOf(bytes, r.nextInt(bytes.length + 1));
            }
            int room = r.nextBoolean() ? data.length : r.nextInt(data.length + 1);
            Buf src = Chains.source(f, CompressChainPropertiesTest.SRC_LIST, bytes,
                    1 + r.nextInt(Compress.MAX_BUF_LIST_LEN), r);
            Chains.Dst dst = Chains.destination(f, CompressChainPropertiesTest.DST_LIST, room,
                    1 + r.nextInt(Compress.MAX_BUF_LIST_LEN), r);
            CompressTask t = CompressChainPropertiesTest.task(f, false, fmt, src, dst.head);
            if (t instanceof CompressTaskDecompressLz4Stream ds) {
                ds.setHasBlockChecksum(r.nextBoolean());
                ds.setAreBlocksIndependent(r.nextBoolean());
            }
            DocaError st = f.run(t, r.nextBoolean());
            assertThat(st).isIn(DocaError.SUCCESS, DocaError.INVALID_VALUE, DocaError.TOO_BIG);
            if (st == DocaError.SUCCESS) {
                assertThat(dst.appended().length).isLessThanOrEqualTo(room);
            } else {
                dst.assertUntouched();
            }
            t.free();
        }
    }
}
