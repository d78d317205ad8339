package io.jdoca.compress;

import io.jdoca.core.exec.TaskPool;

/**
 * {@code doca_compress_task_compress_deflate}: raw deflate (RFC 1951) of the source data into the
 * destination's tailroom.
 *
 * <p>Not thread-safe: the Compress context's progress-engine thread only.
 */
public final class CompressTaskCompressDeflate extends CompressTask {
    CompressTaskCompressDeflate(TaskPool<?> pool) {
        super(pool);
    }

    /**
     * {@code doca_compress_task_compress_deflate_get_crc_cs}: CRC-32 (zlib/IEEE) of the source.
     * Valid after a successful completion on a context with {@link Compress#setChecksumsEnabled}; 0 otherwise.
     */
    public int crcCs() {
        return crcCs;
    }

    /** {@code doca_compress_task_compress_deflate_get_adler_cs}: Adler-32 of the source; valid as {@link #crcCs()}. */
    public int adlerCs() {
        return adlerCs;
    }
}
