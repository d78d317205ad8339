package io.jdoca.compress;

import io.jdoca.core.exec.TaskPool;

/**
 * {@code the GGA write path's software LZ4 (jdoca task)}: the source data as an LZ4 block stream
 * exactly as the DOCA sbc generator writes it: LZ4F blocks of at most 64 KiB, independent, no
 * checksums, level 1, without frame header and end mark (see {@link Lz4StreamCodec}).
 *
 * <p>Not thread-safe: the Compress context's progress-engine thread only.
 */
public final class CompressTaskCompressLz4Stream extends CompressTask {
    CompressTaskCompressLz4Stream(TaskPool<?> pool) {
        super(pool);
    }
}
