package io.jdoca.ec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.mem.Buf;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The Ec context end to end: tasks over buffers and chains, through the progress engine. */
class EcContextTest {
    static RsEngine[] engines() {
        return RsPropertiesTest.engines();
    }

    static byte[] bytes(MemorySegment s, long off, int len) {
        return s.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE);
    }

    static void fill(MemorySegment s, long off, int len, long seed) {
        byte[] b = new byte[len];
        new Random(seed).nextBytes(b);
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, off, len);
    }

    @ParameterizedTest
    @MethodSource("engines")
    void ggaTwoPlusOneCreateThenRecoverEitherHalf(RsEngine engine) {
        int b = 2048; // half of a 4 KiB block
        try (EcFixture f = new EcFixture(1 << 20, engine)) {
            EcMatrix mx = f.ec.matrixCreate(EcMatrixType.VANDERMONDE, 2, 1);
            fill(f.mem, 0, 2 * b, 1);
            Buf src = f.data(0, 2 * b);
            Buf par = f.dst(2 * b, b);
            EcTaskCreate c = f.ec.taskCreateAllocInit(mx, src, par, 7);
            assertThat(f.run(c)).isEqualTo(DocaError.SUCCESS);
            assertThat(par.dataLen()).isEqualTo(b);
            byte[] d1 = bytes(f.mem, 0, b);
            byte[] d2 = bytes(f.mem, b, b);
            byte[] p = bytes(f.mem, 2 * b, b);
            for (int i = 0; i < b; i++) {
                assertThat(p[i]).isEqualTo((byte) (d1[i] ^ d2[i]));
            }
            c.free();
            // recover_a: [dp, d2] -> d1, with the coding matrix itself (as the GGA service does).
            Buf dp = f.data(2 * b, b);
            Buf dd2 = f.data(b, b);
            dp.chainList(dd2);
            Buf out = f.dst(4 * b, b);
            EcTaskRecover r = f.ec.taskRecoverAllocInit(mx, dp, out, 0);
            assertThat(f.run(r)).isEqualTo(DocaError.SUCCESS);
            assertThat(bytes(f.mem, 4 * b, b)).isEqualTo(d1);
            r.free();
            // With an explicit recover matrix: lost d2, available [d1, dp] in index order.
            EcMatrix rec = f.ec.matrixCreateRecover(mx, new int[] {1});
            assertThat(f.ec.matrixCreateRecover(mx, new int[] {1})).as("cached per pattern").isSameAs(rec);
            Buf a1 = f.data(0, b);
            a1.chainList(f.data(2 * b, b));
            Buf out2 = f.dst(5 * b, b);
            EcTaskRecover r2 = f.ec.taskRecoverAllocInit(rec, a1, out2, 0);
            assertThat(f.run(r2)).isEqualTo(DocaError.SUCCESS);
            assertThat(bytes(f.mem, 5 * b, b)).isEqualTo(d2);
            r2.free();
        }
    }

    @ParameterizedTest
    @MethodSource("engines")
    void tenPlusFourWithChainsAndLossMask(RsEngine engine) {
        int k = 10, m = 4, len = 4096;
        try (EcFixture f = new EcFixture(1 << 20, engine)) {
            EcMatrix mx = f.ec.matrixCreate(EcMatrixType.CAUCHY, k, m);
            fill(f.mem, 0, k * len, 42);
            // Source: a chain of 3 buffers holding 4, 4 and 2 blocks; destination: a chain of 2.
            Buf src = f.data(0, 4L * len);
            src.chainList(f.data(4L * len, 4L * len));
            src.chainList(f.data(8L * len, 2L * len));
            long pOff = (long) k * len;
            Buf d0 = f.dst(pOff, 3L * len);
            d0.chainList(f.dst(pOff + 3L * len, 1L * len));
            EcTaskCreate c = f.ec.taskCreateAllocInit(mx, src, d0, 1);
            assertThat(f.run(c)).isEqualTo(DocaError.SUCCESS);
            assertThat(d0.listDataLen()).isEqualTo((long) m * len);
            c.free();
            // Lose blocks 0, 3, 11 and 13: the survivors in index order are 1,2,4..10,12 (first 10).
            long mask = (1L << 0) | (1L << 3) | (1L << 11) | (1L << 13);
            long avOff = 200_000;
            int s = 0;
            for (int i = 0; i < k + m && s < k; i++) {
                if ((mask & (1L << i)) == 0) {
                    MemorySegment.copy(f.mem, (long) i * len, f.mem, avOff + (long) s * len, len);
                    s++;
                }
            }
            Buf av = f.data(avOff, (long) k * len);
            long outOff = 400_000;
            Buf out = f.dst(outOff, 4L * len);
            EcTaskRecover r = f.ec.taskRecoverAllocInit(mx, mask, av, out, 2);
            assertThat(f.run(r)).isEqualTo(DocaError.SUCCESS);
            int[] lost = {0, 3, 11, 13};
            for (int p = 0; p < lost.length; p++) {
                assertThat(bytes(f.mem, outOff + (long) p * len, len)).as("block %d", lost[p])
                        .isEqualTo(bytes(f.mem, (long) lost[p] * len, len));
            }
            r.free();
        }
    }

    @ParameterizedTest
    @MethodSource("engines")
    void updateTaskEqualsFreshCreate(RsEngine engine) {
        int k = 4, m = 2, len = 1024;
        try (EcFixture f = new EcFixture(1 << 20, engine)) {
            EcMatrix mx = f.ec.matrixCreate(EcMatrixType.VANDERMONDE, k, m);
            fill(f.mem, 0, k * len, 5);
            EcTaskCreate c = f.ec.taskCreateAllocInit(mx, f.data(0, (long) k * len), f.dst(100_000, (long) m * len), 0);
            assertThat(f.run(c)).isEqualTo(DocaError.SUCCESS);
            c.free();
            // [old d2, new d2, p0, p1]
            long uOff = 200_000;
            MemorySegment.copy(f.mem, 2L * len, f.mem, uOff, len);
            fill(f.mem, uOff + len, len, 6);
            MemorySegment.copy(f.mem, 100_000, f.mem, uOff + 2L * len, (long) m * len);
            EcMatrix up = f.ec.matrixCreateUpdate(mx, new int[] {2});
            EcTaskUpdate u = f.ec.taskUpdateAllocInit(up, f.data(uOff, (long) (2 + m) * len),
                    f.dst(300_000, (long) m * len), 0);
            assertThat(f.run(u)).isEqualTo(DocaError.SUCCESS);
            u.free();
            // Fresh create over the updated data.
            MemorySegment.copy(f.mem, uOff + len, f.mem, 2L * len, len);
            EcTaskCreate c2 = f.ec.taskCreateAllocInit(mx, f.data(0, (long) k * len),
                    f.dst(400_000, (long) m * len), 0);
            assertThat(f.run(c2)).isEqualTo(DocaError.SUCCESS);
            c2.free();
            assertThat(bytes(f.mem, 300_000, m * len)).isEqualTo(bytes(f.mem, 400_000, m * len));
        }
    }

    @ParameterizedTest
    @MethodSource("engines")
    void invalidInputFailsWithInvalidValueAndClaimsNothing(RsEngine engine) {
        try (EcFixture f = new EcFixture(1 << 20, engine)) {
            EcMatrix mx = f.ec.matrixCreate(EcMatrixType.CAUCHY, 4, 2);
            // Not a multiple of 64 per block.
            Buf dst = f.dst(100_000, 8192);
            EcTaskCreate c = f.ec.taskCreateAllocInit(mx, f.data(0, 4 * 100), dst, 0);
            assertThat(c.submit()).isEqualTo(DocaError.INVALID_VALUE);
            // trySubmit skips the submit checks: the task then fails through its error callback.
            assertThat(f.run2(c)).isEqualTo(DocaError.INVALID_VALUE);
            assertThat(dst.dataLen()).isZero();
            // Not divisible by k.
            c.setOriginalDataBlocks(f.data(0, 64 * 5));
            assertThat(c.submit()).isEqualTo(DocaError.INVALID_VALUE);
            // Destination too small for the second parity block.
            c.setOriginalDataBlocks(f.data(0, 4 * 1024));
            Buf small = f.dst(100_000, 1024 + 512);
            c.setRdncBlocks(small);
            assertThat(f.run2(c)).isEqualTo(DocaError.INVALID_VALUE);
            assertThat(small.dataLen()).isZero();
            // A block straddling two buffers of a chain.
            Buf s1 = f.data(0, 1024 + 512);
            s1.chainList(f.data(2048, 2048 + 512));
            c.setOriginalDataBlocks(s1);
            c.setRdncBlocks(f.dst(100_000, 8192));
            assertThat(f.run2(c)).isEqualTo(DocaError.INVALID_VALUE);
            // Wrong matrix kind and a matrix of another context.
            c.setOriginalDataBlocks(f.data(0, 4096));
            c.setMatrix(f.ec.matrixCreateRecover(mx, new int[] {1}));
            assertThat(f.run2(c)).isEqualTo(DocaError.INVALID_VALUE);
            c.setMatrix(null);
            assertThat(f.run2(c)).isEqualTo(DocaError.INVALID_VALUE);
            try (EcFixture other = new EcFixture(4096, engine)) {
                c.setMatrix(other.ec.matrixCreate(EcMatrixType.CAUCHY, 4, 2));
                assertThat(f.run2(c)).isEqualTo(DocaError.INVALID_VALUE);
            }
            c.free();
            // Too many losses through the mask path: a task error, not an exception.
            Buf out = f.dst(200_000, 8192);
            EcTaskRecover r = f.ec.taskRecoverAllocInit(mx, 0b111, f.data(0, 4096), out, 0);
            assertThat(f.run2(r)).isEqualTo(DocaError.INVALID_VALUE);
            assertThat(out.dataLen()).isZero();
            // A recover with a Cauchy coding matrix and no mask is ambiguous.
            r.setMatrix(f.ec.matrixCreate(EcMatrixType.CAUCHY, 2, 1), 0);
            assertThat(f.run2(r)).isEqualTo(DocaError.INVALID_VALUE);
            r.free();
            // Control-path errors.
            assertThatThrownBy(() -> f.ec.matrixCreate(EcMatrixType.CAUCHY, 33, 2)).isInstanceOf(DocaException.class);
            assertThatThrownBy(() -> f.ec.matrixCreate(EcMatrixType.CAUCHY, 4, 9)).isInstanceOf(DocaException.class);
            assertThatThrownBy(() -> f.ec.matrixCreateRecover(mx, new int[] {0, 1, 2}))
                    .isInstanceOf(DocaException.class);
            assertThatThrownBy(() -> f.ec.matrixCreateRecover(mx, new int[] {6})).isInstanceOf(DocaException.class);
            assertThatThrownBy(() -> f.ec.matrixCreateFromRaw(new byte[3], 2, 2)).isInstanceOf(DocaException.class);
        }
    }

    @ParameterizedTest
    @MethodSource("engines")
    void rawMatrixCodesWithTheGivenCoefficients(RsEngine engine) {
        try (EcFixture f = new EcFixture(1 << 16, engine)) {
            byte[] raw = {1, 2, 3, 4, 5, 6}; // 2 x 3
            EcMatrix mx = f.ec.matrixCreateFromRaw(raw, 3, 2);
            fill(f.mem, 0, 3 * 64, 9);
            EcTaskCreate c = f.ec.taskCreateAllocInit(mx, f.data(0, 3 * 64), f.dst(1024, 128), 0);
            assertThat(f.run(c)).isEqualTo(DocaError.SUCCESS);
            byte[] in = bytes(f.mem, 0, 192);
            byte[] out = bytes(f.mem, 1024, 128);
            for (int r = 0; r < 2; r++) {
                for (int i = 0; i < 64; i++) {
                    int x = 0;
                    for (int j = 0; j < 3; j++) {
                        x ^= Gf256.mul(raw[r * 3 + j], in[j * 64 + i]);
                    }
                    assertThat(out[r * 64 + i]).isEqualTo((byte) x);
                }
            }
            c.free();
        }
    }

    @ParameterizedTest
    @MethodSource("engines")
    void stopFlushesQueuedTasksThroughErrorCallbacks(RsEngine engine) {
        try (EcFixture f = new EcFixture(1 << 16, engine)) {
            EcMatrix mx = f.ec.matrixCreate(EcMatrixType.VANDERMONDE, 2, 1);
            EcTaskCreate c = f.ec.taskCreateAllocInit(mx, f.data(0, 128), f.dst(1024, 64), 0);
            assertThat(c.submit()).isEqualTo(DocaError.SUCCESS);
            assertThat(f.ec.stop()).isEqualTo(DocaError.IN_PROGRESS);
            f.pe.progress();
            assertThat(c.status()).isEqualTo(DocaError.SHUTDOWN);
            assertThat(f.ec.state()).isEqualTo(CtxState.STOPPING);
            c.free();
            assertThat(f.ec.state()).isEqualTo(CtxState.IDLE);
        }
    }
}
