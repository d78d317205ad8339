package io.jdoca.sta;

import io.jdoca.core.DocaError;
import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.sta.nvmf.NvmfHostDataSink;
import java.lang.foreign.MemorySegment;

/**
 * Non-offload "fetch data from host" task ({@code doca_sta_io_non_offload_rdma_read}): for a
 * non-offloaded command whose host data was not in the capsule, requests it (R2T) and receives
 * it (H2CData) into the destination. Completes once all bytes arrived; the application then
 * answers the command with a send task.
 *
 * <p>Not thread-safe: the IO context's progress-engine thread.
 */
public final class StaIoTaskNonOffloadRead extends Task implements NvmfHostDataSink {
    StaQp qp;
    int cid;
    MemorySegment dst;
    long dstOffset;
    int len;

    StaIoTaskNonOffloadRead(TaskPool<?> pool) {
        super(pool);
    }

    /** Fills a task just allocated ({@link StaIo#taskNonOffloadReadAllocInit}). */
    StaIoTaskNonOffloadRead init(StaQp qp, int cid, MemorySegment dst, long offset, int len, long userData) {
        this.qp = qp;
        this.cid = cid;
        this.dst = dst;
        this.dstOffset = offset;
        this.len = len;
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
    public MemorySegment destination() {
        return dst;
    }

    @Override
    public long destinationOffset() {
        return dstOffset;
    }

    /** The fetch ended (engine thread): the task completes with {@code status}. */
    @Override
    public void fetched(DocaError status) {
        qp.io().completeTask(this, status);
    }

    public int length() {
        return len;
    }

    @Override
    protected void onFree() {
        qp = null;
        dst = null;
    }
}
