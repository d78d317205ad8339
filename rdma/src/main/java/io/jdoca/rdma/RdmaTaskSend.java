package io.jdoca.rdma;

import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * Send task ({@code doca_rdma_task_send}): sends the source data section as one message; the peer must have a receive
 * task posted.
 *
 * <p>Engine thread only; re-arm with the setters and submit again, or free.
 */
public final class RdmaTaskSend extends RdmaTask {
    RdmaTaskSend(TaskPool<?> pool) {
        super(pool, K_SEND);
    }

    /** The local source buffer (list); its data section is sent/written. */
    public Buf src() {
        return local;
    }

    public void setSrc(Buf src) {
        this.local = src;
    }

}
