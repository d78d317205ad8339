package io.jdoca.compress;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.DocaError;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.mem.Buf;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The Compress context end to end through the progress engine. */
class CompressContextTest {
    static List<Lz4Codec> codecs() {
        return Lz4PropertiesTest.codecs();
    }

    @ParameterizedTest
    @MethodSource("codecs")
    void ggaContainerRoundTripThroughStreamTasks(Lz4Codec codec) {
        try (CompressFixture f = new CompressFixture(1 << 20, codec)) {
            byte[] block = TestData.text(4096, 1);
            f.put(0, block);
            // GGA write path: compress into chunk+B (1.5 B of room).
            Buf src = f.data(0, 4096);
            Buf dst = f.dst(4096, 6144);
            CompressTaskCompressLz4Stream c = f.c.taskCompressLz4StreamAllocInit(src, dst, 11);
            assertThat(f.run(c)).isEqualTo(DocaError.SUCCESS);
            int clen = (int) dst.dataLen();
            assertThat(clen).isBetween(8, 4096 - 12);
            c.free();
            // GGA read path: decompress_lz4_stream(no checksum, independent) into "host memory".
            Buf in = f.data(4096, clen);
            Buf out = f.dst(65536, 4096);
            CompressTaskDecompressLz4Stream d = f.c.taskDecompressLz4StreamAllocInit(false, true, in, out, 12);
            assertThat(d.hasBlockChecksum()).isFalse();
            assertThat(d.areBlocksIndependent()).isTrue();
            assertThat(f.run(d)).isEqualTo(DocaError.SUCCESS);
            assertThat(out.dataLen()).isEqualTo(4096);
            assertThat(f.get(65536, 4096)).isEqualTo(block);
            d.free();
        }
    }

    @ParameterizedTest
    @MethodSource("codecs")
    void blockAndDeflateRoundTrips(Lz4Codec codec) {
        try (CompressFixture f = new CompressFixture(1 << 20, codec)) {
            byte[] data = TestData.json(65536, 2);
            f.put(0, data);
            Buf dst = f.dst(100_000, 70_000);
            CompressTaskCompressLz4Block cb = f.c.taskCompressLz4BlockAllocInit(f.data(0, data.length), dst, 0);
            assertThat(f.run(cb)).isEqualTo(DocaError.SUCCESS);
            cb.free();
            Buf back = f.dst(200_000, 65536);
            CompressTaskDecompressLz4Block db = f.c.taskDecompressLz4BlockAllocInit(f.data(100_000, dst.dataLen()),
                    back, 0);
            assertThat(f.run(db)).isEqualTo(DocaError.SUCCESS);
            assertThat(f.get(200_000, 65536)).isEqualTo(data);
            db.free();
            Buf zd = f.dst(300_000, 70_000);
            CompressTaskCompressDeflate cd = f.c.taskCompressDeflateAllocInit(f.data(0, data.length), zd, 0);
            assertThat(f.run(cd)).isEqualTo(DocaError.SUCCESS);
            assertThat(zd.dataLen()).isLessThan(data.length / 2);
            cd.free();
            Buf zback = f.dst(400_000, 65536);
            CompressTaskDecompressDeflate dd = f.c.taskDecompressDeflateAllocInit(f.data(300_000, zd.dataLen()),
                    zback, 0);
            assertThat(f.run(dd)).isEqualTo(DocaError.SUCCESS);
            assertThat(zback.dataLen()).isEqualTo(65536);
            assertThat(f.get(400_000, 65536)).isEqualTo(data);
            // Inflating into one byte less than needed: TOO_BIG, nothing claimed.
            Buf small = f.dst(500_000, 65535);
            dd.setSrc(f.data(300_000, zd.dataLen()));
            dd.setDst(small);
            assertThat(f.run(dd)).isEqualTo(DocaError.TOO_BIG);
            assertThat(small.dataLen()).isZero();
            dd.free();
        }
    }

    @ParameterizedTest
    @MethodSource("codecs")
    void errorsAreStatusesAndClaimNothing(Lz4Codec codec) {
        try (CompressFixture f = new CompressFixture(1 << 20, codec)) {
            byte[] data = TestData.text(20_000, 3);
            f.put(0, data);
            Buf dst = f.dst(100_000, 30_000);
            CompressTaskCompressLz4Stream c = f.c.taskCompressLz4StreamAllocInit(f.data(0, data.length), dst, 0);
            assertThat(f.run(c)).isEqualTo(DocaError.SUCCESS);
            int clen = (int) dst.dataLen();
            // Destination too small for the compressed stream.
            Buf tiny = f.dst(200_000, clen / 2);
            c.setDst(tiny);
            assertThat(f.run(c)).isEqualTo(DocaError.TOO_BIG);
            assertThat(tiny.dataLen()).isZero();
            c.free();
            // Destination too small for the decompressed data.
            Buf small = f.dst(300_000, data.length - 1);
            CompressTaskDecompressLz4Stream d = f.c.taskDecompressLz4StreamAllocInit(false, true,
                    f.data(100_000, clen), small, 0);
            assertThat(f.run(d)).isEqualTo(DocaError.TOO_BIG);
            assertThat(small.dataLen()).isZero();
            // Corrupt stream: a block size larger than the data.
            f.mem.set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 100_000, 0x7fff0000);
            Buf out = f.dst(400_000, 30_000);
            d.setSrc(f.data(100_000, clen));
            d.setDst(out);
            assertThat(f.run(d)).isEqualTo(DocaError.INVALID_VALUE);
            assertThat(out.dataLen()).isZero();
            // The same corrupt stream as a buffer list: the same status, nothing claimed.
            Buf chained = f.data(100_000, 10);
            chained.chainList(f.data(100_010, clen - 10));
            d.setSrc(chained);
            assertThat(f.run(d)).isEqualTo(DocaError.INVALID_VALUE);
            assertThat(out.dataLen()).isZero();
            d.free();
            // Garbage as an LZ4 block.
            CompressTaskDecompressLz4Block b = f.c.taskDecompressLz4BlockAllocInit(f.data(0, 0), out, 0);
            assertThat(f.run(b)).isEqualTo(DocaError.INVALID_VALUE);
            f.put(500_000, new byte[] {(byte) 0xff, 1, 2});
            b.setSrc(f.data(500_000, 3));
            assertThat(f.run(b)).isEqualTo(DocaError.INVALID_VALUE);
            assertThat(out.dataLen()).isZero();
            b.free();
        }
    }

    @ParameterizedTest
    @MethodSource("codecs")
    void stopFlushesQueuedTasks(Lz4Codec codec) {
        try (CompressFixture f = new CompressFixture(1 << 16, codec)) {
            CompressTaskCompressLz4Block t = f.c.taskCompressLz4BlockAllocInit(f.data(0, 1024), f.dst(4096, 4096), 0);
            assertThat(t.submit()).isEqualTo(DocaError.SUCCESS);
            assertThat(f.c.stop()).isEqualTo(DocaError.IN_PROGRESS);
            f.pe.progress();
            assertThat(t.status()).isEqualTo(DocaError.SHUTDOWN);
            t.free();
            assertThat(f.c.state()).isEqualTo(CtxState.IDLE);
        }
    }
}
