package io.jdoca.rdma;

import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * Set-remote-sync-event task ({@code doca_rdma_task_remote_net_sync_event_notify_set}): sets a remote sync event to the
 * 8 bytes at the start of the source data (RDMA_WRITE).
 *
 * <p>Engine thread only; re-arm with the setters and submit again, or free.
 */
public final class RdmaTaskRemoteNetSyncEventNotifySet extends RdmaTask {
    RdmaTaskRemoteNetSyncEventNotifySet(TaskPool<?> pool) {
        super(pool, K_SE_SET);
    }

    /** The remote sync event. */
    public SyncEventRemoteNet syncEvent() {
        return event;
    }

    public void setSyncEvent(SyncEventRemoteNet e) {
        this.event = e;
    }

    /** The local source buffer (list); its data section is sent/written. */
    public Buf src() {
        return local;
    }

    public void setSrc(Buf src) {
        this.local = src;
    }

}
