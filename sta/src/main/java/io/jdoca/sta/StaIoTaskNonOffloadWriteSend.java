package io.jdoca.sta;

import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskPool;
import java.lang.foreign.MemorySegment;

/**
 * Non-offload "write data + send completion" task ({@code doca_sta_io_non_offload_rdma_write_send}):
 * returns controller-to-host data (C2HData PDUs) and then the completion. The data segment must
 * stay valid until the task completes.
 *
 * <p>Not thread-safe: the IO context's progress-engine thread.
 */
public final class StaIoTaskNonOffloadWriteSend extends Task {
    StaQp qp;
    int cid;
    MemorySegment data;
    long dataOffset;
    int dataLen;
    int status;
    int dw0;
    int dw1;

    StaIoTaskNonOffloadWriteSend(TaskPool<?> pool) {
        super(pool);
    }

    /** Fills a task just allocated ({@link StaIo#taskNonOffloadWriteSendAllocInit}). */
    StaIoTaskNonOffloadWriteSend init(StaQp qp, int cid, MemorySegment data, long offset, int len, int status, int dw0,
                                      int dw1, long userData) {
        this.qp = qp;
        this.cid = cid;
        this.data = data;
        this.dataOffset = offset;
        this.dataLen = len;
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
        data = null;
    }
}
