package io.jdoca.gga;

import io.jdoca.comch.ComchConsumer;
import io.jdoca.comch.ComchConsumerTaskPostRecv;
import io.jdoca.comch.ComchProducer;
import io.jdoca.comch.ComchProducerTaskSend;
import io.jdoca.compress.Compress;
import io.jdoca.compress.CompressTaskDecompressLz4Stream;
import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.exec.Ctx;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.exec.Task;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.dma.Dma;
import io.jdoca.dma.DmaTaskMemcpy;
import io.jdoca.ec.Ec;
import io.jdoca.ec.EcMatrix;
import io.jdoca.ec.EcTaskCreate;
import io.jdoca.ec.EcTaskRecover;
import io.jdoca.rdma.Rdma;
import io.jdoca.rdma.RdmaConnection;
import io.jdoca.rdma.RdmaExport;
import io.jdoca.rdma.RdmaTaskReceive;
import io.jdoca.rdma.RdmaTaskSend;
import io.jdoca.storage.common.AppSupport;
import io.jdoca.storage.common.DataPathWorker;
import io.jdoca.storage.wire.ConnectionRole;
import io.jdoca.storage.wire.IoMessage;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The DOCA objects of one {@link GgaWorker}: its progress engine, message memory and buffer
 * inventory, the Comch consumer and producer, two RDMA contexts per target (io_data, which the target
 * uses to read and write the scratch memory, and io_control for IO messages), the DMA, EC and
 * Compress contexts, and every transaction's pre-allocated buffers and tasks. Builds them
 * ({@code create_worker_objects}, {@code prepare_tasks}) and tears them down; completions go to the
 * worker's callbacks.
 *
 * <p>Worker thread only (built and torn down through the worker's control commands).
 */
final class GgaWorkerContexts {
    private static final System.Logger LOG = System.getLogger(GgaWorkerContexts.class.getName());
    static final int MSG = IoMessage.SIZE;
    /** Buffers per transaction: host msg, 3 requests, DMA 2, EC create 2, recover 5, decompress 2 (+3 receives). */
    private static final int BUFS_PER_TXN = 15;

    private final GgaWorker.Config cfg;
    private final int n;
    ProgressEngine pe;
    private Arena arena;
    private MemoryMap msgMap;
    BufInventory inv;
    ComchConsumer consumer;
    private ComchProducer producer;
    private Dma dma;
    private Ec ec;
    EcMatrix matrix;
    private Compress compress;
    final Rdma[] ioData = new Rdma[TargetRole.COUNT];
    final Rdma[] ioControl = new Rdma[TargetRole.COUNT];
    private final RdmaConnection[] dataConn = new RdmaConnection[TargetRole.COUNT];
    private final RdmaConnection[] controlConn = new RdmaConnection[TargetRole.COUNT];
    private final List<Ctx> ctxs = new ArrayList<>();
    /** Per transaction: its buffers and tasks (index = transaction = task user data). */
    TxnTasks[] txns;
    RdmaTaskReceive[][] receives;
    /** The buffers of {@link #receives}, kept so a target's receives can be made again when it rejoins. */
    private Buf[][] receiveBufs;

    GgaWorkerContexts(GgaWorker.Config cfg) {
        this.cfg = cfg;
        this.n = cfg.transactions();
    }

    /** The first half of {@code create_worker_objects}: memory, inventory and the progress engine. */
    ProgressEngine createEngine() {
        Dev dev = cfg.dev();
        arena = Arena.ofShared();
        MemorySegment msgMem = arena.allocate((long) MSG * n * 7, 64);
        msgMap = MemoryMap.create();
        check(msgMap.setMemrange(msgMem), "message map range");
        check(msgMap.addDev(dev), "message map dev");
        if (cfg.rdmaDev() != dev) {
            // IO messages go to the targets over RDMA sends: registered on the RDMA device at start.
            check(msgMap.addDev(cfg.rdmaDev()), "message map rdma dev");
        }
        check(msgMap.setPermissions(AccessFlags.LOCAL_READ_WRITE), "message map permissions");
        check(msgMap.start(), "message map start");
        inv = BufInventory.create(n * (BUFS_PER_TXN + TargetRole.COUNT) + 8);
        check(inv.start(), "inventory start");
        pe = ProgressEngine.create();
        return pe;
    }

    /** The rest of {@code create_worker_objects}: every context, started (RDMA ones left STARTING). */
    void createContexts(GgaWorker w) {
        Dev dev = cfg.dev();
        consumer = ComchConsumer.create(cfg.comch(), msgMap);
        check(consumer.setMaxMsgSize(MSG), "consumer msg size");
        check(consumer.setRingSlots(2 * n), "consumer ring");
        check(consumer.taskPostRecvSetConf(w::onHostRecv, w::onHostRecvError, n), "post_recv conf");
        producer = ComchProducer.create(cfg.comch());
        check(producer.taskSendSetConf(w::onReplySent, w::onReplySent, n), "producer send conf");
        dma = Dma.create(dev);
        check(dma.taskMemcpySetConf(w::onDmaDone, w::onDmaDone, n), "dma memcpy conf");
        ec = Ec.create(dev);
        check(ec.taskCreateSetConf(w::onEcCreateDone, w::onEcCreateDone, n), "ec create conf");
        check(ec.taskRecoverSetConf(w::onEcRecoverDone, w::onEcRecoverDone, n), "ec recover conf");
        compress = Compress.create(dev);
        check(compress.taskDecompressLz4StreamSetConf(w::onDecompressDone, w::onDecompressDone, n),
                "decompress lz4 stream conf");
        for (int r = 0; r < TargetRole.COUNT; r++) {
            ioData[r] = createRdma(cfg);
            ioControl[r] = createRdma(cfg);
            ioData[r].setUserData(r);
            check(ioData[r].setPermissions(
                    AccessFlags.LOCAL_READ_WRITE | AccessFlags.RDMA_READ | AccessFlags.RDMA_WRITE),
                    "rdma io_data permissions");
            // io_data carries no tasks of ours (the target drives it); a tiny pool keeps it startable.
            check(ioData[r].taskSendSetConf(GgaWorkerContexts::onUnusedSend, GgaWorkerContexts::onUnusedSend, 1),
                    "rdma io_data conf");
            check(ioData[r].setStateChangedCallback(w::onRdmaState), "rdma io_data state cb");
            ioControl[r].setUserData(r);
            check(ioControl[r].setPermissions(AccessFlags.LOCAL_READ_WRITE), "rdma io_control permissions");
            check(ioControl[r].setSendQueueSize(Math.max(16, 2 * n)), "rdma send queue");
            check(ioControl[r].setRecvQueueSize(Math.max(16, 2 * n)), "rdma recv queue");
            check(ioControl[r].setQueueDepth(2 * n + 16), "rdma queue depth");
            check(ioControl[r].taskSendSetConf(w::onRequestSent, w::onRequestSent, n), "rdma send conf");
            check(ioControl[r].taskReceiveSetConf(w::onResponse, GgaWorkerContexts::onResponseError, n),
                    "rdma receive conf");
            check(ioControl[r].setStateChangedCallback(w::onRdmaState), "rdma io_control state cb");
        }
        ctxs.add(consumer);
        ctxs.add(producer);
        ctxs.add(dma);
        ctxs.add(ec);
        ctxs.add(compress);
        for (int r = 0; r < TargetRole.COUNT; r++) {
            ctxs.add(ioData[r]);
            ctxs.add(ioControl[r]);
        }
        for (Ctx c : ctxs) {
            check(c.setQueueDepth(Math.max(c.queueDepth(), 2 * n + 16)), "queue depth");
            check(pe.connectCtx(c), "connect " + c.name());
        }
        for (Ctx c : ctxs) {
            DocaError e = c.start();
            if (e != DocaError.SUCCESS && e != DocaError.IN_PROGRESS) {
                String what = "worker " + cfg.index() + ": start " + c.name();
                throw c instanceof Rdma ? AppSupport.rdmaStartFailed(e, what, cfg.rdmaDev(), cfg.gidIndex())
                        : new DocaException(e, what);
            }
        }
        matrix = ec.matrixCreate(cfg.matrixType(), 2, 1);
    }

    /**
     * One of the worker's RDMA contexts (io_data or io_control of a target), on the RDMA device: its TCP
     * listeners where the operator says ({@code --listen-address}), its GID index {@code -g} when given
     * ({@link DataPathWorker#createRdma}). Worker thread.
     */
    static Rdma createRdma(GgaWorker.Config cfg) {
        return DataPathWorker.createRdma(cfg.rdmaDev(), cfg.rdmaBind(), cfg.gidIndex());
    }

    /** {@code doca_rdma_export} of the (role, target) context: the blob for create_rdma_connection_request. */
    byte[] export(ConnectionRole role, int target) {
        Rdma r = role == ConnectionRole.IO_DATA ? ioData[target] : ioControl[target];
        RdmaExport x = r.export();
        if (role == ConnectionRole.IO_DATA) {
            dataConn[target] = x.connection();
        } else {
            controlConn[target] = x.connection();
        }
        return x.blob();
    }

    /** {@code doca_rdma_connect} with the target's blob from create_rdma_connection_response. */
    DocaError connect(ConnectionRole role, int target, byte[] peerBlob) {
        return role == ConnectionRole.IO_DATA ? ioData[target].connect(peerBlob, dataConn[target])
                : ioControl[target].connect(peerBlob, controlConn[target]);
    }

    /** {@code are_contexts_ready}: every context RUNNING. */
    boolean ready() {
        for (Ctx c : ctxs) {
            if (c.state() != CtxState.RUNNING) {
                return false;
            }
        }
        return true;
    }

    /** Names of contexts not RUNNING (for error messages). */
    String notReady() {
        StringBuilder sb = new StringBuilder();
        for (Ctx c : ctxs) {
            if (c.state() != CtxState.RUNNING) {
                sb.append(c).append(' ');
            }
        }
        return sb.toString().trim();
    }

    /** {@code prepare_tasks}: every buffer and task of every transaction, allocated once. */
    void prepareTasks(GgaTxnMachine machine) {
        GgaLayout layout = cfg.layout();
        int half = layout.halfSize();
        int block = layout.blockSize();
        long scratchBase = cfg.scratchMap().baseAddress();
        long hostBase = cfg.hostMap().baseAddress();
        txns = new TxnTasks[n];
        MemorySegment msgs = msgMap.segment();
        long msgBase = msgMap.baseAddress();
        for (int i = 0; i < n; i++) {
            TxnTasks t = new TxnTasks();
            long m = msgBase + (long) MSG * 4 * i;
            t.hostBuf = buf(inv.getByAddr(msgMap, m, MSG));
            t.host.wrap(msgs, m - msgBase);
            t.recvTask = require(consumer.taskPostRecvAllocInit(t.hostBuf, i), consumer);
            t.replyTask = require(producer.taskSendAllocInit(t.hostBuf, null, 0, 0, i), producer);
            for (int r = 0; r < TargetRole.COUNT; r++) {
                long a = m + (long) MSG * (1 + r);
                t.reqBuf[r] = buf(inv.getByData(msgMap, a, MSG));
                t.req[r].wrap(msgs, a - msgBase);
                t.sendTasks[r] = require(ioControl[r].taskSendAllocInit(controlConn[r], t.reqBuf[r], i), ioControl[r]);
            }
            long c = scratchBase + machine.chunkOffset(i);
            t.dmaSrc = buf(inv.getByData(cfg.hostMap(), hostBase, block));
            t.dmaDst = buf(inv.getByAddr(cfg.scratchMap(), c, block));
            t.dmaTask = require(dma.taskMemcpyAllocInit(t.dmaSrc, t.dmaDst, i), dma);
            t.ecSrc = buf(inv.getByData(cfg.scratchMap(), c, block));
            t.ecDst = buf(inv.getByAddr(cfg.scratchMap(), c + layout.parityOffset(), half));
            t.createTask = require(ec.taskCreateAllocInit(matrix, t.ecSrc, t.ecDst, i), ec);
            // recover_a: data_2 and parity are adjacent (chunk+b, 2b bytes) → data_1 at chunk+0.
            t.recASrc = buf(inv.getByData(cfg.scratchMap(), c + layout.data2Offset(), 2L * half));
            t.recAOut = buf(inv.getByAddr(cfg.scratchMap(), c, half));
            // recover_b: data_1 (chunk+0) chained with parity (chunk+B) → data_2 at chunk+b.
            t.recBD1 = buf(inv.getByData(cfg.scratchMap(), c, half));
            t.recBDp = buf(inv.getByData(cfg.scratchMap(), c + layout.parityOffset(), half));
            check(t.recBD1.chainList(t.recBDp), "chain recover sources");
            t.recBOut = buf(inv.getByAddr(cfg.scratchMap(), c + layout.data2Offset(), half));
            t.recoverTask = require(ec.taskRecoverAllocInit(matrix, 1, t.recASrc, t.recAOut, i), ec);
            t.decSrc = buf(inv.getByData(cfg.scratchMap(), c + CompressedContainer.OFF_DATA, 1));
            t.decDst = buf(inv.getByAddr(cfg.hostMap(), hostBase, block));
            t.decTask = require(compress.taskDecompressLz4StreamAllocInit(false, true, t.decSrc, t.decDst, i),
                    compress);
            txns[i] = t;
        }
        receives = new RdmaTaskReceive[TargetRole.COUNT][n];
        receiveBufs = new Buf[TargetRole.COUNT][n];
        for (int r = 0; r < TargetRole.COUNT; r++) {
            for (int i = 0; i < n; i++) {
                long a = msgBase + (long) MSG * (4L * n + (long) r * n + i);
                receiveBufs[r][i] = buf(inv.getByAddr(msgMap, a, MSG));
                receives[r][i] = require(ioControl[r].taskReceiveAllocInit(receiveBufs[r][i], i), ioControl[r]);
            }
        }
    }

    // ------------------------------------------------------------------ a target rejoins mid-session

    /**
     * Target {@code r} was lost: frees the tasks its two RDMA contexts own (those still in flight are
     * freed by {@link #targetIdle} once flushed) and stops the contexts, so that they can start again.
     */
    void resetTarget(int r) {
        freeTargetTasks(r);
        for (Rdma c : new Rdma[] {ioData[r], ioControl[r]}) {
            if (c.state() == CtxState.RUNNING || c.state() == CtxState.STARTING) {
                c.stop();
            }
        }
    }

    /** True once both contexts of target {@code r} are IDLE (frees tasks flushed meanwhile). */
    boolean targetIdle(int r) {
        freeTargetTasks(r);
        return ioData[r].state() == CtxState.IDLE && ioControl[r].state() == CtxState.IDLE;
    }

    private void freeTargetTasks(int r) {
        for (TxnTasks t : txns) {
            if (t.sendTasks[r] != null && t.sendTasks[r].free() == DocaError.SUCCESS) {
                t.sendTasks[r] = null;
            }
        }
        for (int i = 0; i < n; i++) {
            if (receives[r][i] != null && receives[r][i].free() == DocaError.SUCCESS) {
                receives[r][i] = null;
            }
        }
    }

    /** Starts target {@code r}'s contexts again (STARTING until their new connections are up). */
    void restartTarget(int r) {
        for (Rdma c : new Rdma[] {ioData[r], ioControl[r]}) {
            DocaError e = c.start();
            if (e != DocaError.SUCCESS && e != DocaError.IN_PROGRESS) {
                throw new DocaException(e, "worker " + cfg.index() + ": restart " + c.name() + " for "
                        + TargetRole.name(r));
            }
        }
    }

    /** Target {@code r}'s contexts run again: every transaction's request task and receive, made and posted. */
    void rearmTarget(int r) {
        for (int i = 0; i < n; i++) {
            TxnTasks t = txns[i];
            t.sendTasks[r] = require(ioControl[r].taskSendAllocInit(controlConn[r], t.reqBuf[r], i), ioControl[r]);
            receiveBufs[r][i].resetDataLen();
            receives[r][i] = require(ioControl[r].taskReceiveAllocInit(receiveBufs[r][i], i), ioControl[r]);
            check(receives[r][i].submit(), "post rdma receive");
        }
    }

    /** The contexts in the order they are stopped (the worker's tear-down, {@code DataPathWorker.close}). */
    Ctx[] contexts() {
        return ctxs.toArray(new Ctx[0]);
    }

    /** Last step of the tear-down: the message memory, once every context is IDLE (else left, with a warning). */
    void releaseMemory() {
        if (allIdle()) {
            if (msgMap != null) {
                msgMap.stop();
                msgMap.close();
                msgMap = null;
            }
            if (arena != null) {
                arena.close();
                arena = null;
            }
        } else {
            LOG.log(System.Logger.Level.WARNING, "worker " + cfg.index() + ": contexts not idle after 5 s: "
                    + notReady());
        }
        pe = null;
    }

    private boolean allIdle() {
        boolean idleAll = true;
        for (Ctx c : ctxs) {
            idleAll &= c.state() == CtxState.IDLE;
        }
        return idleAll;
    }

    void freeAllTasks() {
        if (txns != null) {
            for (TxnTasks t : txns) {
                free(t.recvTask);
                free(t.replyTask);
                free(t.dmaTask);
                free(t.createTask);
                free(t.recoverTask);
                free(t.decTask);
                for (Task s : t.sendTasks) {
                    free(s);
                }
            }
        }
        if (receives != null) {
            for (RdmaTaskReceive[] rs : receives) {
                for (RdmaTaskReceive r : rs) {
                    free(r);
                }
            }
        }
    }

    private static void free(Task t) {
        if (t != null) {
            t.free(); // BAD_STATE (ignored) while in flight or already free
        }
    }

    private static void onResponseError(RdmaTaskReceive task, long ud, long cud) {
        // Flushed by a context stop: the target is gone (see GgaWorker.onRdmaState) or we are tearing down.
    }

    private static void onUnusedSend(RdmaTaskSend task, long ud, long cud) {
    }

    private static Buf buf(Buf b) {
        if (b == null) {
            throw new DocaException(DocaError.NO_MEMORY, "buffer inventory exhausted or range outside its map");
        }
        return b;
    }

    private static <T extends Task> T require(T t, Ctx c) {
        if (t == null) {
            throw new DocaException(c.lastError(), "task allocation on " + c.name());
        }
        return t;
    }

    static void check(DocaError e, String what) {
        if (e != DocaError.SUCCESS) {
            throw new DocaException(e, what);
        }
    }

    /** One transaction's pre-allocated buffers and tasks (DOCA's {@code transaction_context}, IO half). */
    static final class TxnTasks {
        final IoMessage host = new IoMessage();
        final IoMessage[] req = {new IoMessage(), new IoMessage(), new IoMessage()};
        Buf hostBuf;
        final Buf[] reqBuf = new Buf[TargetRole.COUNT];
        ComchConsumerTaskPostRecv recvTask;
        ComchProducerTaskSend replyTask;
        final RdmaTaskSend[] sendTasks = new RdmaTaskSend[TargetRole.COUNT];
        DmaTaskMemcpy dmaTask;
        Buf dmaSrc;
        Buf dmaDst;
        EcTaskCreate createTask;
        Buf ecSrc;
        Buf ecDst;
        EcTaskRecover recoverTask;
        Buf recASrc;
        Buf recAOut;
        Buf recBD1;
        Buf recBDp;
        Buf recBOut;
        CompressTaskDecompressLz4Stream decTask;
        Buf decSrc;
        Buf decDst;
    }
}
