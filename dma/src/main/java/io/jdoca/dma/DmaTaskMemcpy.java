package io.jdoca.dma;

import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * The DMA memcpy task ({@code doca_dma_task_memcpy}): copies the data of {@code src} (a buffer or a
 * gather list) into the tailroom of {@code dst} (a buffer or a scatter list), growing the
 * destination's data length. Re-arm with {@link #setSrc}/{@link #setDst} and submit again.
 *
 * <p>Not thread-safe: the DMA context's progress-engine thread only.
 */
public final class DmaTaskMemcpy extends Task {
    private Buf src;
    private Buf dst;

    DmaTaskMemcpy(TaskPool<?> pool) {
        super(pool);
    }

    public Buf src() {
        return src;
    }

    public Buf dst() {
        return dst;
    }

    /** {@code doca_dma_task_memcpy_set_src}. */
    public void setSrc(Buf src) {
        this.src = src;
    }

    /** {@code doca_dma_task_memcpy_set_dst}. */
    public void setDst(Buf dst) {
        this.dst = dst;
    }

    @Override
    protected void onFree() {
        src = null;
        dst = null;
    }
}
