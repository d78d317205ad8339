package io.jdoca.rdma;

import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * Send-with-immediate task ({@code doca_rdma_task_send_imm}): a send that also delivers a 32-bit immediate to the
 * peer's receive task.
 *
 * <p>Engine thread only; re-arm with the setters and submit again, or free.
 */
public final class RdmaTaskSendImm extends RdmaTask {
    RdmaTaskSendImm(TaskPool<?> pool) {
        super(pool, K_SEND_IMM);
    }

    /** The local source buffer (list); its data section is sent/written. */
    public Buf src() {
        return local;
    }

    public void setSrc(Buf src) {
        this.local = src;
    }

    /** The 32-bit immediate delivered to the peer's receive task. */
    public int immediate() {
        return immediate;
    }

    public void setImmediate(int imm) {
        this.immediate = imm;
    }

}
