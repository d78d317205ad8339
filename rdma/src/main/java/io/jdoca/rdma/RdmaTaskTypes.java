package io.jdoca.rdma;

import io.jdoca.core.DocaError;
import io.jdoca.core.exec.Ctx;
import io.jdoca.core.exec.TaskCallback;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * The task half of the RDMA context ({@link Rdma}, whose public API these methods are): DOCA's eleven RDMA task
 * types, their configuration ({@code doca_rdma_task_*_set_conf}) and allocation
 * ({@code doca_rdma_task_*_allocate_init}). A room of its own so that {@link Rdma} keeps the context's
 * configuration, connections and engine hooks.
 *
 * <p>Threads: engine thread only; allocation is allocation-free (the pools are pre-allocated at start).
 */
abstract class RdmaTaskTypes extends Ctx {
    final TaskPool<RdmaTaskReceive> receivePool;
    final TaskPool<RdmaTaskSend> sendPool;
    final TaskPool<RdmaTaskSendImm> sendImmPool;
    final TaskPool<RdmaTaskRead> readPool;
    final TaskPool<RdmaTaskWrite> writePool;
    final TaskPool<RdmaTaskWriteImm> writeImmPool;
    final TaskPool<RdmaTaskAtomicCmpSwp> cmpSwpPool;
    final TaskPool<RdmaTaskAtomicFetchAdd> fetchAddPool;
    final TaskPool<RdmaTaskRemoteNetSyncEventGet> seGetPool;
    final TaskPool<RdmaTaskRemoteNetSyncEventNotifySet> seSetPool;
    final TaskPool<RdmaTaskRemoteNetSyncEventNotifyAdd> seAddPool;

    RdmaTaskTypes() {
        super("rdma");
        receivePool = registerTaskType("receive", RdmaTaskReceive::new);
        sendPool = registerTaskType("send", RdmaTaskSend::new);
        sendImmPool = registerTaskType("send_imm", RdmaTaskSendImm::new);
        readPool = registerTaskType("read", RdmaTaskRead::new);
        writePool = registerTaskType("write", RdmaTaskWrite::new);
        writeImmPool = registerTaskType("write_imm", RdmaTaskWriteImm::new);
        cmpSwpPool = registerTaskType("atomic_cmp_swp", RdmaTaskAtomicCmpSwp::new);
        fetchAddPool = registerTaskType("atomic_fetch_add", RdmaTaskAtomicFetchAdd::new);
        seGetPool = registerTaskType("remote_net_sync_event_get", RdmaTaskRemoteNetSyncEventGet::new);
        seSetPool = registerTaskType("remote_net_sync_event_notify_set", RdmaTaskRemoteNetSyncEventNotifySet::new);
        seAddPool = registerTaskType("remote_net_sync_event_notify_add", RdmaTaskRemoteNetSyncEventNotifyAdd::new);
    }

    // ------------------------------------------------------------------ task configuration

    public DocaError taskReceiveSetConf(TaskCallback<RdmaTaskReceive> ok, TaskCallback<RdmaTaskReceive> err, int n) {
        return receivePool.setConf(ok, err, n);
    }

    public DocaError taskSendSetConf(TaskCallback<RdmaTaskSend> ok, TaskCallback<RdmaTaskSend> err, int n) {
        return sendPool.setConf(ok, err, n);
    }

    public DocaError taskSendImmSetConf(TaskCallback<RdmaTaskSendImm> ok, TaskCallback<RdmaTaskSendImm> err, int n) {
        return sendImmPool.setConf(ok, err, n);
    }

    public DocaError taskReadSetConf(TaskCallback<RdmaTaskRead> ok, TaskCallback<RdmaTaskRead> err, int n) {
        return readPool.setConf(ok, err, n);
    }

    public DocaError taskWriteSetConf(TaskCallback<RdmaTaskWrite> ok, TaskCallback<RdmaTaskWrite> err, int n) {
        return writePool.setConf(ok, err, n);
    }

    public DocaError taskWriteImmSetConf(TaskCallback<RdmaTaskWriteImm> ok, TaskCallback<RdmaTaskWriteImm> err, int n) {
        return writeImmPool.setConf(ok, err, n);
    }

    public DocaError taskAtomicCmpSwpSetConf(TaskCallback<RdmaTaskAtomicCmpSwp> ok,
            TaskCallback<RdmaTaskAtomicCmpSwp> err, int n) {
        return cmpSwpPool.setConf(ok, err, n);
    }

    public DocaError taskAtomicFetchAddSetConf(TaskCallback<RdmaTaskAtomicFetchAdd> ok,
            TaskCallback<RdmaTaskAtomicFetchAdd> err, int n) {
        return fetchAddPool.setConf(ok, err, n);
    }

    public DocaError taskRemoteNetSyncEventGetSetConf(TaskCallback<RdmaTaskRemoteNetSyncEventGet> ok,
            TaskCallback<RdmaTaskRemoteNetSyncEventGet> err, int n) {
        return seGetPool.setConf(ok, err, n);
    }

    public DocaError taskRemoteNetSyncEventNotifySetSetConf(TaskCallback<RdmaTaskRemoteNetSyncEventNotifySet> ok,
            TaskCallback<RdmaTaskRemoteNetSyncEventNotifySet> err, int n) {
        return seSetPool.setConf(ok, err, n);
    }

    public DocaError taskRemoteNetSyncEventNotifyAddSetConf(TaskCallback<RdmaTaskRemoteNetSyncEventNotifyAdd> ok,
            TaskCallback<RdmaTaskRemoteNetSyncEventNotifyAdd> err, int n) {
        return seAddPool.setConf(ok, err, n);
    }

    // ------------------------------------------------------------------ task allocation (data path)

    /** {@code doca_rdma_task_receive_allocate_init}: a receive for any connection of this context. */
    public RdmaTaskReceive taskReceiveAllocInit(Buf dst, long userData) {
        RdmaTaskReceive t = receivePool.alloc();
        if (t != null) {
            t.local = dst;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskSend taskSendAllocInit(RdmaConnection conn, Buf src, long userData) {
        RdmaTaskSend t = sendPool.alloc();
        if (t != null) {
            t.conn = conn;
            t.local = src;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskSendImm taskSendImmAllocInit(RdmaConnection conn, Buf src, int immediate, long userData) {
        RdmaTaskSendImm t = sendImmPool.alloc();
        if (t != null) {
            t.conn = conn;
            t.local = src;
            t.immediate = immediate;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskRead taskReadAllocInit(RdmaConnection conn, Buf remoteSrc, Buf localDst, long userData) {
        RdmaTaskRead t = readPool.alloc();
        if (t != null) {
            t.conn = conn;
            t.remote = remoteSrc;
            t.local = localDst;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskWrite taskWriteAllocInit(RdmaConnection conn, Buf localSrc, Buf remoteDst, long userData) {
        RdmaTaskWrite t = writePool.alloc();
        if (t != null) {
            t.conn = conn;
            t.local = localSrc;
            t.remote = remoteDst;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskWriteImm taskWriteImmAllocInit(RdmaConnection conn, Buf localSrc, Buf remoteDst, int immediate,
            long userData) {
        RdmaTaskWriteImm t = writeImmPool.alloc();
        if (t != null) {
            t.conn = conn;
            t.local = localSrc;
            t.remote = remoteDst;
            t.immediate = immediate;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskAtomicCmpSwp taskAtomicCmpSwpAllocInit(RdmaConnection conn, Buf remoteDst8, Buf localResult8,
            long cmp, long swap, long userData) {
        RdmaTaskAtomicCmpSwp t = cmpSwpPool.alloc();
        if (t != null) {
            t.conn = conn;
            t.remote = remoteDst8;
            t.local = localResult8;
            t.operand = cmp;
            t.swap = swap;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskAtomicFetchAdd taskAtomicFetchAddAllocInit(RdmaConnection conn, Buf remoteDst8, Buf localResult8,
            long add, long userData) {
        RdmaTaskAtomicFetchAdd t = fetchAddPool.alloc();
        if (t != null) {
            t.conn = conn;
            t.remote = remoteDst8;
            t.local = localResult8;
            t.operand = add;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskRemoteNetSyncEventGet taskRemoteNetSyncEventGetAllocInit(RdmaConnection conn,
            SyncEventRemoteNet event, Buf dst, long userData) {
        RdmaTaskRemoteNetSyncEventGet t = seGetPool.alloc();
        if (t != null) {
            t.conn = conn;
            t.event = event;
            t.local = dst;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskRemoteNetSyncEventNotifySet taskRemoteNetSyncEventNotifySetAllocInit(RdmaConnection conn,
            SyncEventRemoteNet event, Buf src, long userData) {
        RdmaTaskRemoteNetSyncEventNotifySet t = seSetPool.alloc();
        if (t != null) {
            t.conn = conn;
            t.event = event;
            t.local = src;
            t.setUserData(userData);
        }
        return t;
    }

    public RdmaTaskRemoteNetSyncEventNotifyAdd taskRemoteNetSyncEventNotifyAddAllocInit(RdmaConnection conn,
            SyncEventRemoteNet event, Buf result, long add, long userData) {
        RdmaTaskRemoteNetSyncEventNotifyAdd t = seAddPool.alloc();
        if (t != null) {
            t.conn = conn;
            t.event = event;
            t.local = result;
            t.operand = add;
            t.setUserData(userData);
        }
        return t;
    }
}
