package io.jdoca.compress;

import io.jdoca.core.exec.TaskPool;

/**
 * {@code doca_compress_task_decompress_deflate}: one complete raw-deflate stream in the source data, inflated into the destination's tailroom.
 *
 * <p>Not thread-safe: the Compress context's progress-engine thread only.
 */
public final class CompressTaskDecompressDeflate extends CompressTask {
    CompressTaskDecompressDeflate(TaskPool<?> pool) {
        super(pool);
    }
}
