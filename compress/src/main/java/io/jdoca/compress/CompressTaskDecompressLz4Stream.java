package io.jdoca.compress;

import io.jdoca.core.exec.TaskPool;

/**
 * {@code doca_compress_task_decompress_lz4_stream}: LZ4 frame data blocks without the frame header
 * and end mark (see {@link Lz4StreamCodec}), decoded into the destination's tailroom; with
 * {@code hasBlockChecksum} every block's xxHash32 is verified, with {@code blocksIndependent}
 * false matches may span blocks.
 *
 * <p>Not thread-safe: the Compress context's progress-engine thread only.
 */
public final class CompressTaskDecompressLz4Stream extends CompressTask {
    private boolean hasBlockChecksum;
    private boolean blocksIndependent;

    CompressTaskDecompressLz4Stream(TaskPool<?> pool) {
        super(pool);
    }

    /** {@code doca_compress_task_decompress_lz4_stream_get_has_block_checksum}. */
    public boolean hasBlockChecksum() {
        return hasBlockChecksum;
    }

    /** {@code doca_compress_task_decompress_lz4_stream_get_are_blocks_independent}. */
    public boolean areBlocksIndependent() {
        return blocksIndependent;
    }

    public void setHasBlockChecksum(boolean v) {
        this.hasBlockChecksum = v;
    }

    public void setAreBlocksIndependent(boolean v) {
        this.blocksIndependent = v;
    }

    /**
     * {@code doca_compress_task_decompress_lz4_stream_get_crc_cs}: CRC-32 (zlib/IEEE) of the decompressed output.
     * Valid after a successful completion on a context with {@link Compress#setChecksumsEnabled}; 0 otherwise.
     */
    public int crcCs() {
        return crcCs;
    }

    /**
     * {@code doca_compress_task_decompress_lz4_stream_get_xxh_cs}: xxHash-32 (seed 0) of the decompressed
     * output; valid as {@link #crcCs()}.
     */
    public int xxhCs() {
        return xxhCs;
    }
}
