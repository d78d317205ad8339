package io.jdoca.storage.gga.lz4;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The "LZ4 stream" DOCA stores and {@code doca_compress_task_decompress_lz4_stream} decodes: the
 * data blocks of an LZ4 frame without the frame header and without the end mark (reference §3,
 * "LZ4 details": DOCA's {@code lz4_sw_context} overwrites the header and drops the 4-byte end mark).
 * Per the LZ4 frame format (lz4 {@code doc/lz4_Frame_format.md}, "Data Blocks"), each block is a
 * u32 little-endian size whose top bit marks an uncompressed block, then that many bytes. Blocks are
 * independent, at most 64 KiB of input each (DOCA asks for 64 KB max blocks), no block checksums.
 *
 * <p>An instance owns an {@link Lz4Block} compressor: one per thread. {@link #decompress} is static,
 * stateless and never reads or writes outside the given ranges, whatever the input.
 */
public final class Lz4BlockStream {
    /** Frame format, "Data Blocks": block size field, u32 little-endian. */
    public static final int BLOCK_HEADER_SIZE = 4;
    /** Frame format: the top bit of the block size means "stored uncompressed". */
    static final int UNCOMPRESSED_FLAG = 0x8000_0000;
    /** DOCA's LZ4F preferences: 64 KB max block size. */
    public static final int MAX_BLOCK_INPUT = 64 * 1024;
    /** Returned when the output does not fit or the input is malformed. */
    public static final int ERROR = -1;

    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Lz4Block block = new Lz4Block();

    /** Worst-case stream size for {@code len} input bytes (every block stored raw). */
    public static int maxStreamLength(int len) {
        int blocks = Math.max(1, (len + MAX_BLOCK_INPUT - 1) / MAX_BLOCK_INPUT);
        return len + blocks * BLOCK_HEADER_SIZE;
    }

    /**
     * Compresses {@code len} bytes into a block stream of at most {@code cap} bytes; a block that
     * would not shrink is stored raw, as LZ4F does. Returns the stream size or {@link #ERROR} if it
     * does not fit in {@code cap}. Allocation-free.
     */
    public int compress(MemorySegment src, long srcOff, int len, MemorySegment dst, long dstOff, int cap) {
        int op = 0;
        int ip = 0;
        do {
            int n = Math.min(MAX_BLOCK_INPUT, len - ip);
            if (op + BLOCK_HEADER_SIZE > cap) {
                return ERROR;
            }
            int room = Math.min(cap - op - BLOCK_HEADER_SIZE, n - 1);
            int c = room > 0 ? block.compress(src, srcOff + ip, n, dst, dstOff + op + BLOCK_HEADER_SIZE, room) : ERROR;
            if (c < 0) {
                if (op + BLOCK_HEADER_SIZE + n > cap) {
                    return ERROR;
                }
                dst.set(INT_LE, dstOff + op, n | UNCOMPRESSED_FLAG);
                MemorySegment.copy(src, srcOff + ip, dst, dstOff + op + BLOCK_HEADER_SIZE, n);
                c = n;
            } else {
                dst.set(INT_LE, dstOff + op, c);
            }
            op += BLOCK_HEADER_SIZE + c;
            ip += n;
        } while (ip < len);
        return op;
    }

    /**
     * Decodes a block stream of {@code srcLen} bytes into at most {@code cap} bytes; returns the
     * decompressed size or {@link #ERROR} (malformed, truncated, or too big for {@code cap}). A zero
     * block size (the frame end mark, which DOCA drops) ends the stream early. Allocation-free.
     */
    public static int decompress(MemorySegment src, long srcOff, int srcLen, MemorySegment dst, long dstOff, int cap) {
        if (srcLen <= 0) {
            return ERROR;
        }
        int ip = 0;
        int op = 0;
        while (ip < srcLen) {
            if (ip + BLOCK_HEADER_SIZE > srcLen) {
                return ERROR;
            }
            int word = src.get(INT_LE, srcOff + ip);
            ip += BLOCK_HEADER_SIZE;
            if (word == 0) {
                return op;
            }
            int size = word & ~UNCOMPRESSED_FLAG;
            if (size > srcLen - ip) {
                return ERROR;
            }
            int produced;
            if ((word & UNCOMPRESSED_FLAG) != 0) {
                if (size > cap - op) {
                    return ERROR;
                }
                MemorySegment.copy(src, srcOff + ip, dst, dstOff + op, size);
                produced = size;
            } else {
                produced = Lz4Block.decompress(src, srcOff + ip, size, dst, dstOff + op, cap - op);
                if (produced < 0) {
                    return ERROR;
                }
            }
            ip += size;
            op += produced;
        }
        return op;
    }
}
