package io.jdoca.compress;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.DocaError;
import io.jdoca.core.mem.Buf;
import io.jdoca.testkit.AllocationMeter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Steady state allocates nothing: alloc, submit, progress, callback, free, for every task type. */
class CompressAllocationTest {
    /**
     * The codecs whose data path allocates nothing: the default (system liblz4 through FFM) and the
     * lz4-java JNI one and jdoca's pure-Java fallback. lz4-java's pure-Java compressor allocates
     * a hash table per call, and aircompressor's MemorySegment API needs a slice object per
     * argument (measured 13-80 bytes per task depending on inlining): benchmarked, not defaults.
     */
    static java.util.List<Lz4Codec> codecs() {
        return Lz4PropertiesTest.codecs().stream()
                .filter(c -> !c.name().startsWith("aircompressor") && !c.name().equals("lz4-java-safe")).toList();
    }

    @ParameterizedTest
    @MethodSource("codecs")
    void everyTaskTypeAllocatesNothing(Lz4Codec codec) {
        try (CompressFixture f = new CompressFixture(1 << 20, codec)) {
            f.put(0, TestData.text(4096, 5));
            Buf src = f.data(0, 4096);
            Buf comp = f.dst(8192, 8192);
            Buf out = f.dst(16384, 8192);
            Buf bcomp = f.dst(32768, 8192);
            Buf zcomp = f.dst(65536, 8192);
            // Produce the compressed inputs once.
            var t1 = f.c.taskCompressLz4StreamAllocInit(src, comp, 0);
            f.run(t1);
            t1.free();
            var t2 = f.c.taskCompressLz4BlockAllocInit(src, bcomp, 0);
            f.run(t2);
            t2.free();
            var t3 = f.c.taskCompressDeflateAllocInit(src, zcomp, 0);
            f.run(t3);
            t3.free();
            assertThat(f.lastStatus).isEqualTo(DocaError.SUCCESS);
            Buf streamIn = f.data(8192, comp.dataLen());
            Buf blockIn = f.data(32768, bcomp.dataLen());
            Buf zIn = f.data(65536, zcomp.dataLen());
            Buf scratch = f.dst(131072, 16384);
            Runnable op = () -> {
                scratch.resetDataLen();
                var a = f.c.taskCompressLz4StreamAllocInit(src, scratch, 1);
                a.submit();
                f.pe.progress();
                a.free();
                out.resetDataLen();
                var b = f.c.taskDecompressLz4StreamAllocInit(false, true, streamIn, out, 2);
                b.submit();
                f.pe.progress();
                b.free();
                out.resetDataLen();
                var c = f.c.taskDecompressLz4BlockAllocInit(blockIn, out, 3);
                c.submit();
                f.pe.progress();
                c.free();
                out.resetDataLen();
                var d = f.c.taskDecompressDeflateAllocInit(zIn, out, 4);
                d.submit();
                f.pe.progress();
                d.free();
            };
            int before = f.completed;
            // 25k iterations of 4 tasks = 100k tasks measured, after 10k warm-up iterations.
            AllocationMeter.Result r = AllocationMeter.steadyState(10_000, 25_000, op);
            assertThat(f.completed - before).isEqualTo(4 * r.totalRuns());
            assertThat(f.lastStatus).isEqualTo(DocaError.SUCCESS);
            assertThat(out.dataLen()).isEqualTo(4096);
            assertThat(r.bytesPerOp()).as("%s: bytes per 4 tasks", codec.name()).isLessThan(1.0);
        }
    }

    /** Three buffers per side: gather, scatter and the checksums (on here) allocate nothing either. */
    @ParameterizedTest
    @MethodSource("codecs")
    void chainedTasksWithChecksumsAllocateNothing(Lz4Codec codec) {
        try (CompressFixture f = new CompressFixture(1 << 20, codec)) {
            f.c.setChecksumsEnabled(true);
            byte[] text = TestData.text(4096, 5);
            f.put(0, text);
            Buf src = CompressChainTest.split(f, 0, 4096, 3);
            Buf[] outs = {f.dst(8192, 1000), f.dst(12288, 3000), f.dst(16384, 8192)};
            Buf out = outs[0];
            out.chainList(outs[1]);
            out.chainList(outs[2]);
            // Compressed inputs, produced once, each read back as a list of three.
            int[] lens = new int[3];
            long[] at = {32768, 49152, 65536};
            CompressTask[] make = {f.c.taskCompressLz4StreamAllocInit(f.data(0, 4096), f.dst(at[0], 8192), 0),
                f.c.taskCompressLz4BlockAllocInit(f.data(0, 4096), f.dst(at[1], 8192), 0),
                f.c.taskCompressDeflateAllocInit(f.data(0, 4096), f.dst(at[2], 8192), 0)};
            for (int i = 0; i < 3; i++) {
                assertThat(f.run(make[i])).isEqualTo(DocaError.SUCCESS);
                lens[i] = (int) make[i].dst().dataLen();
                make[i].free();
            }
            Buf streamIn = CompressChainTest.split(f, at[0], lens[0], 3);
            Buf blockIn = CompressChainTest.split(f, at[1], lens[1], 3);
            Buf zIn = CompressChainTest.split(f, at[2], lens[2], 3);
            Runnable reset = () -> {
                for (Buf b : outs) {
                    b.resetDataLen();
                }
            };
            int[] crc = new int[1];
            Runnable op = () -> {
                reset.run();
                var a = f.c.taskCompressLz4StreamAllocInit(src, out, 1);
                a.submit();
                f.pe.progress();
                a.free();
                reset.run();
                var z = f.c.taskCompressDeflateAllocInit(src, out, 1);
                z.submit();
                f.pe.progress();
                crc[0] ^= z.adlerCs();
                z.free();
                reset.run();
                var b = f.c.taskDecompressLz4StreamAllocInit(false, true, streamIn, out, 2);
                b.submit();
                f.pe.progress();
                crc[0] ^= b.xxhCs();
                b.free();
                reset.run();
                var c = f.c.taskDecompressLz4BlockAllocInit(blockIn, out, 3);
                c.submit();
                f.pe.progress();
                crc[0] ^= c.crcCs();
                c.free();
                reset.run();
                var d = f.c.taskDecompressDeflateAllocInit(zIn, out, 4);
                d.submit();
                f.pe.progress();
                crc[0] ^= d.crcCs();
                d.free();
            };
            int before = f.completed;
            // 20k iterations of 5 tasks = 100k tasks measured, after 8k warm-up iterations.
            AllocationMeter.Result r = AllocationMeter.steadyState(8_000, 20_000, op);
            assertThat(f.completed - before).isEqualTo(5 * r.totalRuns());
            assertThat(f.lastStatus).isEqualTo(DocaError.SUCCESS);
            assertThat(out.listDataLen()).isEqualTo(4096);
            assertThat(outs[2].dataLen()).isEqualTo(96);
            assertThat(r.bytesPerOp()).as("%s: bytes per 5 chained tasks", codec.name()).isLessThan(1.0);
        }
    }
}
