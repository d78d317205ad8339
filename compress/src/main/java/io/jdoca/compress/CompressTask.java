package io.jdoca.compress;

import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * Common part of the Compress context's tasks: a source buffer whose data is read and a
 * destination buffer whose tailroom receives the output (its data length grows by the output
 * length on success; on failure nothing is appended). Not thread-safe: the context's engine thread.
 */
public abstract class CompressTask extends Task {
    private Buf src;
    private Buf dst;

    CompressTask(TaskPool<?> pool) {
        super(pool);
    }

    void init(Buf s, Buf d) {
        this.src = s;
        this.dst = d;
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
    }
}
