package io.jdoca.compress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Interop with the reference LZ4 implementation: streams made by the {@code lz4} CLI (frame
 * header stripped, as DOCA's sbc generator does) decode with {@link Lz4StreamCodec}, and our
 * stream, given a frame header and end mark, decodes with {@code lz4 -d}. Skipped when the CLI is
 * absent ({@code scripts/ensure-packages.sh lz4}).
 */
class Lz4CliInteropTest {
    static boolean cli;

    @TempDir
    Path tmp;

    @BeforeAll
    static void findCli() {
        try {
            Process p = new ProcessBuilder("lz4", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            cli = p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            cli = false;
        }
    }

    static void run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", cmd) + ": " + new String(out)).isZero();
    }

    /** The parsed frame: where the blocks start, the flags, where they end. */
    record Frame(int blocksStart, int blocksEnd, boolean blockChecksum, boolean independent) {
        static Frame parse(byte[] f) {
            assertThat(f[0] & 0xff | (f[1] & 0xff) << 8 | (f[2] & 0xff) << 16 | (f[3] & 0xff) << 24)
                    .isEqualTo(0x184D2204);
            int flg = f[4] & 0xff;
            int p = 6 + ((flg & 0x08) != 0 ? 8 : 0) + ((flg & 0x01) != 0 ? 4 : 0) + 1; // FLG, BD, [size], [dictID], HC
            int end = f.length - ((flg & 0x04) != 0 ? 4 : 0) - 4; // [content checksum], end mark
            return new Frame(p, end, (flg & 0x10) != 0, (flg & 0x20) != 0);
        }
    }

    @ParameterizedTest
    @CsvSource({
        "text,200000,-B4 -BD --no-frame-crc",
        "text,200000,-B4 -BI --no-frame-crc",
        "text,200000,-B4 -BD -BX",
        "text,200000,-B4 -BI -BX --no-frame-crc",
        "json,4096,-B4 -BD --no-frame-crc",
        "random,150000,-B4 -BD --no-frame-crc",
        "zero,300000,-B5 -BD -BX",
        "text,1000000,-B6 -BI -9",
        "text,700000,-B4 -BD -1"})
    void decodesStreamsOfTheLz4Cli(String kind, int n, String opts) throws Exception {
        assumeTrue(cli, "lz4 CLI not installed (scripts/ensure-packages.sh lz4): skipped");
        byte[] data = TestData.of(kind, n, 17);
        Path in = tmp.resolve("in");
        Path out = tmp.resolve("in.lz4");
        Files.write(in, data);
        List<String> cmd = new ArrayList<>(List.of("lz4", "-q", "-f"));
        cmd.addAll(List.of(opts.split(" ")));
        cmd.addAll(List.of(in.toString(), out.toString()));
        run(cmd);
        byte[] frame = Files.readAllBytes(out);
        Frame f = Frame.parse(frame);
        if (n > 65536) {
            assertThat(f.independent()).isEqualTo(opts.contains("-BI"));
        }
        assertThat(f.blockChecksum()).isEqualTo(opts.contains("-BX"));
        try (Arena a = Arena.ofConfined()) {
            int len = f.blocksEnd() - f.blocksStart();
            MemorySegment src = a.allocate(len);
            MemorySegment.copy(frame, f.blocksStart(), src, ValueLayout.JAVA_BYTE, 0, len);
            for (Lz4Codec c : Lz4PropertiesTest.codecs()) {
                MemorySegment dst = a.allocate(n);
                int got = new Lz4StreamCodec(c).decompress(f.blockChecksum(), f.independent(), src, 0, len, dst, 0, n);
                assertThat(got).as(c.name()).isEqualTo(n);
                assertThat(dst.toArray(ValueLayout.JAVA_BYTE)).as(c.name()).isEqualTo(data);
            }
        }
    }

    @Test
    void lz4CliDecodesOurStream() throws Exception {
        assumeTrue(cli, "lz4 CLI not installed (scripts/ensure-packages.sh lz4): skipped");
        byte[] data = TestData.text(300_000, 3);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = Lz4PropertiesTest.seg(a, data);
            Lz4StreamCodec s = new Lz4StreamCodec(Lz4Codec.create());
            MemorySegment comp = a.allocate(s.maxCompressedLength(data.length));
            int cl = s.compress(src, 0, data.length, comp, 0, (int) comp.byteSize());
            byte[] blocks = comp.asSlice(0, cl).toArray(ValueLayout.JAVA_BYTE);
            // LZ4F header for: version 01, independent blocks, no checksums; 64 KiB blocks;
            // HC = (xxh32(FLG,BD) >> 8) & 0xff.
            byte flg = 0x60;
            byte bd = 0x40;
            MemorySegment hd = Lz4PropertiesTest.seg(a, new byte[] {flg, bd});
            byte hc = (byte) (XxHash32.hash(hd, 0, 2, 0) >>> 8);
            byte[] frame = new byte[7 + blocks.length + 4];
            byte[] head = {0x04, 0x22, 0x4d, 0x18, flg, bd, hc};
            System.arraycopy(head, 0, frame, 0, 7);
            System.arraycopy(blocks, 0, frame, 7, blocks.length);
            Path in = tmp.resolve("ours.lz4");
            Path out = tmp.resolve("ours");
            Files.write(in, frame);
            run(List.of("lz4", "-q", "-d", "-f", in.toString(), out.toString()));
            assertThat(Files.readAllBytes(out)).isEqualTo(data);
        }
    }
}
