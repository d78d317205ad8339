package io.jdoca.compress;

import io.jdoca.core.exec.TaskPool;

/**
 * {@code doca_compress_task_decompress_lz4_block}: one LZ4 block (block format, no framing) in the source data, decoded into the destination's tailroom.
 *
 * <p>Not thread-safe: the Compress context's progress-engine thread only.
 */
public final class CompressTaskDecompressLz4Block extends CompressTask {
    CompressTaskDecompressLz4Block(TaskPool<?> pool) {
        super(pool);
    }
}
