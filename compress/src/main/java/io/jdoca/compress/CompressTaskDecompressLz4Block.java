package io.jdoca.compress;

import io.jdoca.core.exec.TaskPool;

/**
 * {@code doca_compress_task_decompress_lz4_block}: one LZ4 block (block format, no framing) in the
 * source data, decoded into the destination's tailroom.
 *
 * <p>Not thread-safe: the Compress context's progress-engine thread only.
 */
public final class CompressTaskDecompressLz4Block extends CompressTask {
    CompressTaskDecompressLz4Block(TaskPool<?> pool) {
        super(pool);
    }

    /**
     * {@code doca_compress_task_decompress_lz4_block_get_crc_cs}: CRC-32 (zlib/IEEE) of the decompressed output.
     * Valid after a successful completion on a context with {@link Compress#setChecksumsEnabled}; 0 otherwise.
     */
    public int crcCs() {
        return crcCs;
    }

    /**
     * {@code doca_compress_task_decompress_lz4_block_get_xxh_cs}: xxHash-32 (seed 0) of the decompressed
     * output; valid as {@link #crcCs()}.
     */
    public int xxhCs() {
        return xxhCs;
    }
}
