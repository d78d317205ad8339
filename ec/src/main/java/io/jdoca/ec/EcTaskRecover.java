package io.jdoca.ec;

import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * {@code doca_ec_task_recover}: the first k surviving blocks, in block-index order (one buffer or a
 * chain whose buffers hold whole blocks), &rarr; the missing blocks, appended in ascending index
 * order to the destination's tailroom. The matrix is a recover matrix
 * ({@link Ec#matrixCreateRecover}), or a coding matrix plus a loss bitmask, or a 1-redundancy
 * Vandermonde coding matrix alone (parity is XOR, so the one missing block is the XOR of the
 * others whichever it is: the GGA service's use).
 *
 * <p>Not thread-safe: the EC context's progress-engine thread only.
 */
public final class EcTaskRecover extends Task {
    private EcMatrix matrix;
    private long missingMask;
    private Buf available;
    private Buf recovered;

    EcTaskRecover(TaskPool<?> pool) {
        super(pool);
    }

    void init(EcMatrix m, long mask, Buf src, Buf dst) {
        this.matrix = m;
        this.missingMask = mask;
        this.available = src;
        this.recovered = dst;
    }

    public EcMatrix matrix() {
        return matrix;
    }

    /** Loss bitmask (bit i = block i lost) used with a coding matrix; 0 with a recover matrix. */
    public long missingMask() {
        return missingMask;
    }

    /** {@code doca_ec_task_recover_get_available_blocks}. */
    public Buf availableBlocks() {
        return available;
    }

    /** {@code doca_ec_task_recover_get_recovered_data}. */
    public Buf recoveredData() {
        return recovered;
    }

    public void setMatrix(EcMatrix m, long missingMask) {
        this.matrix = m;
        this.missingMask = missingMask;
    }

    public void setAvailableBlocks(Buf b) {
        this.available = b;
    }

    public void setRecoveredData(Buf b) {
        this.recovered = b;
    }

    @Override
    protected void onFree() {
        matrix = null;
        available = null;
        recovered = null;
        missingMask = 0;
    }
}
