package io.jdoca.gga;

import io.jdoca.core.DocaError;
import io.jdoca.compress.Lz4StreamCodec;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The B-byte compressed container GGA stores per initiator block (reference §3 "Generator" step 3
 * and §5 "Write flow"; DOCA {@code definitions.hpp} {@code compressed_block_header} /
 * {@code compressed_block_trailer}):
 *
 * <pre>
 *   off            size             field
 *   0              4                original_size, u32 BE (always written as B)
 *   4              4                compressed_size, u32 BE
 *   8              compressed_size  LZ4 block stream ({@link Lz4StreamCodec}: independent 64 KiB blocks, no checksums)
 *   8 + csize      ...              zero padding
 *   B - 4          4                reserved trailer, u32, 0
 * </pre>
 *
 * The first B/2 bytes go to data_1, the last B/2 to data_2. Packing fails when
 * {@code compressed_size + 12 > B}, as in DOCA: such a block gets TOO_BIG (see docs/STORAGE-GGA.md).
 *
 * <p>Static methods are stateless; the {@link Lz4StreamCodec} passed in (the compress library's engine) is per thread.
 * All methods
 * are allocation-free and return a size (&ge; 0) or the negated {@link DocaError} code.
 */
public final class CompressedContainer {
    /** definitions.hpp compressed_block_header: u32 BE original_size @0. */
    public static final int OFF_ORIGINAL_SIZE = 0;
    /** definitions.hpp compressed_block_header: u32 BE compressed_size @4. */
    public static final int OFF_COMPRESSED_SIZE = 4;
    /** The LZ4 stream follows the 8-byte header. */
    public static final int OFF_DATA = 8;
    public static final int HEADER_SIZE = 8;
    /** definitions.hpp compressed_block_trailer: u32 reserved, at the end of the block. */
    public static final int TRAILER_SIZE = 4;
    /** Reference §3 step 2: fail if compressed + 12 &gt; B. */
    public static final int OVERHEAD = HEADER_SIZE + TRAILER_SIZE;

    private static final ValueLayout.OfInt U32_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private CompressedContainer() {
    }

    /** Largest LZ4 stream a container of {@code blockSize} bytes holds. */
    public static int maxPayload(int blockSize) {
        return blockSize - OVERHEAD;
    }

    /**
     * Compresses {@code blockSize} bytes at {@code src[srcOff]} into the stream scratch at
     * {@code scratch[scratchOff]} (at least {@code blockSize} bytes, not overlapping either block),
     * then lays the container out at {@code dst[dstOff]} (B bytes; may overlap {@code src}).
     * Returns the compressed size, or {@code -TOO_BIG.code()} if it does not fit.
     */
    public static int pack(Lz4StreamCodec lz4, MemorySegment src, long srcOff, int blockSize, MemorySegment scratch,
            long scratchOff, MemorySegment dst, long dstOff) {
        int csize = lz4.compress(src, srcOff, blockSize, scratch, scratchOff, maxPayload(blockSize));
        if (csize < 0) {
            return -DocaError.TOO_BIG.code();
        }
        writeFromStream(scratch, scratchOff, csize, blockSize, dst, dstOff);
        return csize;
    }

    /** Lays out a container around an already compressed stream (the stream must not overlap {@code dst}). */
    public static void writeFromStream(MemorySegment stream, long streamOff, int csize, int blockSize,
            MemorySegment dst,
            long dstOff) {
        dst.set(U32_BE, dstOff + OFF_ORIGINAL_SIZE, blockSize);
        dst.set(U32_BE, dstOff + OFF_COMPRESSED_SIZE, csize);
        MemorySegment.copy(stream, streamOff, dst, dstOff + OFF_DATA, csize);
        fill(dst, dstOff + OFF_DATA + csize, blockSize - OFF_DATA - csize);
    }

    private static void fill(MemorySegment dst, long off, long len) {
        // Zero padding plus the zero trailer in one pass (allocation-free, unlike asSlice().fill()).
        long end = off + len;
        long p = off;
        for (; p + 8 <= end; p += 8) {
            dst.set(ValueLayout.JAVA_LONG_UNALIGNED, p, 0L);
        }
        for (; p < end; p++) {
            dst.set(ValueLayout.JAVA_BYTE, p, (byte) 0);
        }
    }

    /** The header's original_size. */
    public static int originalSize(MemorySegment c, long off) {
        return c.get(U32_BE, off + OFF_ORIGINAL_SIZE);
    }

    /** The header's compressed_size. */
    public static int compressedSize(MemorySegment c, long off) {
        return c.get(U32_BE, off + OFF_COMPRESSED_SIZE);
    }

    /**
     * Checks the header of the container at {@code c[off]} and decompresses it into exactly
     * {@code original_size} bytes at {@code dst[dstOff]} (at most {@code dstCap}). Returns the
     * decompressed size, or {@code -IO_FAILED.code()} for a header that cannot be right or a stream
     * that does not decode to original_size bytes (corrupt storage must never reach the initiator
     * as data).
     */
    public static int unpack(Lz4StreamCodec lz4, MemorySegment c, long off, int blockSize, MemorySegment dst,
            long dstOff,
            int dstCap) {
        int csize = validate(c, off, blockSize, dstCap);
        if (csize < 0) {
            return csize;
        }
        int original = originalSize(c, off);
        int n = lz4.decompress(false, true, c, off + OFF_DATA, csize, dst, dstOff, original);
        return n == original ? n : -DocaError.IO_FAILED.code();
    }

    /** Header checks of {@link #unpack}: returns compressed_size or {@code -IO_FAILED.code()}. */
    public static int validate(MemorySegment c, long off, int blockSize, int dstCap) {
        int original = originalSize(c, off);
        int csize = compressedSize(c, off);
        if (original <= 0 || original > dstCap || csize <= 0 || csize > maxPayload(blockSize)) {
            return -DocaError.IO_FAILED.code();
        }
        return csize;
    }
}
