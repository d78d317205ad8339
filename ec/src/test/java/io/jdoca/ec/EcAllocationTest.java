package io.jdoca.ec;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.DocaError;
import io.jdoca.core.mem.Buf;
import io.jdoca.testkit.AllocationMeter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Steady state allocates nothing: alloc, submit, progress, callback, free. */
class EcAllocationTest {
    static RsEngine[] engines() {
        return RsPropertiesTest.engines();
    }

    @ParameterizedTest
    @MethodSource("engines")
    void createRecoverUpdateAllocateNothing(RsEngine engine) {
        try (EcFixture f = new EcFixture(1 << 20, engine)) {
            EcMatrix mx = f.ec.matrixCreate(EcMatrixType.CAUCHY, 4, 2);
            EcMatrix v21 = f.ec.matrixCreate(EcMatrixType.VANDERMONDE, 2, 1);
            EcMatrix up = f.ec.matrixCreateUpdate(mx, new int[] {1});
            long mask = 0b100001;
            mx.createRecover(new int[] {0, 5}); // warm the per-pattern cache
            Buf src = f.data(0, 4 * 256);
            Buf dst = f.dst(8192, 2 * 256);
            Buf src21 = f.data(0, 2 * 2048);
            Buf dst21 = f.dst(16384, 2048);
            Buf usrc = f.data(0, 4 * 256);
            Buf udst = f.dst(32768, 2 * 256);
            Runnable op = () -> {
                dst.resetDataLen();
                EcTaskCreate c = f.ec.taskCreateAllocInit(mx, src, dst, 1);
                c.submit();
                f.pe.progress();
                c.free();
                dst.resetDataLen();
                EcTaskRecover r = f.ec.taskRecoverAllocInit(mx, mask, src, dst, 2);
                r.submit();
                f.pe.progress();
                r.free();
                dst21.resetDataLen();
                EcTaskRecover x = f.ec.taskRecoverAllocInit(v21, src21, dst21, 3);
                x.submit();
                f.pe.progress();
                x.free();
                udst.resetDataLen();
                EcTaskUpdate u = f.ec.taskUpdateAllocInit(up, usrc, udst, 4);
                u.submit();
                f.pe.progress();
                u.free();
            };
            int before = f.completed;
            AllocationMeter.Result res = AllocationMeter.steadyState(50_000, 100_000, op);
            assertThat(f.completed - before).isEqualTo(4 * res.totalRuns());
            assertThat(f.lastStatus).isEqualTo(DocaError.SUCCESS);
            assertThat(res.bytesPerOp()).as("bytes allocated per 4 tasks").isLessThan(1.0);
        }
    }

    /**
     * The Java engine's syndrome kernels (Vandermonde recover of several lost blocks: the
     * Bjorck-Pereyra kernels for 2, 3 and 4 lost data blocks, the matrix solve for a pattern
     * mixing data and parity) allocate nothing once compiled; a kernel that outgrows C2's
     * inlining budget would box its vectors here.
     */
    @ParameterizedTest
    @MethodSource("engines")
    void syndromeRecoverAllocatesNothing(RsEngine engine) {
        try (EcFixture f = new EcFixture(1 << 20, engine)) {
            int len = 1024;
            EcMatrix m42 = f.ec.matrixCreate(EcMatrixType.VANDERMONDE, 4, 2);
            EcMatrix m83 = f.ec.matrixCreate(EcMatrixType.VANDERMONDE, 8, 3);
            EcMatrix m104 = f.ec.matrixCreate(EcMatrixType.VANDERMONDE, 10, 4);
            EcMatrix[] mx = {m42, m83, m104, m104, m104};
            long[] masks = {0b11, 0b111, 0b1111, (1L << 2) | (1L << 7) | (1L << 11), (1L << 3) | (1L << 8)};
            int[] lost = new int[masks.length];
            for (int i = 0; i < masks.length; i++) {
                assertThat(mx[i].recoverFor(masks[i]).tables().syndrome).as("pattern %d", i).isNotNull();
                lost[i] = Long.bitCount(masks[i]);
            }
            Buf[] src = new Buf[masks.length];
            Buf[] dst = new Buf[masks.length];
            for (int i = 0; i < masks.length; i++) {
                src[i] = f.data(0, (long) mx[i].dataBlockCount() * len);
                dst[i] = f.dst(65536 + i * 8192L, (long) lost[i] * len);
            }
            Runnable op = () -> {
                for (int i = 0; i < masks.length; i++) {
                    dst[i].resetDataLen();
                    EcTaskRecover r = f.ec.taskRecoverAllocInit(mx[i], masks[i], src[i], dst[i], i);
                    r.submit();
                    f.pe.progress();
                    r.free();
                }
            };
            int before = f.completed;
            AllocationMeter.Result res = AllocationMeter.steadyState(20_000, 40_000, op);
            assertThat(f.completed - before).isEqualTo(masks.length * res.totalRuns());
            assertThat(f.lastStatus).isEqualTo(DocaError.SUCCESS);
            assertThat(res.bytesPerOp()).as("bytes allocated per %d recover tasks", masks.length).isLessThan(1.0);
        }
    }
}
