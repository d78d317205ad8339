package io.jdoca.compress;

import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * Common part of the Compress context's tasks: a source buffer (or list) whose data is read and a
 * destination buffer (or list) whose tailroom receives the output (data lengths grow by the output
 * on success, filling the list's tailrooms in order; on failure nothing is appended). Not
 * thread-safe: the context's engine thread.
 */
public abstract class CompressTask extends Task {
    private Buf src;
    private Buf dst;
    // Checksums of the uncompressed data of the last successful run (Compress#setChecksumsEnabled).
    int crcCs;
    int adlerCs;
    int xxhCs;

    CompressTask(TaskPool<?> pool) {
        super(pool);
    }

    void init(Buf s, Buf d) {
        this.src = s;
        this.dst = d;
        clearChecksums();
    }

    final void clearChecksums() {
        crcCs = 0;
        adlerCs = 0;
        xxhCs = 0;
    }

    /** {@code doca_compress_task_*_get_src}. */
    public final Buf src() {
        return src;
    }

    /** {@code doca_compress_task_*_get_dst}. */
    public final Buf dst() {
        return dst;
    }

    /** {@code doca_compress_task_*_set_src}. */
    public final void setSrc(Buf b) {
        this.src = b;
    }

    /** {@code doca_compress_task_*_set_dst}. */
    public final void setDst(Buf b) {
        this.dst = b;
    }

    @Override
    protected void onFree() {
        src = null;
        dst = null;
        clearChecksums();
    }
}
