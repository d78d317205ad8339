package io.jdoca.gga.sbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.ec.EcMatrix;
import io.jdoca.ec.EcMatrixType;
import io.jdoca.storage.wire.BinaryContent;
import io.jdoca.gga.CompressedContainer;
import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The .sbc generator against reference §3: three files of B/2-byte blocks whose halves re-assemble
 * into containers that decompress to the input, and whose parity is the 2+1 code of the halves
 * (checked by rebuilding each half from the other and the parity, with an independent EC matrix).
 */
class SbcGeneratorTest {
    @TempDir
    Path dir;

    private static byte[] content(Path file) throws IOException {
        byte[] all = Files.readAllBytes(file);
        return Arrays.copyOfRange(all, BinaryContent.HEADER_SIZE, all.length);
    }

    private static byte[] projectText(int max) throws IOException {
        Path src = JavaProcess.repoRoot().resolve("core/src/main/java/io/jdoca/core/exec/Ctx.java");
        byte[] b = Files.readAllBytes(src);
        return Arrays.copyOf(b, Math.min(b.length, max));
    }

    @ParameterizedTest
    @EnumSource(value = EcMatrixType.class, names = {"VANDERMONDE", "CAUCHY"})
    void generatesDecodableHalvesAndParity(EcMatrixType type) throws IOException {
        byte[] text = projectText(1 << 20);
        Path in = dir.resolve("in.txt");
        Files.write(in, text);
        Path d1 = dir.resolve("d1.sbc");
        Path d2 = dir.resolve("d2.sbc");
        Path dp = dir.resolve("dp.sbc");
        int bs = 4096;
        SbcGenerator.Result r;
        try (Dev dev = Devices.open("sw0")) {
            r = SbcGenerator.generate(dev, in, d1, d2, dp, bs, type);
        }
        int blocks = (text.length + bs - 1) / bs;
        assertThat(r.blockCount()).isEqualTo(blocks);
        assertThat(r.ratio()).isGreaterThan(1.2);
        for (Path p : new Path[] {d1, d2, dp}) {
            BinaryContent.Header h = BinaryContent.readHeader(p);
            assertThat(h).isNotNull();
            assertThat(h.blockSize()).isEqualTo(bs / 2);
            assertThat(h.blockCount()).isEqualTo(blocks);
            assertThat(Files.size(p)).isEqualTo(BinaryContent.HEADER_SIZE + (long) blocks * bs / 2);
        }
        byte[] c1 = content(d1);
        byte[] c2 = content(d2);
        byte[] cp = content(dp);
        byte[] padded = Arrays.copyOf(text, blocks * bs);
        EcMatrix m = EcMatrix.create(type, 2, 1);
        byte[] gen = m.generator(); // (k+m) x k, systematic: last row is the parity row
        int half = bs / 2;
        for (int i = 0; i < blocks; i++) {
            byte[] container = new byte[bs];
            System.arraycopy(c1, i * half, container, 0, half);
            System.arraycopy(c2, i * half, container, half, half);
            assertThat(ByteBuffer.wrap(container).getInt(0)).isEqualTo(bs);
            byte[] out = new byte[bs];
            int n = CompressedContainer.unpack(
                    new io.jdoca.compress.Lz4StreamCodec(io.jdoca.compress.Lz4Codec.create()),
                    MemorySegment.ofArray(container), 0, bs, MemorySegment.ofArray(out), 0, bs);
            assertThat(n).as("block %d", i).isEqualTo(bs);
            assertThat(out).isEqualTo(Arrays.copyOfRange(padded, i * bs, (i + 1) * bs));
            int g0 = gen[2 * 2] & 0xFF;
            int g1 = gen[2 * 2 + 1] & 0xFF;
            for (int j = 0; j < half; j++) {
                int expect = mul(g0, c1[i * half + j] & 0xFF) ^ mul(g1, c2[i * half + j] & 0xFF);
                if ((cp[i * half + j] & 0xFF) != expect) {
                    throw new AssertionError("parity mismatch at block " + i + " byte " + j);
                }
            }
        }
    }

    /** GF(2^8) multiply with ISA-L's polynomial 0x11D (independent of the ec module's tables). */
    private static int mul(int a, int b) {
        int p = 0;
        while (b != 0) {
            if ((b & 1) != 0) {
                p ^= a;
            }
            a <<= 1;
            if ((a & 0x100) != 0) {
                a ^= 0x11D;
            }
            b >>= 1;
        }
        return p;
    }

    @Test
    void incompressibleInputFailsClearly() throws IOException {
        byte[] noise = new byte[16384];
        new Random(1).nextBytes(noise);
        Path in = dir.resolve("noise.bin");
        Files.write(in, noise);
        try (Dev dev = Devices.open("sw0")) {
            assertThatThrownBy(() -> SbcGenerator.generate(dev, in, dir.resolve("a"), dir.resolve("b"),
                    dir.resolve("c"), 4096,
                    EcMatrixType.VANDERMONDE)).isInstanceOf(DocaException.class).hasMessageContaining("does not "
                            + "compress")
                    .satisfies(e -> assertThat(((DocaException) e).error()).isEqualTo(DocaError.INVALID_VALUE));
        }
    }

    @Test
    void blockSizeMustSuitEc() throws IOException {
        Path in = dir.resolve("x");
        Files.write(in, new byte[100]);
        try (Dev dev = Devices.open("sw0")) {
            for (int bs : new int[] {0, 100, 64, 4000}) {
                assertThatThrownBy(() -> SbcGenerator.generate(dev, in, dir.resolve("a"), dir.resolve("b"),
                        dir.resolve("c"), bs,
                        EcMatrixType.VANDERMONDE)).isInstanceOf(DocaException.class);
            }
        }
    }
}
