package io.jdoca.rdma;

import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * Write task ({@code doca_rdma_task_write}): writes the local source data to the tail of a remote buffer (peer's
 * exported map, RDMA_WRITE).
 *
 * <p>Engine thread only; re-arm with the setters and submit again, or free.
 */
public final class RdmaTaskWrite extends RdmaTask {
    RdmaTaskWrite(TaskPool<?> pool) {
        super(pool, K_WRITE);
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

}
