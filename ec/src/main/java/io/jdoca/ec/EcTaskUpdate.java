package io.jdoca.ec;

import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * {@code doca_ec_task_update}: for each updated data block (see {@link Ec#matrixCreateUpdate}) its
 * old then new contents, followed by the m old redundancy blocks, all as one buffer or a chain
 * &rarr; the m new redundancy blocks appended to the destination's tailroom. Equal to a fresh
 * create over the updated data, at the cost of (2u + m) block reads instead of k.
 *
 * <p>Not thread-safe: the EC context's progress-engine thread only.
 */
public final class EcTaskUpdate extends Task {
    private EcMatrix matrix;
    private Buf src;
    private Buf dst;

    EcTaskUpdate(TaskPool<?> pool) {
        super(pool);
    }

    void init(EcMatrix m, Buf s, Buf d) {
        this.matrix = m;
        this.src = s;
        this.dst = d;
    }

    public EcMatrix matrix() {
        return matrix;
    }

    /** {@code doca_ec_task_update_get_original_updated_and_rdnc_blocks}. */
    public Buf originalUpdatedAndRdncBlocks() {
        return src;
    }

    /** {@code doca_ec_task_update_get_updated_rdnc_blocks}. */
    public Buf updatedRdncBlocks() {
        return dst;
    }

    public void setMatrix(EcMatrix m) {
        this.matrix = m;
    }

    public void setOriginalUpdatedAndRdncBlocks(Buf b) {
        this.src = b;
    }

    public void setUpdatedRdncBlocks(Buf b) {
        this.dst = b;
    }

    @Override
    protected void onFree() {
        matrix = null;
        src = null;
        dst = null;
    }
}
