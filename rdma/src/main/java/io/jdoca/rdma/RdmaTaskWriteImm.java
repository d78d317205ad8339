package io.jdoca.rdma;

import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * Write-with-immediate task ({@code doca_rdma_task_write_imm}): a write that also consumes one of the peer's posted
 * receive tasks, which reports the immediate.
 *
 * <p>Engine thread only; re-arm with the setters and submit again, or free.
 */
public final class RdmaTaskWriteImm extends RdmaTask {
    RdmaTaskWriteImm(TaskPool<?> pool) {
        super(pool, K_WRITE_IMM);
    }

    /** The local source buffer (list): its data section is written. */
    public Buf src() {
        return local;
    }

    public void setSrc(Buf src) {
        this.local = src;
    }

    /** The remote destination buffer: data is appended after its data section, which grows. */
    public Buf dst() {
        return remote;
    }

    public void setDst(Buf dst) {
        this.remote = dst;
    }

    /** The 32-bit immediate delivered to the peer's receive task. */
    public int immediate() {
        return immediate;
    }

    public void setImmediate(int imm) {
        this.immediate = imm;
    }

}
