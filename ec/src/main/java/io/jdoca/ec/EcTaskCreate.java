package io.jdoca.ec;

import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * {@code doca_ec_task_create}: k data blocks (one contiguous source buffer, or a chain whose
 * buffers each hold whole blocks) &rarr; m redundancy blocks appended to the destination's
 * tailroom (a buffer or a chain). Block length = source length / k, a multiple of 64.
 *
 * <p>Not thread-safe: the EC context's progress-engine thread only.
 */
public final class EcTaskCreate extends Task {
    private EcMatrix matrix;
    private Buf dataBlocks;
    private Buf rdncBlocks;

    EcTaskCreate(TaskPool<?> pool) {
        super(pool);
    }

    void init(EcMatrix m, Buf src, Buf dst) {
        this.matrix = m;
        this.dataBlocks = src;
        this.rdncBlocks = dst;
    }

    public EcMatrix matrix() {
        return matrix;
    }

    /** {@code doca_ec_task_create_get_original_data_bufs}. */
    public Buf originalDataBlocks() {
        return dataBlocks;
    }

    /** {@code doca_ec_task_create_get_rdnc_bufs}. */
    public Buf rdncBlocks() {
        return rdncBlocks;
    }

    public void setMatrix(EcMatrix m) {
        this.matrix = m;
    }

    public void setOriginalDataBlocks(Buf b) {
        this.dataBlocks = b;
    }

    public void setRdncBlocks(Buf b) {
        this.rdncBlocks = b;
    }

    @Override
    protected void onFree() {
        matrix = null;
        dataBlocks = null;
        rdncBlocks = null;
    }
}
