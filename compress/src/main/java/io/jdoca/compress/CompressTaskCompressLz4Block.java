package io.jdoca.compress;

import io.jdoca.core.exec.TaskPool;

/**
 * {@code doca_compress_task_compress_lz4_block (jdoca; DOCA's hardware only decompresses)}: the source
 * data as one LZ4 block.
 *
 * <p>Not thread-safe: the Compress context's progress-engine thread only.
 */
public final class CompressTaskCompressLz4Block extends CompressTask {
    CompressTaskCompressLz4Block(TaskPool<?> pool) {
        super(pool);
    }
}
