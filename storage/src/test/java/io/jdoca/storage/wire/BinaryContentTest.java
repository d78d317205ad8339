package io.jdoca.storage.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.core.DocaException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The .sbc format (reference §3) against a hand-built file, plus fuzzing of the header parser. */
class BinaryContentTest {
    @TempDir
    Path dir;

    @Test
    void writesTheReferenceLayout() throws IOException {
        Path f = dir.resolve("a.sbc");
        byte[] content = new byte[8];
        for (int i = 0; i < 8; i++) {
            content[i] = (byte) (0xA0 + i);
        }
        BinaryContent.write(f, 4, 2, MemorySegment.ofArray(content));
        assertThat(HexFormat.of().formatHex(Files.readAllBytes(f)))
                .isEqualTo("deadf00d1337fade" + "00000004" + "00000002" + "a0a1a2a3a4a5a6a7");
        BinaryContent.Header h = BinaryContent.readHeader(f);
        assertThat(h).isEqualTo(new BinaryContent.Header(4, 2));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment dst = a.allocate(8);
            BinaryContent.readContent(f, BinaryContent.HEADER_SIZE, dst);
            assertThat(dst.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(content);
        }
    }

    @Test
    void plainFileHasNoHeader() throws IOException {
        Path f = dir.resolve("plain.bin");
        Files.write(f, new byte[4096]);
        assertThat(BinaryContent.readHeader(f)).isNull();
        assertThat(BinaryContent.isSbc(f)).isFalse();
    }

    @Test
    void garbageHeadersGiveClearErrors() throws IOException {
        Path f = dir.resolve("bad.sbc");
        Files.write(f, HexFormat.of().parseHex("deadf00d1337fade0000100000000010" + "00"));
        assertThatThrownBy(() -> BinaryContent.readHeader(f)).isInstanceOf(DocaException.class)
                .hasMessageContaining("header says 16 blocks of 4096 bytes").hasMessageContaining("holds 1 bytes");
        Files.write(f, HexFormat.of().parseHex("deadf00d1337fade0000000000000010"));
        assertThatThrownBy(() -> BinaryContent.readHeader(f)).hasMessageContaining("must be > 0");
        Files.write(f, HexFormat.of().parseHex("deadf00d1337fade00010000"));
        assertThatThrownBy(() -> BinaryContent.readHeader(f)).hasMessageContaining("truncated");
        Files.write(f, HexFormat.of().parseHex("deadf00d1337fadeffffffffffffffff"));
        assertThatThrownBy(() -> BinaryContent.readHeader(f)).hasMessageContaining("2 GiB");
    }

    @Property(tries = 3000)
    void headerParserFuzz(@ForAll @Size(max = 40) byte[] junk, @ForAll long fileSize, @ForAll boolean withMagic) {
        if (withMagic && junk.length >= 8) {
            MemorySegment.ofArray(junk).set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 0,
                    BinaryContent.MAGIC);
        }
        try {
            BinaryContent.Header h = BinaryContent.parseHeader(junk, Math.min(junk.length, 16), fileSize);
            if (h != null) {
                assertThat(h.contentSize()).isEqualTo(fileSize - 16).isPositive()
                        .isLessThanOrEqualTo(BinaryContent.MAX_CONTENT);
            }
        } catch (DocaException expected) {
            assertThat(expected.getMessage()).isNotBlank();
        }
    }
}
