package io.jdoca.compress;

import io.jdoca.core.exec.TaskPool;

/**
 * {@code doca_compress_task_decompress_deflate}: one complete raw-deflate stream in the source data,
 * inflated into the destination's tailroom.
 *
 * <p>Not thread-safe: the Compress context's progress-engine thread only.
 */
public final class CompressTaskDecompressDeflate extends CompressTask {
    CompressTaskDecompressDeflate(TaskPool<?> pool) {
        super(pool);
    }

    /**
     * {@code doca_compress_task_decompress_deflate_get_crc_cs}: CRC-32 (zlib/IEEE) of the decompressed output.
     * Valid after a successful completion on a context with {@link Compress#setChecksumsEnabled}; 0 otherwise.
     */
    public int crcCs() {
        return crcCs;
    }

    /**
     * {@code doca_compress_task_decompress_deflate_get_adler_cs}: Adler-32 of the decompressed output; valid
     * as {@link #crcCs()}.
     */
    public int adlerCs() {
        return adlerCs;
    }
}
