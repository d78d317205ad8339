package io.jdoca.compress;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The LZ4 block stream DOCA's {@code doca_compress_task_decompress_lz4_stream} reads: the blocks of
 * an LZ4 frame (LZ4 Frame Format 1.6.x, "Data Blocks") without the frame header and without the
 * end mark. Each block is a 4-byte little-endian size whose top bit marks an uncompressed block,
 * the block data, and, when the frame has {@code has_block_checksum}, a 4-byte little-endian
 * xxHash32 (seed 0) of the block data as stored. With {@code are_blocks_independent} false, a
 * block's matches may refer to the previous blocks' output (up to 64 KiB back).
 *
 * <p>{@link #compress} writes what the DOCA sbc generator and the GGA write path produce: LZ4F with
 * 64 KiB maximum blocks, independent, no checksums, level 1 (header and end mark dropped). A block
 * whose compressed form is not smaller than its input is stored uncompressed, as LZ4F does.
 *
 * <p>Results are lengths (&ge; 0) or negative {@link Lz4Codec} errors; nothing throws and nothing
 * allocates after construction. One thread at a time.
 */
public final class Lz4StreamCodec {
    /** LZ4F's 64 KiB block size (blockSizeID 4), the one the DOCA generator uses. */
    public static final int BLOCK_MAX_64K = 64 * 1024;
    /** Top bit of a block size: the block is stored uncompressed. */
    static final int UNCOMPRESSED_FLAG = 0x80000000;
    /** Bad block checksum. */
    public static final int ERR_CHECKSUM = -3;
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Lz4Codec codec;
    private final int blockMax;
    /** Used when the destination cannot hold a worst-case compressed block in place. */
    private final MemorySegment scratch;

    public Lz4StreamCodec(Lz4Codec codec) {
        this(codec, BLOCK_MAX_64K);
    }

    /** {@code blockMax}: 64 KiB, 256 KiB, 1 MiB or 4 MiB, as LZ4F allows. */
    public Lz4StreamCodec(Lz4Codec codec, int blockMax) {
        if (blockMax != 64 << 10 && blockMax != 256 << 10 && blockMax != 1 << 20 && blockMax != 4 << 20) {
            throw new IllegalArgumentException("LZ4F block size must be 64K, 256K, 1M or 4M");
        }
        this.codec = codec;
        this.blockMax = blockMax;
        this.scratch = Arena.ofAuto().allocate(Lz4Codec.maxCompressedLength(blockMax), 64);
    }

    public Lz4Codec codec() {
        return codec;
    }

    /** Worst-case stream size for {@code srcLen} input bytes. */
    public int maxCompressedLength(int srcLen) {
        int blocks = Math.max(1, (srcLen + blockMax - 1) / blockMax);
        return srcLen + 4 * blocks;
    }

    /**
     * Compresses {@code src[srcOff, +srcLen)} into a block stream at {@code dst[dstOff, +dstCap)};
     * returns the stream length or {@link Lz4Codec#ERR_DST_TOO_SMALL}.
     */
    public int compress(MemorySegment src, long srcOff, int srcLen, MemorySegment dst, long dstOff, int dstCap) {
        long sp = srcOff;
        long send = srcOff + srcLen;
        long dp = dstOff;
        long dend = dstOff + dstCap;
        while (sp < send) {
            int n = (int) Math.min(blockMax, send - sp);
            if (dend - dp < 4) {
                return Lz4Codec.ERR_DST_TOO_SMALL;
            }
            int room = (int) Math.min(Integer.MAX_VALUE, dend - dp - 4);
            int c;
            if (room >= Lz4Codec.maxCompressedLength(n)) {
                c = codec.compress(src, sp, n, dst, dp + 4, room);
            } else {
                c = codec.compress(src, sp, n, scratch, 0, (int) scratch.byteSize());
                if (c > 0 && c < n) {
                    if (c > room) {
                        return Lz4Codec.ERR_DST_TOO_SMALL;
                    }
                    MemorySegment.copy(scratch, 0, dst, dp + 4, c);
                }
            }
            if (c <= 0 || c >= n) {
                // Incompressible: store as is, as LZ4F does when compression does not shrink the block.
                if (room < n) {
                    return Lz4Codec.ERR_DST_TOO_SMALL;
                }
                MemorySegment.copy(src, sp, dst, dp + 4, n);
                dst.set(LE_INT, dp, n | UNCOMPRESSED_FLAG);
                dp += 4 + n;
            } else {
                dst.set(LE_INT, dp, c);
                dp += 4 + c;
            }
            sp += n;
        }
        return (int) (dp - dstOff);
    }

    /**
     * Decompresses a block stream from {@code src[srcOff, +srcLen)} into {@code dst[dstOff, +dstCap)};
     * returns the decompressed length, {@link Lz4Codec#ERR_MALFORMED}, {@link Lz4Codec#ERR_DST_TOO_SMALL}
     * or {@link #ERR_CHECKSUM}. A zero block size (an end mark left in) ends the stream; bytes after
     * it are malformed.
     */
    public int decompress(boolean hasBlockChecksum, boolean blocksIndependent,
            MemorySegment src, long srcOff, int srcLen,
            MemorySegment dst, long dstOff, int dstCap) {
        if (srcOff < 0 || srcLen < 0 || srcOff + srcLen > src.byteSize() || dstOff < 0 || dstCap < 0
                || dstOff + dstCap > dst.byteSize()) {
            return Lz4Codec.ERR_MALFORMED;
        }
        long sp = srcOff;
        long send = srcOff + srcLen;
        long dp = dstOff;
        long dend = dstOff + dstCap;
        int csLen = hasBlockChecksum ? 4 : 0;
        while (sp < send) {
            if (send - sp < 4) {
                return Lz4Codec.ERR_MALFORMED;
            }
            int word = src.get(LE_INT, sp);
            sp += 4;
            if (word == 0) {
                return sp == send ? (int) (dp - dstOff) : Lz4Codec.ERR_MALFORMED;
            }
            boolean stored = (word & UNCOMPRESSED_FLAG) != 0;
            long size = word & 0x7fffffffL;
            if (size > send - sp - csLen) {
                return Lz4Codec.ERR_MALFORMED;
            }
            if (hasBlockChecksum && XxHash32.hash(src, sp, size, 0) != src.get(LE_INT, sp + size)) {
                return ERR_CHECKSUM;
            }
            int cap = (int) Math.min(Integer.MAX_VALUE, dend - dp);
            int n;
            if (stored) {
                if (size > cap) {
                    return Lz4Codec.ERR_DST_TOO_SMALL;
                }
                MemorySegment.copy(src, sp, dst, dp, size);
                n = (int) size;
            } else if (blocksIndependent) {
                n = codec.decompress(src, sp, (int) size, dst, dp, cap);
            } else {
                // Dependent blocks: matches reach up to 64 KiB back into the output already written.
                long window = Math.max(dstOff, dp - 65536);
                n = codec instanceof Liblz4Codec l ? l.decompressWithPrefix(src, sp, (int) size, dst, dp, cap, window)
                        : JavaLz4Codec.decodeBlock(src, sp, (int) size, dst, dp, cap, window);
            }
            if (n < 0) {
                return n;
            }
            dp += n;
            sp += size + csLen;
        }
        return (int) (dp - dstOff);
    }

    /** The xxHash32 block checksum of {@code s[off, +len)} (for writers of checksummed streams). */
    public static int blockChecksum(MemorySegment s, long off, long len) {
        return XxHash32.hash(s, off, len, 0);
    }
}
