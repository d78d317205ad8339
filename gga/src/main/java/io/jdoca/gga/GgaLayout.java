package io.jdoca.gga;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;

/**
 * The block, half-block and chunk arithmetic of the GGA service (reference §5 "Split" and
 * "Memory"). Each target stores half-blocks of {@code b} bytes; the initiator sees blocks of
 * {@code B = 2b}. A transaction owns a chunk of its worker's scratch region:
 *
 * <pre>
 *   chunk + 0      b    data_1 half (read / recover_b source, write source)
 *   chunk + b      b    data_2 half
 *   chunk + B      1.5B parity half (reads), LZ4 stream scratch then parity (writes)
 * </pre>
 * Chunk size 2.5 B, since this build always has the write path (reference §5 table).
 *
 * <p>Immutable; any thread; allocation-free.
 */
public final class GgaLayout {
    /** Reference §5: one IO may span up to 255 blocks ({@code advance_block} loops). */
    public static final int MAX_BLOCKS_PER_IO = 255;
    /** doca_ec needs blocks in multiples of 64 bytes (reference §3 generator flags). */
    public static final int EC_ALIGN = 64;

    private final int blockSize;
    private final int halfSize;

    /**
     * @param halfSize the targets' block size b (a multiple of 64; {@link #EC_ALIGN})
     * @throws DocaException INVALID_VALUE if b is not a positive multiple of 64 or 2.5 B overflows
     */
    public GgaLayout(int halfSize) {
        if (halfSize <= 0 || halfSize % EC_ALIGN != 0 || halfSize > (Integer.MAX_VALUE / 5)) {
            throw new DocaException(DocaError.INVALID_VALUE,
                    "target block size must be a positive multiple of " + EC_ALIGN + ", got " + halfSize);
        }
        this.halfSize = halfSize;
        this.blockSize = 2 * halfSize;
    }

    /** The initiator-visible block size B (2× the targets'). */
    public int blockSize() {
        return blockSize;
    }

    /** The targets' block size b = B/2. */
    public int halfSize() {
        return halfSize;
    }

    /** Bytes per transaction chunk: 2.5 B (reference §5 "Memory", write path compiled). */
    public long chunkSize() {
        return 5L * halfSize;
    }

    public long data1Offset() {
        return 0;
    }

    public long data2Offset() {
        return halfSize;
    }

    /** The parity half and, on writes, the LZ4 scratch (1.5 B of room). */
    public long parityOffset() {
        return blockSize;
    }

    /** Room for the LZ4 stream scratch at {@link #parityOffset()}. */
    public int streamScratchSize() {
        return 3 * halfSize;
    }

    /** Capacity the service reports to the initiator: 2× a target's (reference §1 step 4). */
    public static long reportedCapacity(long targetCapacity) {
        return 2 * targetCapacity;
    }

    /**
     * Reference §5: target storage offset = (initiator storage_offset / B) × b + block_index × b.
     */
    public long targetOffset(long storageOffset, int blockIndex) {
        return (storageOffset / blockSize) * halfSize + (long) blockIndex * halfSize;
    }

    /**
     * Number of blocks an initiator IO spans, or a negated {@link DocaError} code: INVALID_VALUE
     * when io_size is 0 or not whole blocks, or more than {@link #MAX_BLOCKS_PER_IO} blocks.
     */
    public int blocksInIo(long ioSize) {
        if (ioSize <= 0 || ioSize % blockSize != 0) {
            return -DocaError.INVALID_VALUE.code();
        }
        long n = ioSize / blockSize;
        return n > MAX_BLOCKS_PER_IO ? -DocaError.INVALID_VALUE.code() : (int) n;
    }

    /** True if the IO lies inside the initiator-visible capacity and starts on a block boundary. */
    public boolean inRange(long storageOffset, long ioSize, long reportedCapacity) {
        return storageOffset >= 0 && storageOffset % blockSize == 0 && ioSize >= 0
                && storageOffset <= reportedCapacity - ioSize;
    }
}
