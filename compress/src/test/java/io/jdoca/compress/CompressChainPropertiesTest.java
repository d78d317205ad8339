package io.jdoca.compress;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.DocaError;
import io.jdoca.core.mem.Buf;
import java.util.Random;
import java.util.zip.Adler32;
import java.util.zip.CRC32;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Buffer lists give exactly what one buffer gives, for every codec and task type, at random
 * splits of the source and random tailrooms of the destination; and the tasks' checksums equal
 * the JDK's CRC-32 and Adler-32 and lz4-java's xxHash-32 of the uncompressed data.
 */
class CompressChainPropertiesTest {
    enum Fmt { LZ4_BLOCK, LZ4_STREAM, DEFLATE }

    // Fixture memory layout (4 MiB): each region holds more than the largest case needs.
    static final long SRC_ONE = 0;
    static final long DST_ONE = 512 << 10;
    static final long SRC_LIST = 1 << 20;
    static final long DST_LIST = 2 << 20;
    static final int MAX_N = 150_000;

    /** Status, output bytes and checksums {crc, adler, xxh} of one run. */
    record Outcome(DocaError status, byte[] out, int[] sums) {
    }

    @Provide
    Arbitrary<String> kind() {
        return Arbitraries.of("random", "text", "zero", "json");
    }

    @Property(tries = 40)
    void listsGiveTheSingleBufferResult(@ForAll("kind") String kind, @ForAll @IntRange(min = 0, max = MAX_N) int n,
            @ForAll long seed) {
        byte[] data = TestData.of(kind, n, seed);
        Random r = new Random(seed);
        for (Lz4Codec codec : Lz4PropertiesTest.codecs()) {
            try (CompressFixture f = new CompressFixture(4 << 20, codec)) {
                f.c.setChecksumsEnabled(true);
                for (Fmt fmt : Fmt.values()) {
                    String as = codec.name() + " " + fmt;
                    Outcome c = single(f, true, fmt, data, n + n / 8 + 1024);
                    assertThat(c.status()).as(as).isEqualTo(DocaError.SUCCESS);
                    byte[] comp = c.out();
                    if (fmt == Fmt.DEFLATE) {
                        assertThat(c.sums()).as("compress_deflate checksums of the source")
                                .isEqualTo(expected(data, fmt));
                    }
                    for (int room : rooms(comp.length, r)) {
                        Outcome one = single(f, true, fmt, data, room);
                        Outcome list = chained(f, true, fmt, data, room, r);
                        assertThat(list.status()).as("%s compress into %d of room", as, room).isEqualTo(one.status());
                        if (one.status() == DocaError.SUCCESS) {
                            // (An empty source may compress to nothing when there is no room at all.)
                            assertThat(one.out()).as(as).isEqualTo(room >= comp.length ? comp : one.out());
                            assertThat(list.out()).as(as).isEqualTo(one.out());
                            assertThat(list.sums()).as(as).isEqualTo(one.sums());
                        }
                    }
                    if (n > 0) {
                        assertThat(chained(f, true, fmt, data, comp.length - 1, r).status()).as(as)
                                .isEqualTo(DocaError.TOO_BIG);
                    }
                    for (int room : rooms(n, r)) {
                        Outcome one = single(f, false, fmt, comp, room);
                        Outcome list = chained(f, false, fmt, comp, room, r);
                        assertThat(list.status()).as("%s decompress into %d of room", as, room).isEqualTo(one.status());
                        assertThat(one.status()).as(as).isEqualTo(room >= n ? DocaError.SUCCESS : DocaError.TOO_BIG);
                        if (room >= n) {
                            assertThat(one.out()).as(as).isEqualTo(data);
                            assertThat(list.out()).as(as).isEqualTo(data);
                            assertThat(one.sums()).as("%s checksums of the output", as).isEqualTo(expected(data, fmt));
                            assertThat(list.sums()).as("%s checksums of the output", as).isEqualTo(expected(data, fmt));
                        }
                    }
                }
            }
        }
    }

    @Property(tries = 30)
    void checksumsOffByDefaultAndZeroAfterFailure(@ForAll @IntRange(min = 1, max = 20_000) int n, @ForAll long seed) {
        byte[] data = TestData.text(n, seed);
        try (CompressFixture f = new CompressFixture(4 << 20, Lz4Codec.javaSafe())) {
            assertThat(f.c.checksumsEnabled()).isFalse();
            for (Fmt fmt : Fmt.values()) {
                byte[] comp = single(f, true, fmt, data, 2 * n + 1024).out();
                Outcome off = single(f, false, fmt, comp, n);
                assertThat(off.status()).isEqualTo(DocaError.SUCCESS);
                assertThat(off.sums()).isEqualTo(new int[3]);
                f.c.setChecksumsEnabled(true);
                assertThat(single(f, false, fmt, comp, n).sums()).isEqualTo(expected(data, fmt));
                Outcome failed = single(f, false, fmt, comp, n - 1);
                assertThat(failed.status()).isEqualTo(DocaError.TOO_BIG);
                assertThat(failed.sums()).isEqualTo(new int[3]);
                f.c.setChecksumsEnabled(false);
            }
        }
    }

    /** Rooms to try for an output of {@code len}: with slack, exact, one short. */
    static int[] rooms(int len, Random r) {
        return len == 0 ? new int[] {r.nextInt(64), 0} : new int[] {len + 1 + r.nextInt(64), len, len - 1};
    }

    /** {crc, adler, xxh} the task type reports for uncompressed {@code data}. */
    static int[] expected(byte[] data, Fmt fmt) {
        CRC32 crc = new CRC32();
        crc.update(data);
        if (fmt == Fmt.DEFLATE) {
            Adler32 a = new Adler32();
            a.update(data);
            return new int[] {(int) crc.getValue(), (int) a.getValue(), 0};
        }
        int xxh = net.jpountz.xxhash.XXHashFactory.safeInstance().hash32().hash(data, 0, data.length, 0);
        return new int[] {(int) crc.getValue(), 0, xxh};
    }

    static CompressTask task(CompressFixture f, boolean compress, Fmt fmt, Buf s, Buf d) {
        Compress c = f.c;
        return switch (fmt) {
            case LZ4_BLOCK -> compress ? c.taskCompressLz4BlockAllocInit(s, d, 0)
                    : c.taskDecompressLz4BlockAllocInit(s, d, 0);
            case LZ4_STREAM -> compress ? c.taskCompressLz4StreamAllocInit(s, d, 0)
                    : c.taskDecompressLz4StreamAllocInit(false, true, s, d, 0);
            case DEFLATE -> compress ? c.taskCompressDeflateAllocInit(s, d, 0)
                    : c.taskDecompressDeflateAllocInit(s, d, 0);
        };
    }

    static int[] sums(CompressTask t) {
        return switch (t) {
            case CompressTaskCompressDeflate x -> new int[] {x.crcCs(), x.adlerCs(), 0};
            case CompressTaskDecompressDeflate x -> new int[] {x.crcCs(), x.adlerCs(), 0};
            case CompressTaskDecompressLz4Block x -> new int[] {x.crcCs(), 0, x.xxhCs()};
            case CompressTaskDecompressLz4Stream x -> new int[] {x.crcCs(), 0, x.xxhCs()};
            default -> new int[3];
        };
    }

    /** One source buffer, one destination buffer with {@code room} of tailroom. */
    static Outcome single(CompressFixture f, boolean compress, Fmt fmt, byte[] in, int room) {
        f.put(SRC_ONE, in);
        long base = f.mmap.baseAddress();
        // One byte of headroom keeps every buffer non-empty, whatever the lengths.
        Buf s = f.inv.getByArgs(f.mmap, base + SRC_ONE, in.length + 1L, base + SRC_ONE, in.length);
        Buf d = f.inv.getByArgs(f.mmap, base + DST_ONE, room + 1L, base + DST_ONE + 1, 0);
        CompressTask t = task(f, compress, fmt, s, d);
        DocaError st = f.run(t);
        if (st != DocaError.SUCCESS) {
            assertThat(d.dataLen()).as("nothing appended on failure").isZero();
        }
        Outcome o = new Outcome(st, f.get(DST_ONE + 1, d.dataLen()), sums(t));
        t.free();
        s.decRefcount();
        d.decRefcount();
        return o;
    }

    /** The same through a source list and a destination list of random lengths and splits. */
    static Outcome chained(CompressFixture f, boolean compress, Fmt fmt, byte[] in, int room, Random r) {
        Buf s = Chains.source(f, SRC_LIST, in, 1 + r.nextInt(Compress.MAX_BUF_LIST_LEN), r);
        Chains.Dst d = Chains.destination(f, DST_LIST, room, 1 + r.nextInt(Compress.MAX_BUF_LIST_LEN), r);
        CompressTask t = task(f, compress, fmt, s, d.head);
        DocaError st = f.run(t, r.nextBoolean());
        byte[] out;
        if (st == DocaError.SUCCESS) {
            out = d.appended();
        } else {
            d.assertUntouched();
            out = new byte[0];
        }
        Outcome o = new Outcome(st, out, sums(t));
        t.free();
        CompressFixture.release(s);
        d.release();
        return o;
    }
}
