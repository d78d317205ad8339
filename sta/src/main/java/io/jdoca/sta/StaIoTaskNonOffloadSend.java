package io.jdoca.sta;

import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskPool;

/**
 * Non-offload "send completion" task ({@code doca_sta_io_non_offload_rdma_send}): sends the
 * 16-byte completion (a CapsuleResp PDU) of a non-offloaded command. The engine fills SQHD and
 * SQID.
 *
 * <p>Not thread-safe: the IO context's progress-engine thread.
 */
public final class StaIoTaskNonOffloadSend extends Task {
    StaQp qp;
    int cid;
    int status;
    int dw0;
    int dw1;

    StaIoTaskNonOffloadSend(TaskPool<?> pool) {
        super(pool);
    }

    /** Fills a task just allocated ({@link StaIo#taskNonOffloadSendAllocInit}). */
    StaIoTaskNonOffloadSend init(StaQp qp, int cid, int status, int dw0, int dw1, long userData) {
        this.qp = qp;
        this.cid = cid;
        this.status = status;
        this.dw0 = dw0;
        this.dw1 = dw1;
        setUserData(userData);
        return this;
    }

    public StaQp qp() {
        return qp;
    }

    public int cid() {
        return cid;
    }

    @Override
    protected void onFree() {
        qp = null;
    }
}
