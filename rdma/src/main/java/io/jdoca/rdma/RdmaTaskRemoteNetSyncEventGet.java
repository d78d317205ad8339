package io.jdoca.rdma;

import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * Get-remote-sync-event task ({@code doca_rdma_task_remote_net_sync_event_get}): appends the 8-byte value of a remote
 * sync event to the local destination (RDMA_READ).
 *
 * <p>Engine thread only; re-arm with the setters and submit again, or free.
 */
public final class RdmaTaskRemoteNetSyncEventGet extends RdmaTask {
    RdmaTaskRemoteNetSyncEventGet(TaskPool<?> pool) {
        super(pool, K_SE_GET);
    }

    /** The remote sync event. */
    public SyncEventRemoteNet syncEvent() {
        return event;
    }

    public void setSyncEvent(SyncEventRemoteNet e) {
        this.event = e;
    }

    /** The local destination buffer (list); data is appended to its tailroom. */
    public Buf dst() {
        return local;
    }

    public void setDst(Buf dst) {
        this.local = dst;
    }

    /** Bytes appended (8); valid after successful completion. */
    public long resultLen() {
        return resultLen;
    }

}
