package io.jdoca.storage.gga;

import io.jdoca.comch.ComchConnection;
import io.jdoca.comch.ComchConsumer;
import io.jdoca.comch.ComchConsumerTaskPostRecv;
import io.jdoca.comch.ComchProducer;
import io.jdoca.comch.ComchProducerTaskSend;
import io.jdoca.compress.Compress;
import io.jdoca.compress.CompressTaskDecompressLz4Stream;
import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.agent.EngineWorker;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.exec.Ctx;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.exec.Task;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.dma.Dma;
import io.jdoca.dma.DmaTaskMemcpy;
import io.jdoca.ec.Ec;
import io.jdoca.ec.EcMatrix;
import io.jdoca.ec.EcMatrixType;
import io.jdoca.ec.EcTaskCreate;
import io.jdoca.ec.EcTaskRecover;
import io.jdoca.rdma.Rdma;
import io.jdoca.rdma.RdmaConnection;
import io.jdoca.rdma.RdmaExport;
import io.jdoca.rdma.RdmaTaskReceive;
import io.jdoca.rdma.RdmaTaskSend;
import io.jdoca.storage.common.ConnectionRole;
import io.jdoca.storage.common.IoMessage;
import io.jdoca.storage.common.IoMessageType;
import io.jdoca.compress.Lz4Codec;
import io.jdoca.compress.Lz4StreamCodec;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * One data-path thread of the GGA service ({@code gga_offload_app_worker}): its own
 * {@link ProgressEngine} with a Comch consumer and producer (initiator IO messages), two RDMA
 * contexts per target (io_data, which the target uses to read and write this service's scratch
 * memory, and io_control for IO messages), and the DMA, EC and Compress contexts. Every step of a
 * transaction is a task on one of them; the work happens in their completion callbacks
 * ({@link TxnState} documents the flow).
 *
 * <p><b>Threads.</b> Everything runs on the worker's own thread. The control thread drives set-up
 * and tear-down through {@link #call}, which runs a command on the worker thread between two
 * progress calls (DOCA's {@code execute_control_command}). After {@link #startDataPath} the data
 * path allocates nothing, takes no lock and throws nothing.
 */
public final class GgaWorker implements io.jdoca.storage.common.WorkerCounters {
    private static final System.Logger LOG = System.getLogger(GgaWorker.class.getName());
    private static final int MSG = IoMessage.SIZE;
    /** Buffers per transaction: host msg, 3 requests, DMA 2, EC create 2, recover 5, decompress 2 (+3 receives). */
    private static final int BUFS_PER_TXN = 15;

    /** Configuration handed over by the control thread. */
    public record Config(int index, Dev dev, GgaLayout layout, int transactions, long capacity, MemoryMap hostMap,
            MemoryMap scratchMap, long scratchOffset, ComchConnection comch, EcMatrixType matrixType, int recoverEveryN,
            DirtyStripes[] dirty, java.net.InetAddress rdmaBind) {
    }

    private final Config cfg;
    private final GgaLayout layout;
    private final int n;
    private final int half;
    private final int block;
    /** The thread and its loop: commands between progress calls (the agent runtime's storage worker). */
    private final EngineWorker worker;

    // ---- worker-thread state
    private ProgressEngine pe;
    private Arena arena;
    private MemoryMap msgMap;
    private BufInventory inv;
    private ComchConsumer consumer;
    private ComchProducer producer;
    private Dma dma;
    private Ec ec;
    private EcMatrix matrix;
    private Compress compress;
    private final Rdma[] ioData = new Rdma[TargetRole.COUNT];
    private final Rdma[] ioControl = new Rdma[TargetRole.COUNT];
    private final RdmaConnection[] dataConn = new RdmaConnection[TargetRole.COUNT];
    private final RdmaConnection[] controlConn = new RdmaConnection[TargetRole.COUNT];
    private final List<Ctx> ctxs = new ArrayList<>();
    private Txn[] txns;
    private RdmaTaskReceive[][] receives;
    private final IoMessage recvView = new IoMessage();
    private final Lz4StreamCodec lz4 = new Lz4StreamCodec(Lz4Codec.create());
    private RecoveryScheduler scheduler;
    private MemorySegment scratch;
    private long scratchBase;
    private long hostBase;
    private long hostLen;
    private boolean dataPath;
    private boolean tearingDown;
    private int downMask;
    private int inflight;
    private boolean storageArmed;
    // ---- resync (worker thread): one target rebuilt stripe by stripe from the two survivors
    private int resyncRole = -1;
    private long resyncCursor;
    private int resyncActive;
    private long resynced;
    private long resyncFailures;

    // ---- stats (worker thread; read through snapshot())
    private long ops;
    private long reads;
    private long writes;
    private long recoveries;
    private long degradedReads;
    private long failedIos;
    private long refusedWrites;
    private long tooBigWrites;
    private long refetches;
    private long illegalTransitions;
    private long hitsAtStart;
    private long missesAtStart;
    /** Operations before the allocation baseline is taken (class loading, JIT, first-use caches). */
    static final long WARMUP_OPS = 2048;
    private long allocAtStart = -1;
    private long allocOnDataPath;
    private long opsMeasured;

    /** Starts the worker thread (it idles until given commands). */
    public GgaWorker(Config cfg) {
        this.cfg = cfg;
        this.layout = cfg.layout();
        this.n = cfg.transactions();
        this.half = layout.halfSize();
        this.block = layout.blockSize();
        // Same back-off as the other storage apps (several busy processes share 2 cores).
        this.worker = new EngineWorker("gga-worker-" + cfg.index(),
                IdleStrategy.backoff(64, 16, 1_000, Long.getLong("jdoca.gga.maxParkNanos", 50_000L)), null);
    }

    /** Pins the worker thread to {@code cpu} ({@code --cpu}; control path); IllegalArgumentException when refused. */
    void pin(int cpu) {
        worker.pin(cpu);
    }

    /** Runs {@code c} on the worker thread and waits for it (control path); failures are DocaExceptions. */
    public <T> T call(Callable<T> c, long timeoutNanos) {
        try {
            return worker.execute(c, timeoutNanos);
        } catch (DocaException e) {
            if (e.error() == DocaError.TIME_OUT) {
                throw new DocaException(DocaError.TIME_OUT, "worker " + cfg.index() + " did not answer a control command");
            }
            throw e;
        } catch (RuntimeException e) {
            throw new DocaException(DocaError.UNEXPECTED, "worker " + cfg.index() + ": " + e, e);
        }
    }

    @Override
    public int index() {
        return cfg.index();
    }

    private static final java.lang.invoke.VarHandle VH_OPS;
    private static final java.lang.invoke.VarHandle VH_READS;
    private static final java.lang.invoke.VarHandle VH_WRITES;
    private static final java.lang.invoke.VarHandle VH_FAILEDIOS;
    private static final java.lang.invoke.VarHandle VH_REFUSEDWRITES;
    private static final java.lang.invoke.VarHandle VH_TOOBIGWRITES;
    private static final java.lang.invoke.VarHandle VH_ILLEGALTRANSITIONS;
    private static final java.lang.invoke.VarHandle VH_RECOVERIES;
    private static final java.lang.invoke.VarHandle VH_DEGRADEDREADS;
    private static final java.lang.invoke.VarHandle VH_REFETCHES;

    static {
        try {
            java.lang.invoke.MethodHandles.Lookup l = java.lang.invoke.MethodHandles.lookup();
            VH_OPS = l.findVarHandle(GgaWorker.class, "ops", long.class);
            VH_READS = l.findVarHandle(GgaWorker.class, "reads", long.class);
            VH_WRITES = l.findVarHandle(GgaWorker.class, "writes", long.class);
            VH_FAILEDIOS = l.findVarHandle(GgaWorker.class, "failedIos", long.class);
            VH_REFUSEDWRITES = l.findVarHandle(GgaWorker.class, "refusedWrites", long.class);
            VH_TOOBIGWRITES = l.findVarHandle(GgaWorker.class, "tooBigWrites", long.class);
            VH_ILLEGALTRANSITIONS = l.findVarHandle(GgaWorker.class, "illegalTransitions", long.class);
            VH_RECOVERIES = l.findVarHandle(GgaWorker.class, "recoveries", long.class);
            VH_DEGRADEDREADS = l.findVarHandle(GgaWorker.class, "degradedReads", long.class);
            VH_REFETCHES = l.findVarHandle(GgaWorker.class, "refetches", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Any thread (metrics): the data-path counters in the order of {@link GgaService#METRICS}. Opaque
     * reads of the worker's plain single-writer longs: racy by design (a scrape may be a moment
     * behind), nothing added to the data path.
     */
    @Override
    public void readCounters(long[] into) {
        into[0] = (long) VH_OPS.getOpaque(this);
        into[1] = (long) VH_READS.getOpaque(this);
        into[2] = (long) VH_WRITES.getOpaque(this);
        into[3] = (long) VH_FAILEDIOS.getOpaque(this);
        into[4] = (long) VH_REFUSEDWRITES.getOpaque(this);
        into[5] = (long) VH_TOOBIGWRITES.getOpaque(this);
        into[6] = (long) VH_ILLEGALTRANSITIONS.getOpaque(this);
        into[7] = (long) VH_RECOVERIES.getOpaque(this);
        into[8] = (long) VH_DEGRADEDREADS.getOpaque(this);
        into[9] = (long) VH_REFETCHES.getOpaque(this);
    }

    // =================================================================== control commands (worker thread)

    /** {@code create_worker_objects}: memory, inventory, engine, contexts; RDMA contexts left STARTING. */
    public Void createObjects() {
        Dev dev = cfg.dev();
        scheduler = new RecoveryScheduler(cfg.recoverEveryN());
        scratch = cfg.scratchMap().segment();
        scratchBase = cfg.scratchMap().baseAddress();
        hostBase = cfg.hostMap().baseAddress();
        hostLen = cfg.hostMap().length();
        arena = Arena.ofShared();
        MemorySegment msgMem = arena.allocate((long) MSG * n * 7, 64);
        msgMap = MemoryMap.create();
        check(msgMap.setMemrange(msgMem), "message map range");
        check(msgMap.addDev(dev), "message map dev");
        check(msgMap.setPermissions(AccessFlags.LOCAL_READ_WRITE), "message map permissions");
        check(msgMap.start(), "message map start");
        inv = BufInventory.create(n * (BUFS_PER_TXN + TargetRole.COUNT) + 8);
        check(inv.start(), "inventory start");
        pe = ProgressEngine.create();
        worker.attach(pe);

        consumer = ComchConsumer.create(cfg.comch(), msgMap);
        check(consumer.setMaxMsgSize(MSG), "consumer msg size");
        check(consumer.setRingSlots(2 * n), "consumer ring");
        check(consumer.taskPostRecvSetConf(this::onHostRecv, this::onHostRecvError, n), "post_recv conf");
        producer = ComchProducer.create(cfg.comch());
        check(producer.taskSendSetConf(this::onReplySent, this::onReplySent, n), "producer send conf");
        dma = Dma.create(dev);
        check(dma.taskMemcpySetConf(this::onDmaDone, this::onDmaDone, n), "dma memcpy conf");
        ec = Ec.create(dev);
        check(ec.taskCreateSetConf(this::onEcCreateDone, this::onEcCreateDone, n), "ec create conf");
        check(ec.taskRecoverSetConf(this::onEcRecoverDone, this::onEcRecoverDone, n), "ec recover conf");
        compress = Compress.create(dev);
        check(compress.taskDecompressLz4StreamSetConf(this::onDecompressDone, this::onDecompressDone, n),
                "decompress lz4 stream conf");
        for (int r = 0; r < TargetRole.COUNT; r++) {
            ioData[r] = Rdma.create(dev);
            ioControl[r] = Rdma.create(dev);
            if (cfg.rdmaBind() != null) {
                // The RDMA contexts' TCP listeners bind where the operator says (--listen-address).
                check(ioData[r].setTcpAddress(cfg.rdmaBind(), null), "rdma io_data tcp address");
                check(ioControl[r].setTcpAddress(cfg.rdmaBind(), null), "rdma io_control tcp address");
            }
            ioData[r].setUserData(r);
            check(ioData[r].setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.RDMA_READ | AccessFlags.RDMA_WRITE),
                    "rdma io_data permissions");
            // io_data carries no tasks of ours (the target drives it); a tiny pool keeps it startable.
            check(ioData[r].taskSendSetConf(this::onUnusedSend, this::onUnusedSend, 1), "rdma io_data conf");
            check(ioData[r].setStateChangedCallback(this::onRdmaState), "rdma io_data state cb");
            ioControl[r].setUserData(r);
            check(ioControl[r].setPermissions(AccessFlags.LOCAL_READ_WRITE), "rdma io_control permissions");
            check(ioControl[r].setSendQueueSize(Math.max(16, 2 * n)), "rdma send queue");
            check(ioControl[r].setRecvQueueSize(Math.max(16, 2 * n)), "rdma recv queue");
            check(ioControl[r].setQueueDepth(2 * n + 16), "rdma queue depth");
            check(ioControl[r].taskSendSetConf(this::onRequestSent, this::onRequestSent, n), "rdma send conf");
            check(ioControl[r].taskReceiveSetConf(this::onResponse, this::onResponseError, n), "rdma receive conf");
            check(ioControl[r].setStateChangedCallback(this::onRdmaState), "rdma io_control state cb");
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
                throw new DocaException(e, "worker " + cfg.index() + ": start " + c.name());
            }
        }
        matrix = ec.matrixCreate(cfg.matrixType(), 2, 1);
        return null;
    }

    /** {@code doca_rdma_export} of the (role, target) context: the blob for create_rdma_connection_request. */
    public byte[] export(ConnectionRole role, int target) {
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
    public DocaError connect(ConnectionRole role, int target, byte[] peerBlob) {
        return role == ConnectionRole.IO_DATA ? ioData[target].connect(peerBlob, dataConn[target])
                : ioControl[target].connect(peerBlob, controlConn[target]);
    }

    /** {@code are_contexts_ready}: every context RUNNING. */
    public boolean contextsReady() {
        for (Ctx c : ctxs) {
            if (c.state() != CtxState.RUNNING) {
                return false;
            }
        }
        return true;
    }

    /** Names of contexts not RUNNING (for error messages). */
    public String notReady() {
        StringBuilder sb = new StringBuilder();
        for (Ctx c : ctxs) {
            if (c.state() != CtxState.RUNNING) {
                sb.append(c).append(' ');
            }
        }
        return sb.toString().trim();
    }

    /** The id the initiator's producer sends to. */
    public int consumerId() {
        return consumer.id();
    }

    /** {@code prepare_tasks}: every buffer and task of every transaction, allocated once. */
    public Void prepareTasks() {
        txns = new Txn[n];
        MemorySegment msgs = msgMap.segment();
        long msgBase = msgMap.baseAddress();
        for (int i = 0; i < n; i++) {
            long chunkOff = cfg.scratchOffset() + i * layout.chunkSize();
            Txn t = new Txn(i, chunkOff);
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
            long c = scratchBase + chunkOff;
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
            t.decTask = require(compress.taskDecompressLz4StreamAllocInit(false, true, t.decSrc, t.decDst, i), compress);
            txns[i] = t;
        }
        receives = new RdmaTaskReceive[TargetRole.COUNT][n];
        for (int r = 0; r < TargetRole.COUNT; r++) {
            for (int i = 0; i < n; i++) {
                long a = msgBase + (long) MSG * (4L * n + (long) r * n + i);
                Buf b = buf(inv.getByAddr(msgMap, a, MSG));
                receives[r][i] = require(ioControl[r].taskReceiveAllocInit(b, i), ioControl[r]);
            }
        }
        return null;
    }

    /** Posts every receive and opens the data path; replies go to {@code remoteConsumerId}. */
    public Void startDataPath(int remoteConsumerId) {
        for (Txn t : txns) {
            t.replyTask.setRemoteConsumerId(remoteConsumerId);
        }
        armStorage();
        if (resyncActive != 0) {
            throw new DocaException(DocaError.BAD_STATE, "worker " + cfg.index() + ": resync still running");
        }
        hitsAtStart = pe.hits();
        missesAtStart = pe.misses();
        allocAtStart = -1;
        dataPath = true;
        for (Txn t : txns) {
            check(t.recvTask.submit(), "post comch receive");
        }
        return null;
    }

    /** Posts the receives of the targets' responses (once per session): before a resync or the data path. */
    public Void armStorage() {
        if (storageArmed) {
            return null;
        }
        for (int r = 0; r < TargetRole.COUNT; r++) {
            for (RdmaTaskReceive rt : receives[r]) {
                check(rt.submit(), "post rdma receive");
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
        if (dataPath || resyncActive != 0) {
            throw new DocaException(DocaError.BAD_STATE, "worker " + cfg.index() + ": cannot resync now");
        }
        armStorage();
        resyncRole = role;
        resyncCursor = 0;
        resynced = 0;
        resyncFailures = 0;
        for (Txn t : txns) {
            if (t.state == TxnState.IDLE) {
                resyncActive++;
                resyncNext(t);
            }
        }
        return null;
    }

    /** Transactions still resyncing (0: done). */
    public int resyncActive() {
        return resyncActive;
    }

    /** {rewritten, failed} stripes of the last resync. */
    public long[] resyncResult() {
        return new long[] {resynced, resyncFailures};
    }

    /** Transactions between request and reply. */
    public int inflight() {
        return inflight;
    }

    /** Ends the data path (no new work is refused: in-flight transactions finish; {@link #inflight()} drains). */
    public Void stopDataPath() {
        if (dataPath && allocAtStart >= 0) {
            // Bytes this thread allocated in steady state (after WARMUP_OPS): the data path's, target 0.
            allocOnDataPath = io.jdoca.core.agent.ThreadAllocation.current() - allocAtStart;
            opsMeasured = ops - WARMUP_OPS;
        }
        dataPath = false;
        return null;
    }

    /** The control thread saw a target's control connection drop: treat the target as lost. */
    public Void targetLost(int role) {
        markDown(role);
        return null;
    }

    /** A consistent copy of this worker's counters. */
    public WorkerStats snapshot() {
        long hits = pe == null ? 0 : pe.hits() - hitsAtStart;
        long misses = pe == null ? 0 : pe.misses() - missesAtStart;
        return new WorkerStats(cfg.index(), ops, reads, writes, recoveries, degradedReads, failedIos, refusedWrites,
                tooBigWrites, refetches, hits, misses, downMask, illegalTransitions, allocOnDataPath, opsMeasured);
    }

    /** Stops every context (flushing in-flight tasks), frees every task, releases memory. */
    public Void teardown() {
        tearingDown = true;
        dataPath = false;
        if (pe == null) {
            return null;
        }
        for (Ctx c : ctxs) {
            if (c.state() == CtxState.RUNNING || c.state() == CtxState.STARTING) {
                c.stop();
            }
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        IdleStrategy idle = IdleStrategy.backoff();
        while (System.nanoTime() < deadline) {
            freeAllTasks();
            boolean idleAll = true;
            for (Ctx c : ctxs) {
                idleAll &= c.state() == CtxState.IDLE;
            }
            if (idleAll) {
                break;
            }
            idle.idle(pe.progress() ? 1 : 0);
        }
        boolean idleAll = true;
        for (Ctx c : ctxs) {
            idleAll &= c.state() == CtxState.IDLE;
        }
        if (idleAll) {
            pe.close();
            msgMap.stop();
            msgMap.close();
            arena.close();
        } else {
            LOG.log(System.Logger.Level.WARNING, "worker " + cfg.index() + ": contexts not idle after 5 s: " + notReady());
        }
        pe = null;
        worker.attach(null);
        return null;
    }

    /** Ends the worker thread (after {@link #teardown}). */
    public void exit() {
        worker.close(2_000_000_000L);
    }

    private void freeAllTasks() {
        if (txns != null) {
            for (Txn t : txns) {
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

    private static void check(DocaError e, String what) {
        if (e != DocaError.SUCCESS) {
            throw new DocaException(e, what);
        }
    }

    // =================================================================== data path (worker thread, allocation-free)

    private boolean to(Txn t, TxnState next) {
        if (!t.state.canTransitionTo(next)) {
            illegalTransitions++;
            return false;
        }
        t.state = next;
        return true;
    }

    private void onHostRecv(ComchConsumerTaskPostRecv task, long ud, long cud) {
        if (tearingDown) {
            return;
        }
        Txn t = txns[(int) ud];
        inflight++;
        IoMessage m = t.host;
        t.result = 0;
        t.block = 0;
        t.refetches = 0;
        t.failedTargets = 0;
        t.pendingSend = 0;
        t.pendingResp = 0;
        t.storageOffset = m.storageOffset();
        t.requesterOffset = m.requesterOffset();
        int type = m.typeCode();
        int blocks = IoRequestCheck.request(m, t.hostBuf.dataLen(), layout, cfg.capacity(), hostLen);
        if (blocks < 0) {
            fail(t, DocaError.INVALID_VALUE);
            return;
        }
        t.blocks = blocks;
        if (type == IoMessageType.READ.code()) {
            t.write = false;
            t.scheduled = scheduler.next();
            readBlock(t);
        } else if (type == IoMessageType.WRITE.code()) {
            t.write = true;
            if (!DegradedPolicy.writeAllowed(downMask)) {
                refusedWrites++;
                fail(t, DegradedPolicy.REFUSED);
                return;
            }
            writeBlock(t);
        } else {
            fail(t, DocaError.INVALID_VALUE);
        }
    }

    private void onHostRecvError(ComchConsumerTaskPostRecv task, long ud, long cud) {
        // Flushed by a consumer stop (or a message larger than 64 bytes, dropped by Comch): repost
        // unless shutting down, so one bad message does not cost a transaction slot.
        if (!tearingDown && consumer.state() == CtxState.RUNNING) {
            task.buf().resetDataLen();
            task.submit();
        }
    }

    private void readBlock(Txn t) {
        RecoveryKind plan = DegradedPolicy.readPlan(t.scheduled, downMask);
        if (plan == null) {
            fail(t, DegradedPolicy.REFUSED);
            return;
        }
        if (!to(t, TxnState.FETCH_HALVES)) {
            return;
        }
        t.plan = plan;
        if (plan != RecoveryKind.NONE) {
            recoveries++;
            if (plan != t.scheduled) {
                degradedReads++;
            }
        }
        int mask = DegradedPolicy.targetsOf(plan);
        long storage = layout.targetOffset(t.storageOffset, t.block);
        t.pendingSend = mask;
        t.pendingResp = mask;
        for (int r = 0; r < TargetRole.COUNT; r++) {
            if ((mask & TargetRole.bit(r)) != 0) {
                issue(t, r, IoMessageType.READ, t.chunkOffset + roleOffset(r), storage);
            }
        }
        storageStepDone(t);
    }

    private long roleOffset(int role) {
        return role == TargetRole.DATA_1 ? layout.data1Offset()
                : role == TargetRole.DATA_2 ? layout.data2Offset() : layout.parityOffset();
    }

    private void issue(Txn t, int role, IoMessageType type, long requesterOffset, long storageOffset) {
        t.req[role].setRequest(type, t.index, half, requesterOffset, storageOffset);
        DocaError e = t.sendTasks[role].submit();
        if (e != DocaError.SUCCESS) {
            int bit = TargetRole.bit(role);
            t.pendingSend &= ~bit;
            t.pendingResp &= ~bit;
            t.failedTargets |= bit;
        }
    }

    private void onRequestSent(RdmaTaskSend task, long ud, long cud) {
        if (tearingDown) {
            return;
        }
        Txn t = txns[(int) ud];
        int bit = TargetRole.bit((int) cud);
        if ((t.pendingSend & bit) == 0) {
            return; // abandoned when the target was declared lost
        }
        t.pendingSend &= ~bit;
        if (task.status() != DocaError.SUCCESS) {
            t.pendingResp &= ~bit; // an undelivered request gets no response
            t.failedTargets |= bit;
        }
        storageStepDone(t);
    }

    private void onResponse(RdmaTaskReceive task, long ud, long cud) {
        if (tearingDown) {
            return;
        }
        Buf b = task.dst();
        IoMessage r = recvView.wrap(b.segment(), b.dataOffset());
        int idx = IoRequestCheck.responseIndex(r, b.dataLen(), n);
        if (idx >= 0) {
            Txn t = txns[idx];
            int bit = TargetRole.bit((int) cud);
            if ((t.pendingResp & bit) != 0) {
                t.pendingResp &= ~bit;
                int code = IoRequestCheck.responseResult(r);
                if (code != 0 && t.result == 0) {
                    t.result = code; // reference §5: any target's failure is copied into the reply
                }
                storageStepDone(t);
            }
        }
        b.resetDataLen();
        if (ioControl[(int) cud].state() == CtxState.RUNNING) {
            task.submit();
        }
    }

    private void onResponseError(RdmaTaskReceive task, long ud, long cud) {
        // Flushed by a context stop: the target is gone (see onRdmaState) or we are tearing down.
    }

    private void onUnusedSend(RdmaTaskSend task, long ud, long cud) {
    }

    private void onRdmaState(long ud, Ctx ctx, CtxState prev, CtxState next) {
        if ((dataPath || resyncActive > 0) && !tearingDown && prev == CtxState.RUNNING && next != CtxState.RUNNING) {
            markDown((int) ud);
        }
    }

    /** A target is gone: abandon what it owes to every transaction and let each one move on. */
    private void markDown(int role) {
        int bit = TargetRole.bit(role);
        if ((downMask & bit) != 0 || txns == null) {
            return;
        }
        downMask |= bit;
        // Rare event (once per lost target): logging here is acceptable.
        LOG.log(System.Logger.Level.WARNING, "worker " + cfg.index() + ": target " + TargetRole.name(role)
                + " lost; service degraded (reads served by recovery, writes logged dirty for it)");
        for (Txn t : txns) {
            if (((t.pendingSend | t.pendingResp) & bit) != 0) {
                t.pendingSend &= ~bit;
                t.pendingResp &= ~bit;
                t.failedTargets |= bit;
                storageStepDone(t);
            }
        }
    }

    /** All sends and responses of the current storage step are in (or abandoned). */
    private void storageStepDone(Txn t) {
        if ((t.pendingSend | t.pendingResp) != 0) {
            return;
        }
        if (t.state == TxnState.RESYNC_FETCH || t.state == TxnState.RESYNC_STORE) {
            resyncStepDone(t);
            return;
        }
        if (t.state == TxnState.FETCH_HALVES) {
            if (t.failedTargets != 0) {
                boolean lost = (t.failedTargets & ~downMask) == 0;
                t.failedTargets = 0;
                if (lost && t.result == 0 && t.refetches < 3) {
                    // Degraded mode: refetch this block from the survivors (recovery).
                    t.refetches++;
                    refetches++;
                    readBlock(t);
                    return;
                }
                if (t.result == 0) {
                    t.result = lost ? DegradedPolicy.REFUSED.code() : DocaError.IO_FAILED.code();
                }
            }
            if (t.result != 0) {
                respond(t);
            } else if (t.plan == RecoveryKind.NONE) {
                decompress(t);
            } else {
                recover(t);
            }
        } else if (t.state == TxnState.STORE_HALVES) {
            if (t.failedTargets != 0) {
                boolean lost = (t.failedTargets & ~downMask) == 0;
                if (lost && DegradedPolicy.writeAllowed(downMask)) {
                    // The write died with its target (the write hole): the survivors hold the new
                    // stripe; the lost half is logged dirty and rebuilt when the target rejoins.
                    markDirty(t.failedTargets, layout.targetOffset(t.storageOffset, t.block));
                } else if (t.result == 0) {
                    t.result = lost ? DegradedPolicy.REFUSED.code() : DocaError.IO_FAILED.code();
                }
                t.failedTargets = 0;
            }
            if (t.result != 0) {
                respond(t);
            } else if (++t.block < t.blocks) {
                writeBlock(t);
            } else {
                respond(t);
            }
        }
    }

    /** Logs the stripe at target offset {@code storage} dirty for every target in {@code mask}. */
    private void markDirty(int mask, long storage) {
        DirtyStripes[] d = cfg.dirty();
        long stripe = storage / half;
        for (int r = 0; r < TargetRole.COUNT; r++) {
            if ((mask & TargetRole.bit(r)) != 0 && d != null && d[r] != null) {
                d[r].mark(stripe);
            }
        }
    }

    // ------------------------------------------------------------------- resync (before the data path)

    /** Takes the next dirty stripe of the resync target, or retires the transaction when none is left. */
    private void resyncNext(Txn t) {
        DirtyStripes d = cfg.dirty()[resyncRole];
        long s = d.nextDirty(resyncCursor);
        if (s < 0 || downMask != 0) {
            if (s >= 0) {
                resyncFailures++; // a target is lost: this stripe (and the rest) stay dirty
            }
            if (t.state != TxnState.IDLE) {
                to(t, TxnState.IDLE);
            }
            resyncActive--;
            return;
        }
        resyncCursor = s + 1;
        if (!to(t, TxnState.RESYNC_FETCH)) {
            resyncActive--;
            return;
        }
        t.resyncStripe = s;
        t.result = 0;
        t.failedTargets = 0;
        // Fetch the two survivors' halves into the chunk exactly as a recovery read would.
        t.plan = resyncRole == TargetRole.DATA_1 ? RecoveryKind.RECOVER_A
                : resyncRole == TargetRole.DATA_2 ? RecoveryKind.RECOVER_B : RecoveryKind.NONE;
        int mask = DegradedPolicy.targetsOf(t.plan);
        t.pendingSend = mask;
        t.pendingResp = mask;
        for (int r = 0; r < TargetRole.COUNT; r++) {
            if ((mask & TargetRole.bit(r)) != 0) {
                issue(t, r, IoMessageType.READ, t.chunkOffset + roleOffset(r), s * half);
            }
        }
        storageStepDone(t);
    }

    /**
     * A resync stripe failed: it stays dirty, so the target is not declared UP this session; the
     * transaction retires (no retry loop, no recursion through synchronous failures).
     */
    private void resyncFailed(Txn t) {
        resyncFailures++;
        to(t, TxnState.IDLE);
        resyncActive--;
    }

    private void resyncStepDone(Txn t) {
        if (t.failedTargets != 0 || t.result != 0) {
            t.failedTargets = 0;
            resyncFailed(t);
            return;
        }
        if (t.state == TxnState.RESYNC_FETCH) {
            if (!to(t, TxnState.RESYNC_REBUILD)) {
                return;
            }
            DocaError e;
            if (t.plan == RecoveryKind.NONE) {
                t.ecDst.resetDataLen(); // parity from data_1 + data_2 (chunk+0, B bytes) to chunk+B
                e = t.createTask.submit();
            } else {
                e = armRecover(t).submit();
            }
            if (e != DocaError.SUCCESS) {
                resyncFailed(t);
            }
        } else if (t.state == TxnState.RESYNC_STORE) {
            cfg.dirty()[resyncRole].clear(t.resyncStripe);
            resynced++;
            to(t, TxnState.IDLE);
            resyncNext(t);
        }
    }

    /** The rebuilt half (at its role's place in the chunk) goes to the rejoined target. */
    private void resyncStore(Txn t) {
        if (!to(t, TxnState.RESYNC_STORE)) {
            return;
        }
        int bit = TargetRole.bit(resyncRole);
        t.pendingSend = bit;
        t.pendingResp = bit;
        issue(t, resyncRole, IoMessageType.WRITE, t.chunkOffset + roleOffset(resyncRole), t.resyncStripe * half);
        storageStepDone(t);
    }

    private EcTaskRecover armRecover(Txn t) {
        EcTaskRecover task = t.recoverTask;
        if (t.plan == RecoveryKind.RECOVER_A) {
            t.recAOut.resetDataLen();
            task.setMatrix(matrix, TargetRole.bit(TargetRole.DATA_1));
            task.setAvailableBlocks(t.recASrc);
            task.setRecoveredData(t.recAOut);
        } else {
            t.recBOut.resetDataLen();
            task.setMatrix(matrix, TargetRole.bit(TargetRole.DATA_2));
            task.setAvailableBlocks(t.recBD1);
            task.setRecoveredData(t.recBOut);
        }
        return task;
    }

    private void recover(Txn t) {
        if (!to(t, TxnState.RECOVER)) {
            return;
        }
        DocaError e = armRecover(t).submit();
        if (e != DocaError.SUCCESS) {
            fail(t, e);
        }
    }

    private void onEcRecoverDone(EcTaskRecover task, long ud, long cud) {
        if (tearingDown) {
            return;
        }
        Txn t = txns[(int) ud];
        if (t.state == TxnState.RESYNC_REBUILD) {
            if (task.status() != DocaError.SUCCESS) {
                resyncFailed(t);
            } else {
                resyncStore(t);
            }
            return;
        }
        if (task.status() != DocaError.SUCCESS) {
            fail(t, task.status());
            return;
        }
        decompress(t);
    }

    private void decompress(Txn t) {
        if (!to(t, TxnState.DECOMPRESS)) {
            return;
        }
        long chunkInMap = t.chunkOffset;
        int csize = CompressedContainer.validate(scratch, chunkInMap, block, block);
        if (csize < 0 || CompressedContainer.originalSize(scratch, chunkInMap) != block) {
            fail(t, DocaError.IO_FAILED);
            return;
        }
        long dst = hostBase + t.requesterOffset + (long) t.block * block;
        if (inv.reuseByData(t.decSrc, scratchBase + chunkInMap + CompressedContainer.OFF_DATA, csize) != DocaError.SUCCESS
                || inv.reuseByAddr(t.decDst, dst, block) != DocaError.SUCCESS) {
            fail(t, DocaError.INVALID_VALUE);
            return;
        }
        DocaError e = t.decTask.submit();
        if (e != DocaError.SUCCESS) {
            fail(t, e);
        }
    }

    private void onDecompressDone(CompressTaskDecompressLz4Stream task, long ud, long cud) {
        if (tearingDown) {
            return;
        }
        Txn t = txns[(int) ud];
        if (task.status() != DocaError.SUCCESS || t.decDst.dataLen() != block) {
            // Corrupt or inconsistent halves never reach the initiator as data.
            fail(t, DocaError.IO_FAILED);
            return;
        }
        if (++t.block < t.blocks) {
            readBlock(t);
        } else {
            respond(t);
        }
    }

    private void writeBlock(Txn t) {
        if (!to(t, TxnState.FETCH_FROM_INITIATOR)) {
            return;
        }
        long src = hostBase + t.requesterOffset + (long) t.block * block;
        if (inv.reuseByData(t.dmaSrc, src, block) != DocaError.SUCCESS) {
            fail(t, DocaError.INVALID_VALUE);
            return;
        }
        t.dmaDst.resetDataLen();
        DocaError e = t.dmaTask.submit();
        if (e != DocaError.SUCCESS) {
            fail(t, e);
        }
    }

    private void onDmaDone(DmaTaskMemcpy task, long ud, long cud) {
        if (tearingDown) {
            return;
        }
        Txn t = txns[(int) ud];
        if (task.status() != DocaError.SUCCESS) {
            fail(t, task.status());
            return;
        }
        long c = t.chunkOffset;
        // Software LZ4 runs inline, as DOCA's liblz4 path does: container at chunk+0, stream scratch at chunk+B.
        int csize = CompressedContainer.pack(lz4, scratch, c, block, scratch, c + layout.parityOffset(), scratch, c);
        if (csize < 0) {
            tooBigWrites++;
            fail(t, DocaError.fromCode(-csize));
            return;
        }
        if (!to(t, TxnState.EC_CREATE)) {
            return;
        }
        t.ecDst.resetDataLen();
        DocaError e = t.createTask.submit();
        if (e != DocaError.SUCCESS) {
            fail(t, e);
        }
    }

    private void onEcCreateDone(EcTaskCreate task, long ud, long cud) {
        if (tearingDown) {
            return;
        }
        Txn t = txns[(int) ud];
        if (t.state == TxnState.RESYNC_REBUILD) {
            if (task.status() != DocaError.SUCCESS) {
                resyncFailed(t);
            } else {
                resyncStore(t);
            }
            return;
        }
        if (task.status() != DocaError.SUCCESS) {
            fail(t, task.status());
            return;
        }
        if (!DegradedPolicy.writeAllowed(downMask)) {
            refusedWrites++;
            fail(t, DegradedPolicy.REFUSED);
            return;
        }
        if (!to(t, TxnState.STORE_HALVES)) {
            return;
        }
        long storage = layout.targetOffset(t.storageOffset, t.block);
        int live = TargetRole.ALL_MASK & ~downMask;
        // The lost target's half is logged before the reply: its rejoin rebuilds the stripe (resync).
        markDirty(~live & TargetRole.ALL_MASK, storage);
        t.pendingSend = live;
        t.pendingResp = live;
        for (int r = 0; r < TargetRole.COUNT; r++) {
            if ((live & TargetRole.bit(r)) != 0) {
                issue(t, r, IoMessageType.WRITE, t.chunkOffset + roleOffset(r), storage);
            }
        }
        storageStepDone(t);
    }

    private void fail(Txn t, DocaError e) {
        if (t.result == 0) {
            t.result = e.code();
        }
        respond(t);
    }

    private void respond(Txn t) {
        if (!to(t, TxnState.RESPOND)) {
            return;
        }
        if (t.result != 0) {
            failedIos++;
        }
        t.host.setResponse(t.result);
        DocaError e = t.replyTask.submit();
        if (e != DocaError.SUCCESS) {
            // The initiator is gone: the transaction cannot complete; release its slot.
            t.state = TxnState.IDLE;
            inflight--;
        }
    }

    private void onReplySent(ComchProducerTaskSend task, long ud, long cud) {
        if (tearingDown) {
            return;
        }
        Txn t = txns[(int) ud];
        to(t, TxnState.IDLE);
        inflight--;
        if (task.status() == DocaError.SUCCESS) {
            if (++ops == WARMUP_OPS) {
                allocAtStart = io.jdoca.core.agent.ThreadAllocation.current();
            }
            if (t.write) {
                writes++;
            } else {
                reads++;
            }
        }
        t.hostBuf.resetDataLen();
        if (consumer.state() == CtxState.RUNNING) {
            t.recvTask.submit();
        }
    }

    /** One transaction's pre-allocated state (DOCA's {@code transaction_context}). */
    private static final class Txn {
        final int index;
        /** Offset of this transaction's chunk in the scratch map (= requester_offset base for targets). */
        final long chunkOffset;
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
        TxnState state = TxnState.IDLE;
        boolean write;
        int blocks;
        int block;
        RecoveryKind scheduled = RecoveryKind.NONE;
        RecoveryKind plan = RecoveryKind.NONE;
        int pendingSend;
        int pendingResp;
        int failedTargets;
        int refetches;
        int result;
        long storageOffset;
        long requesterOffset;
        long resyncStripe;

        Txn(int index, long chunkOffset) {
            this.index = index;
            this.chunkOffset = chunkOffset;
        }
    }
}
