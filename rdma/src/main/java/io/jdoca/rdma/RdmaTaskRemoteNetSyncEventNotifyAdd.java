package io.jdoca.rdma;

import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * Add-remote-sync-event task ({@code doca_rdma_task_remote_net_sync_event_notify_add}): atomically adds to a remote
 * sync event and appends its previous value to the result buffer (RDMA_ATOMIC).
 *
 * <p>Engine thread only; re-arm with the setters and submit again, or free.
 */
public final class RdmaTaskRemoteNetSyncEventNotifyAdd extends RdmaTask {
    RdmaTaskRemoteNetSyncEventNotifyAdd(TaskPool<?> pool) {
        super(pool, K_SE_ADD);
    }

    /** The remote sync event. */
    public SyncEventRemoteNet syncEvent() {
        return event;
    }

    public void setSyncEvent(SyncEventRemoteNet e) {
        this.event = e;
    }

    /** The local buffer the previous value (8 bytes) is appended to. */
    public Buf result() {
        return local;
    }

    public void setResult(Buf result) {
        this.local = result;
    }

    public long addData() {
        return operand;
    }

    public void setAddData(long v) {
        this.operand = v;
    }

}
