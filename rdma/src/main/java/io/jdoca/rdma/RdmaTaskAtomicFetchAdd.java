package io.jdoca.rdma;

import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * Atomic fetch-and-add task ({@code doca_rdma_task_atomic_fetch_add}): adds to 8 bytes of remote memory (RDMA_ATOMIC)
 * and returns the previous value.
 *
 * <p>Engine thread only; re-arm with the setters and submit again, or free.
 */
public final class RdmaTaskAtomicFetchAdd extends RdmaTask {
    RdmaTaskAtomicFetchAdd(TaskPool<?> pool) {
        super(pool, K_FADD);
    }

    /** The remote 8-byte destination (its data address, 8-byte aligned). */
    public Buf dst() {
        return remote;
    }

    public void setDst(Buf dst) {
        this.remote = dst;
    }

    /** The local buffer the original remote value (8 bytes, native order) is appended to. */
    public Buf result() {
        return local;
    }

    public void setResult(Buf result) {
        this.local = result;
    }

    public long addData() {
        return operand;
    }

    public void setAddData(long v) {
        this.operand = v;
    }

}
