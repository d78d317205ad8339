package io.jdoca.gga;

import io.jdoca.comch.ComchConnection;
import io.jdoca.comch.ComchConsumerTaskPostRecv;
import io.jdoca.comch.ComchProducerTaskSend;
import io.jdoca.compress.CompressTaskDecompressLz4Stream;
import io.jdoca.compress.Lz4Codec;
import io.jdoca.compress.Lz4StreamCodec;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.exec.Ctx;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.dma.DmaTaskMemcpy;
import io.jdoca.ec.EcMatrixType;
import io.jdoca.ec.EcTaskCreate;
import io.jdoca.ec.EcTaskRecover;
import io.jdoca.rdma.RdmaTaskReceive;
import io.jdoca.rdma.RdmaTaskSend;
import io.jdoca.storage.common.DataPathWorker;
import io.jdoca.storage.wire.ConnectionRole;
import io.jdoca.storage.wire.IoMessage;
import io.jdoca.storage.wire.IoMessageType;
import java.lang.foreign.MemorySegment;

/**
 * One data-path thread of the GGA service ({@code gga_offload_app_worker}): the agent that glues
 * the transaction machine ({@link GgaTxnMachine}) to its DOCA contexts ({@link GgaWorkerContexts}).
 * Context completions become machine events; the machine's {@link GgaTxnPort} calls become tasks.
 *
 * <p><b>Threads.</b> Everything runs on the worker's own thread, a {@link DataPathWorker} agent
 * ({@code gga-worker-<index>}). The control thread drives set-up through {@link #call}, which runs a
 * command on the worker thread between two progress calls (DOCA's {@code execute_control_command}),
 * and tear-down through {@link #close()}. After {@link #startDataPath} the data
 * path allocates nothing, takes no lock and throws nothing.
 */
public final class GgaWorker extends DataPathWorker implements GgaTxnPort {
    private static final System.Logger LOG = System.getLogger(GgaWorker.class.getName());

    /**
     * Configuration handed over by the control thread. {@code rdmaBind}: the RDMA contexts' TCP listeners'
     * address (null: all); {@code gidIndex}: their GID index ({@code -g}; -1: the device's).
     */
    public record Config(int index, Dev dev, Dev rdmaDev, GgaLayout layout, int transactions, long capacity,
            MemoryMap hostMap,
            MemoryMap scratchMap, long scratchOffset, ComchConnection comch, EcMatrixType matrixType, int recoverEveryN,
            DirtyStripes[] dirty, java.net.InetAddress rdmaBind, int gidIndex) {
    }

    private final Config cfg;
    private final GgaLayout layout;
    private final int n;
    private final int block;
    private final GgaWorkerContexts cx;

    // ---- worker-thread state
    /** Created with the tasks ({@link #prepareTasks}); null before. Published to metric readers by volatile. */
    private volatile GgaTxnMachine machine;
    private final IoMessage recvView = new IoMessage();
    private final Lz4StreamCodec lz4 = new Lz4StreamCodec(Lz4Codec.create());
    private MemorySegment scratch;
    private long scratchBase;
    private long hostBase;
    private boolean storageArmed;

    /** Starts the worker thread (it idles until given commands). */
    public GgaWorker(Config cfg) {
        super("gga-worker", cfg.index(), cfg.rdmaDev(), cfg.transactions(), cfg.rdmaBind(), cfg.gidIndex(), false);
        this.cfg = cfg;
        this.layout = cfg.layout();
        this.n = cfg.transactions();
        this.block = layout.blockSize();
        this.cx = new GgaWorkerContexts(cfg);
    }

    /**
     * Any thread (metrics): the data-path counters in the order of {@link GgaService#METRICS}, racy by
     * design (a scrape may be a moment behind), nothing added to the data path.
     */
    @Override
    public void readCounters(long[] into) {
        GgaTxnMachine m = machine;
        if (m != null) {
            m.readCounters(into);
        } else {
            java.util.Arrays.fill(into, 0, 10, 0L);
        }
    }

    // =================================================================== control commands (worker thread)

    /** {@code create_worker_objects}: memory, inventory, engine, contexts; RDMA contexts left STARTING. */
    public Void createObjects() {
        new RecoveryScheduler(cfg.recoverEveryN()); // validates --trigger-recovery-read-every-n up front
        scratch = cfg.scratchMap().segment();
        scratchBase = cfg.scratchMap().baseAddress();
        hostBase = cfg.hostMap().baseAddress();
        thread.attach(cx.createEngine());
        cx.createContexts(this);
        return null;
    }

    /** {@code doca_rdma_export} of the (role, target) context: the blob for create_rdma_connection_request. */
    public byte[] export(ConnectionRole role, int target) {
        return cx.export(role, target);
    }

    /** {@code doca_rdma_connect} with the target's blob from create_rdma_connection_response. */
    public DocaError connect(ConnectionRole role, int target, byte[] peerBlob) {
        return cx.connect(role, target, peerBlob);
    }

    /** {@code are_contexts_ready}: every context RUNNING. */
    public boolean contextsReady() {
        return cx.ready();
    }

    /** Names of contexts not RUNNING (for error messages). */
    public String notReady() {
        return cx.notReady();
    }

    /** The id the initiator's producer sends to. */
    public int consumerId() {
        return cx.consumer.id();
    }

    /** {@code prepare_tasks}: the transaction machine and every buffer and task of every transaction, once. */
    public Void prepareTasks() {
        GgaTxnMachine m = new GgaTxnMachine(cfg.index(), layout, n, cfg.capacity(), cfg.hostMap().length(),
                cfg.scratchOffset(), cfg.recoverEveryN(), cfg.dirty(), this);
        cx.prepareTasks(m);
        machine = m;
        return null;
    }

    /** Posts every receive and opens the data path; replies go to {@code remoteConsumerId}. */
    public Void startDataPath(int remoteConsumerId) {
        for (GgaWorkerContexts.TxnTasks t : cx.txns) {
            t.replyTask.setRemoteConsumerId(remoteConsumerId);
        }
        armStorage();
        beginDataPath();
        if (machine.startDataPath() != DocaError.SUCCESS) {
            throw new DocaException(DocaError.BAD_STATE, "worker " + cfg.index() + ": resync still running");
        }
        for (GgaWorkerContexts.TxnTasks t : cx.txns) {
            GgaWorkerContexts.check(t.recvTask.submit(), "post comch receive");
        }
        return null;
    }

    /** Posts the receives of the targets' responses (once per session): before a resync or the data path. */
    public Void armStorage() {
        if (storageArmed) {
            return null;
        }
        for (int r = 0; r < TargetRole.COUNT; r++) {
            for (RdmaTaskReceive rt : cx.receives[r]) {
                GgaWorkerContexts.check(rt.submit(), "post rdma receive");
            }
        }
        storageArmed = true;
        return null;
    }

    /**
     * Starts rebuilding every stripe of {@code cfg.dirty()[role]} on {@code role} from the two other
     * targets, with all transactions (before the data path starts: nothing else writes meanwhile).
     * Poll {@link #resyncActive()}; each stripe rewritten is cleared from the log.
     */
    public Void startResync(int role) {
        if (!machine.canStartResync(role)) {
            throw new DocaException(DocaError.BAD_STATE, "worker " + cfg.index() + ": cannot resync now");
        }
        armStorage();
        machine.startResync(role);
        return null;
    }

    /** Transactions still resyncing (0: done). */
    public int resyncActive() {
        GgaTxnMachine m = machine;
        return m == null ? 0 : m.resyncActive();
    }

    /** {rewritten, failed} stripes of the last resync. */
    public long[] resyncResult() {
        GgaTxnMachine m = machine;
        return m == null ? new long[2] : m.resyncResult();
    }

    /** Transactions between request and reply. */
    public int inflight() {
        GgaTxnMachine m = machine;
        return m == null ? 0 : m.inflight();
    }

    /** Ends the data path (no new work is refused: in-flight transactions finish; {@link #inflight()} drains). */
    @Override
    protected void onStopDataPath() {
        GgaTxnMachine m = machine;
        if (m != null) {
            m.stopDataPath();
        }
    }

    /** The control thread saw a target's control connection drop: treat the target as lost. */
    public Void targetLost(int role) {
        GgaTxnMachine m = machine;
        if (m != null) {
            m.targetLost(role);
        }
        return null;
    }

    // ---- a target rejoins mid-session (issue 29 item 6), driven step by step by the control thread

    /** Target {@code role} came back: frees its contexts' tasks and stops them (then poll {@link #targetIdle}). */
    public Void resetTarget(int role) {
        cx.resetTarget(role);
        return null;
    }

    /** True once target {@code role}'s contexts are IDLE. */
    public boolean targetIdle(int role) {
        return cx.targetIdle(role);
    }

    /** Starts target {@code role}'s contexts again; then {@link #export} / {@link #connect} as at set-up. */
    public Void restartTarget(int role) {
        cx.restartTarget(role);
        return null;
    }

    /** Target {@code role}'s contexts run: its request tasks and receives are made and posted again. */
    public Void rearmTarget(int role) {
        cx.rearmTarget(role);
        return null;
    }

    /** Pauses the data path: new host requests wait; poll {@link #inflight()} until 0. */
    public Void pauseDataPath() {
        machine.pauseDataPath();
        return null;
    }

    /** Target {@code role} takes writes again (paused, before its resync). */
    public Void targetBack(int role) {
        machine.targetBack(role);
        return null;
    }

    /** Resumes the data path: every request that waited is handed in again, in slot order. */
    public Void resumeDataPath() {
        GgaTxnMachine m = machine;
        m.resumeDataPath();
        for (int i = 0; i < n; i++) {
            if (m.unpark(i)) {
                GgaWorkerContexts.TxnTasks t = cx.txns[i];
                m.onHostRequest(i, t.host, t.hostBuf.dataLen());
            }
        }
        return null;
    }

    /** A consistent copy of this worker's counters. */
    public WorkerStats snapshot() {
        long hits = hitsSinceStart();
        long misses = missesSinceStart();
        GgaTxnMachine m = machine;
        return m == null ? new WorkerStats(cfg.index(), 0, 0, 0, 0, 0, 0, 0, 0, 0, hits, misses, 0, 0, 0, 0)
                : m.snapshot(hits, misses);
    }

    // =================================================================== tear-down (DataPathWorker.close)

    @Override
    protected void onTeardown() {
        GgaTxnMachine m = machine;
        if (m != null) {
            m.closeDataPath();
        }
    }

    @Override
    protected Ctx[] contexts() {
        return cx.contexts();
    }

    @Override
    protected void freeCompletedTasks() {
        cx.freeAllTasks();
    }

    /** The buffers belong to the contexts' inventory; it goes with them. */
    @Override
    protected Buf[][] buffers() {
        return new Buf[0][];
    }

    @Override
    protected void releaseMaps() {
        cx.releaseMemory();
    }

    // =================================================================== port (data path, allocation-free)

    @Override
    public DocaError sendRequest(int txn, int role, IoMessageType type, int size, long requesterOffset,
            long storageOffset) {
        GgaWorkerContexts.TxnTasks t = cx.txns[txn];
        t.req[role].setRequest(type, txn, size, requesterOffset, storageOffset);
        return t.sendTasks[role].submit();
    }

    @Override
    public DocaError fetchFromInitiator(int txn, long hostOffset) {
        GgaWorkerContexts.TxnTasks t = cx.txns[txn];
        if (cx.inv.reuseByData(t.dmaSrc, hostBase + hostOffset, block) != DocaError.SUCCESS) {
            return DocaError.INVALID_VALUE;
        }
        t.dmaDst.resetDataLen();
        return t.dmaTask.submit();
    }

    @Override
    public int packBlock(int txn) {
        long c = machine.chunkOffset(txn);
        // Container at chunk+0, stream scratch at chunk+B.
        return CompressedContainer.pack(lz4, scratch, c, block, scratch, c + layout.parityOffset(), scratch, c);
    }

    @Override
    public DocaError ecCreate(int txn) {
        GgaWorkerContexts.TxnTasks t = cx.txns[txn];
        t.ecDst.resetDataLen(); // parity from data_1 + data_2 (chunk+0, B bytes) to chunk+B
        return t.createTask.submit();
    }

    @Override
    public DocaError ecRecover(int txn, RecoveryKind plan) {
        GgaWorkerContexts.TxnTasks t = cx.txns[txn];
        EcTaskRecover task = t.recoverTask;
        if (plan == RecoveryKind.RECOVER_A) {
            t.recAOut.resetDataLen();
            task.setMatrix(cx.matrix, TargetRole.bit(TargetRole.DATA_1));
            task.setAvailableBlocks(t.recASrc);
            task.setRecoveredData(t.recAOut);
        } else {
            t.recBOut.resetDataLen();
            task.setMatrix(cx.matrix, TargetRole.bit(TargetRole.DATA_2));
            task.setAvailableBlocks(t.recBD1);
            task.setRecoveredData(t.recBOut);
        }
        return task.submit();
    }

    @Override
    public DocaError decompress(int txn, long hostOffset) {
        GgaWorkerContexts.TxnTasks t = cx.txns[txn];
        long chunkInMap = machine.chunkOffset(txn);
        int csize = CompressedContainer.validate(scratch, chunkInMap, block, block);
        if (csize < 0 || CompressedContainer.originalSize(scratch, chunkInMap) != block) {
            return DocaError.IO_FAILED;
        }
        if (cx.inv.reuseByData(t.decSrc, scratchBase + chunkInMap + CompressedContainer.OFF_DATA, csize)
                != DocaError.SUCCESS || cx.inv.reuseByAddr(t.decDst, hostBase + hostOffset,
                        block) != DocaError.SUCCESS) {
            return DocaError.INVALID_VALUE;
        }
        return t.decTask.submit();
    }

    @Override
    public DocaError reply(int txn, int result) {
        GgaWorkerContexts.TxnTasks t = cx.txns[txn];
        t.host.setResponse(result);
        return t.replyTask.submit();
    }

    @Override
    public void repostHostReceive(int txn) {
        GgaWorkerContexts.TxnTasks t = cx.txns[txn];
        t.hostBuf.resetDataLen();
        if (cx.consumer.state() == CtxState.RUNNING) {
            t.recvTask.submit();
        }
    }

    @Override
    public void reportTargetLost(int role) {
        // Rare event (once per lost target): logging here is acceptable.
        LOG.log(System.Logger.Level.WARNING, "worker " + cfg.index() + ": target " + TargetRole.name(role)
                + " lost; service degraded (reads served by recovery, writes logged dirty for it)");
    }

    // =================================================================== engine callbacks → machine events

    void onHostRecv(ComchConsumerTaskPostRecv task, long ud, long cud) {
        if (tearingDown) {
            return;
        }
        GgaWorkerContexts.TxnTasks t = cx.txns[(int) ud];
        requestArrived(ud);
        machine.onHostRequest((int) ud, t.host, t.hostBuf.dataLen());
    }

    void onHostRecvError(ComchConsumerTaskPostRecv task, long ud, long cud) {
        // Flushed by a consumer stop (or a message larger than 64 bytes, dropped by Comch): repost
        // unless shutting down, so one bad message does not cost a transaction slot.
        if (!tearingDown && cx.consumer.state() == CtxState.RUNNING) {
            task.buf().resetDataLen();
            task.submit();
        }
    }

    void onRequestSent(RdmaTaskSend task, long ud, long cud) {
        if (!tearingDown) {
            machine.onRequestSent((int) ud, (int) cud, task.status());
        }
    }

    void onResponse(RdmaTaskReceive task, long ud, long cud) {
        if (tearingDown) {
            return;
        }
        Buf b = task.dst();
        IoMessage r = recvView.wrap(b.segment(), b.dataOffset());
        int idx = IoRequestCheck.responseIndex(r, b.dataLen(), n);
        if (idx >= 0) {
            machine.onResponse(idx, (int) cud, IoRequestCheck.responseResult(r));
        }
        b.resetDataLen();
        if (cx.ioControl[(int) cud].state() == CtxState.RUNNING) {
            task.submit();
        }
    }

    void onRdmaState(long ud, Ctx ctx, CtxState prev, CtxState next) {
        GgaTxnMachine m = machine;
        if (m != null && !tearingDown && prev == CtxState.RUNNING && next != CtxState.RUNNING) {
            m.onTargetContextDown((int) ud);
        }
    }

    void onDmaDone(DmaTaskMemcpy task, long ud, long cud) {
        if (!tearingDown) {
            machine.onFetchedFromInitiator((int) ud, task.status());
        }
    }

    void onEcCreateDone(EcTaskCreate task, long ud, long cud) {
        if (!tearingDown) {
            machine.onEcCreated((int) ud, task.status());
        }
    }

    void onEcRecoverDone(EcTaskRecover task, long ud, long cud) {
        if (!tearingDown) {
            machine.onEcRecovered((int) ud, task.status());
        }
    }

    void onDecompressDone(CompressTaskDecompressLz4Stream task, long ud, long cud) {
        if (!tearingDown) {
            machine.onDecompressed((int) ud,
                    task.status() == DocaError.SUCCESS && cx.txns[(int) ud].decDst.dataLen() == block);
        }
    }

    void onReplySent(ComchProducerTaskSend task, long ud, long cud) {
        if (!tearingDown) {
            requestAnswered(ud);
            machine.onReplySent((int) ud, task.status());
        }
    }
}
