package io.jdoca.rdma;

import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * Atomic compare-and-swap task ({@code doca_rdma_task_atomic_cmp_swp}): 8 bytes of remote memory (RDMA_ATOMIC), atomic
 * with respect to every other atomic on that address from any connection.
 *
 * <p>Engine thread only; re-arm with the setters and submit again, or free.
 */
public final class RdmaTaskAtomicCmpSwp extends RdmaTask {
    RdmaTaskAtomicCmpSwp(TaskPool<?> pool) {
        super(pool, K_CAS);
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

    public long cmpData() {
        return operand;
    }

    public void setCmpData(long v) {
        this.operand = v;
    }

    public long swapData() {
        return swap;
    }

    public void setSwapData(long v) {
        this.swap = v;
    }

}
