package io.jdoca.rdma;

import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * Read task ({@code doca_rdma_task_read}): reads the data section of a remote buffer (from the peer's exported map,
 * RDMA_READ) and appends it to the local destination.
 *
 * <p>Engine thread only; re-arm with the setters and submit again, or free.
 */
public final class RdmaTaskRead extends RdmaTask {
    RdmaTaskRead(TaskPool<?> pool) {
        super(pool, K_READ);
    }

    /** The remote source buffer: its data section is read. */
    public Buf src() {
        return remote;
    }

    public void setSrc(Buf src) {
        this.remote = src;
    }

    /** The local destination buffer (list). */
    public Buf dst() {
        return local;
    }

    public void setDst(Buf dst) {
        this.local = dst;
    }

    /** Bytes read; valid after successful completion. */
    public long resultLen() {
        return resultLen;
    }

}
