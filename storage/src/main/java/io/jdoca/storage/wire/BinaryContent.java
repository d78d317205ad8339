package io.jdoca.storage.wire;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The {@code .sbc} "storage binary content" file of DOCA's storage apps
 * ({@code storage_common/binary_content.cpp}, reference §3):
 *
 * <pre>
 *   off size field
 *    0   8   magic 0xDEADF00D1337FADE, u64 BE
 *    8   4   block_size, u32 BE
 *   12   4   block_count, u32 BE
 *   16   block_size × block_count bytes of content (limit 2 GiB); no trailer, no checksum
 * </pre>
 *
 * <p>Control path; stateless; any thread. Every malformed input becomes a {@link DocaException}
 * with INVALID_VALUE and a message saying what is wrong.
 */
public final class BinaryContent {
    /** reference §3: u64 magic @0. */
    public static final long MAGIC = 0xDEADF00D1337FADEL;
    /** reference §3: header size; content starts @16. */
    public static final int HEADER_SIZE = 16;
    static final long OFF_MAGIC = 0;
    static final long OFF_BLOCK_SIZE = 8;
    static final long OFF_BLOCK_COUNT = 12;
    /** reference §3: "Content is limited to 2 GiB". */
    public static final long MAX_CONTENT = 1L << 31;

    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private BinaryContent() {
    }

    /** The header of an {@code .sbc} file. */
    public record Header(int blockSize, int blockCount) {
        /** block_size × block_count, saturating at Long.MAX_VALUE (both are u32 on the wire). */
        public long contentSize() {
            long a = Integer.toUnsignedLong(blockSize);
            long b = Integer.toUnsignedLong(blockCount);
            return a != 0 && b > Long.MAX_VALUE / a ? Long.MAX_VALUE : a * b;
        }
    }

    /**
     * Parses the 16-byte header from {@code bytes} (at least {@code available} of them valid, the
     * file's size {@code fileSize}). Returns null if the magic is absent (plain content); throws
     * INVALID_VALUE for a header whose sizes are zero, over the limit or disagree with the file size.
     */
    public static Header parseHeader(byte[] bytes, int available, long fileSize) {
        if (bytes == null || available < 8 || bytes.length < available) {
            return null;
        }
        MemorySegment s = MemorySegment.ofArray(bytes);
        if (s.get(U64, OFF_MAGIC) != MAGIC) {
            return null;
        }
        if (available < HEADER_SIZE) {
            throw bad("truncated .sbc header (" + available + " of 16 bytes)");
        }
        int bs = s.get(U32, OFF_BLOCK_SIZE);
        int bc = s.get(U32, OFF_BLOCK_COUNT);
        Header h = new Header(bs, bc);
        if (bs == 0 || bc == 0) {
            throw bad(".sbc block size and block count must be > 0 (block_size=" + Integer.toUnsignedString(bs)
                    + ", block_count=" + Integer.toUnsignedString(bc) + ")");
        }
        if (h.contentSize() > MAX_CONTENT) {
            throw bad(".sbc content of " + h.contentSize() + " bytes exceeds the 2 GiB limit");
        }
        if (fileSize - HEADER_SIZE != h.contentSize()) {
            throw bad(".sbc header says " + Integer.toUnsignedString(bc) + " blocks of " + Integer.toUnsignedString(bs)
                    + " bytes (" + h.contentSize() + " bytes) but the file holds " + Math.max(0, fileSize - HEADER_SIZE)
                    + " bytes of content");
        }
        return h;
    }

    /** Reads the header of {@code file}; null if it has no magic (plain content). */
    public static Header readHeader(Path file) {
        try (FileChannel fc = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer bb = ByteBuffer.allocate(HEADER_SIZE);
            while (bb.hasRemaining() && fc.read(bb) > 0) {
                // fill
            }
            return parseHeader(bb.array(), bb.position(), fc.size());
        } catch (IOException e) {
            throw new DocaException(DocaError.IO_FAILED, "cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** True if {@code file} starts with the {@code .sbc} magic. */
    public static boolean isSbc(Path file) {
        try (FileChannel fc = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer bb = ByteBuffer.allocate(8);
            while (bb.hasRemaining() && fc.read(bb) > 0) {
                // fill
            }
            return bb.position() == 8 && bb.order(ByteOrder.BIG_ENDIAN).getLong(0) == MAGIC;
        } catch (IOException e) {
            throw new DocaException(DocaError.IO_FAILED, "cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Copies {@code dst.byteSize()} content bytes from {@code file}, starting at file offset
     * {@code fileOffset} (16 for .sbc, 0 for plain content).
     */
    public static void readContent(Path file, long fileOffset, MemorySegment dst) {
        try (FileChannel fc = FileChannel.open(file, StandardOpenOption.READ)) {
            if (fc.size() - fileOffset < dst.byteSize()) {
                throw bad(file + " holds " + (fc.size() - fileOffset) + " content bytes, " + dst.byteSize()
                        + " needed");
            }
            try (Arena a = Arena.ofConfined()) {
                MemorySegment src = fc.map(FileChannel.MapMode.READ_ONLY, fileOffset, dst.byteSize(), a);
                MemorySegment.copy(src, 0, dst, 0, dst.byteSize());
            }
        } catch (IOException e) {
            throw new DocaException(DocaError.IO_FAILED, "cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** Writes an {@code .sbc} file: header, then {@code blockSize × blockCount} bytes of {@code content}. */
    public static void write(Path file, int blockSize, int blockCount, MemorySegment content) {
        Header h = new Header(blockSize, blockCount);
        if (blockSize <= 0 || blockCount <= 0 || h.contentSize() > MAX_CONTENT
                || content.byteSize() < h.contentSize()) {
            throw bad("cannot write .sbc of " + blockCount + " × " + blockSize + " from " + content.byteSize()
                    + " bytes");
        }
        byte[] hdr = new byte[HEADER_SIZE];
        MemorySegment s = MemorySegment.ofArray(hdr);
        s.set(U64, OFF_MAGIC, MAGIC);
        s.set(U32, OFF_BLOCK_SIZE, blockSize);
        s.set(U32, OFF_BLOCK_COUNT, blockCount);
        try (FileChannel fc = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer hb = ByteBuffer.wrap(hdr);
            while (hb.hasRemaining()) {
                fc.write(hb);
            }
            ByteBuffer cb = content.asSlice(0, h.contentSize()).asByteBuffer();
            while (cb.hasRemaining()) {
                fc.write(cb);
            }
        } catch (IOException e) {
            throw new DocaException(DocaError.IO_FAILED, "cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** Writes {@code plain} (padded with zeros to whole blocks) as an {@code .sbc} file; returns its header. */
    public static Header writeFromPlain(Path sbc, Path plain, int blockSize) {
        try {
            byte[] data = Files.readAllBytes(plain);
            int blocks = Math.max(1, (data.length + blockSize - 1) / blockSize);
            byte[] padded = java.util.Arrays.copyOf(data, blocks * blockSize);
            write(sbc, blockSize, blocks, MemorySegment.ofArray(padded));
            return new Header(blockSize, blocks);
        } catch (IOException e) {
            throw new DocaException(DocaError.IO_FAILED, "cannot read " + plain + ": " + e.getMessage(), e);
        }
    }

    private static DocaException bad(String why) {
        return new DocaException(DocaError.INVALID_VALUE, why);
    }
}
