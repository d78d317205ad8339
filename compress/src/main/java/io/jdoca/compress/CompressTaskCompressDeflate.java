package io.jdoca.compress;

import io.jdoca.core.exec.TaskPool;

/**
 * {@code doca_compress_task_compress_deflate}: raw deflate (RFC 1951) of the source data into the destination's tailroom.
 *
 * <p>Not thread-safe: the Compress context's progress-engine thread only.
 */
public final class CompressTaskCompressDeflate extends CompressTask {
    CompressTaskCompressDeflate(TaskPool<?> pool) {
        super(pool);
    }
}
