package io.jdoca.storage.common;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.agent.EngineWorker;
import io.jdoca.core.agent.ThreadAllocation;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.exec.Ctx;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskCallback;
import io.jdoca.core.exec.TaskState;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.NativeMemory;
import io.jdoca.rdma.Rdma;
import io.jdoca.rdma.RdmaTaskReceive;
import io.jdoca.rdma.RdmaTaskSend;
import java.net.InetAddress;

/**
 * What the storage apps' data-path workers (target-rdma, zero-copy, gga-offload) share: an
 * {@link EngineWorker} agent named {@code <role>-<index>} (the only data-path thread), control
 * commands run on it between two progress calls ({@link #call}), CPU pinning, the measured window
 * of the data path (operations, engine hits and misses, bytes the worker thread allocated: 0 in
 * steady state), and the tear-down order (stop the contexts, free tasks as they complete until
 * every context is IDLE, release buffers, close the engine, end the thread). Subclasses build their
 * contexts and transactions and run the data path in their completion callbacks.
 *
 * <p>Threads: fields marked "worker thread" and the abstract methods belong to the worker thread;
 * the public methods may be called from the control thread (they run commands on the worker).
 */
public abstract class DataPathWorker implements AutoCloseable, WorkerCounters {
    protected static final long CMD_TIMEOUT = AppSupport.commandTimeoutNanos();
    /** The longest request latency recorded as such (a longer one counts as this): 60 s. */
    public static final long MAX_LATENCY_NANOS = 60_000_000_000L;
    private static final System.Logger LOG = System.getLogger("io.jdoca.storage.common");

    protected final int index;
    protected final EngineWorker thread;
    /** The device, the transaction count and the RDMA listeners' bind address (null: all) of this worker. */
    protected final Dev dev;
    protected final int transactions;
    protected final InetAddress rdmaBind;
    /** The GID index of this worker's RDMA contexts ({@code -g}; -1: the device's default). */
    protected final int gidIndex;
    private final NativeMemory memory = new NativeMemory();

    /** Worker thread: io_control (IO messages), made by {@link #createRdmaPair}. */
    protected Rdma ctrl;
    /** Worker thread: io_data (transfers), made by {@link #createRdmaPair}. */
    protected Rdma data;

    /** Worker thread: the data path counts operations. */
    protected boolean running;
    /** Worker thread: the peer may tear its connections down first, so their resets are expected. */
    protected boolean tearingDown;
    /** Worker thread: completed operations while {@link #running}. */
    protected long ops;
    /** Worker thread: failed operations. */
    protected long errors;
    private long hits0;
    private long misses0;
    private long alloc0;
    private volatile long opsOut;
    private volatile long hits;
    private volatile long misses;
    private volatile long allocated;
    /** Worker thread (single writer): request latencies in ns; scrapes copy it racily ({@link #addLatencyTo}). */
    private final org.HdrHistogram.Histogram latency = new org.HdrHistogram.Histogram(MAX_LATENCY_NANOS, 2);
    /** Worker thread: arrival time (0 = none) and key of the request in each slot ({@link #requestArrived}). */
    private final long[] arrivedAt;
    private final long[] arrivedKey;
    private final int slotMask;

    private static final java.lang.invoke.VarHandle OPS;
    private static final java.lang.invoke.VarHandle ERRORS;

    static {
        try {
            java.lang.invoke.MethodHandles.Lookup l = java.lang.invoke.MethodHandles.lookup();
            OPS = l.findVarHandle(DataPathWorker.class, "ops", long.class);
            ERRORS = l.findVarHandle(DataPathWorker.class, "errors", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Starts the worker thread {@code role-index}; with {@code ownEngine} it has its own progress
     * engine, else a command {@linkplain EngineWorker#attach attaches} the engine the subclass
     * builds. {@code rdmaBind}: the address the RDMA contexts' TCP listeners bind to (null: all
     * addresses, the library default); {@code gidIndex}: their GID index ({@code -g}; -1: the device's).
     */
    protected DataPathWorker(String role, int index, Dev dev, int transactions, InetAddress rdmaBind,
            int gidIndex, boolean ownEngine) {
        this.index = index;
        this.dev = dev;
        this.transactions = transactions;
        this.rdmaBind = rdmaBind;
        this.gidIndex = gidIndex;
        this.thread = ownEngine ? EngineWorker.withEngine(role + "-" + index, AppSupport.workerIdle())
                : new EngineWorker(role + "-" + index, AppSupport.workerIdle(), null);
        int slots = AppSupport.pow2(Math.max(16, 2 * transactions));
        this.arrivedAt = new long[slots];
        this.arrivedKey = new long[slots];
        this.slotMask = slots - 1;
    }

    /**
     * Data path (worker thread): request {@code key} arrived (its transaction index, or the id a relay
     * keeps, such as the message's user data). Its latency is recorded when {@link #requestAnswered} sees
     * the same key; a slot shared by two keys in flight loses one sample. No allocation, no atomic.
     */
    protected final void requestArrived(long key) {
        if (running) {
            int s = (int) key & slotMask;
            arrivedKey[s] = key;
            arrivedAt[s] = System.nanoTime();
        }
    }

    /** Data path (worker thread): the response to request {@code key} was sent: its latency is recorded. */
    protected final void requestAnswered(long key) {
        int s = (int) key & slotMask;
        long t0 = arrivedAt[s];
        if (t0 != 0 && arrivedKey[s] == key) {
            arrivedAt[s] = 0;
            long d = System.nanoTime() - t0;
            latency.recordValue(d < MAX_LATENCY_NANOS ? d : MAX_LATENCY_NANOS);
        }
    }

    /** Any thread (metrics): adds this worker's request latencies to {@code into} (a racy copy). */
    @Override
    public final void addLatencyTo(org.HdrHistogram.Histogram into) {
        into.add(latency);
    }

    /**
     * Runs {@code c} on the worker thread and waits for it (control path); every failure is a
     * DocaException naming the worker (TIME_OUT when it did not answer).
     */
    public final <T> T call(java.util.concurrent.Callable<T> c, long timeoutNanos) {
        try {
            return thread.execute(c, timeoutNanos);
        } catch (DocaException e) {
            if (e.error() == DocaError.TIME_OUT) {
                throw new DocaException(DocaError.TIME_OUT, "worker " + index + " did not answer a control command"
                        + AppSupport.raisedBy(timeoutNanos == CMD_TIMEOUT ? AppSupport.COMMAND_TIMEOUT_FLAG
                                : AppSupport.CONTROL_TIMEOUT_FLAG, timeoutNanos));
            }
            throw e;
        } catch (RuntimeException e) {
            throw new DocaException(DocaError.UNEXPECTED, "worker " + index + ": " + e, e);
        }
    }

    /** Control path (the subclass's constructor, last): runs {@code createObjects} on the worker thread. */
    protected final void create(Runnable createObjects) {
        thread.run(createObjects, CMD_TIMEOUT);
    }

    /**
     * Pins this worker's thread to {@code cpu} (its {@code --cpu}); control path, IllegalArgumentException when
     * refused.
     */
    public final void pin(int cpu) {
        thread.pin(cpu);
    }

    /**
     * Worker thread: creates {@link #ctrl} and {@link #data} as {@link #createRdmaPair()} and gives
     * io_control its receive and send task configurations ({@link #transactions} each), the IO
     * messages' path. The caller then configures io_data's tasks and calls {@link #startRdmaPair()}.
     */
    protected final void createRdmaPair(TaskCallback<RdmaTaskReceive> received,
            TaskCallback<RdmaTaskReceive> receiveFailed,
            TaskCallback<RdmaTaskSend> sent, TaskCallback<RdmaTaskSend> sendFailed) {
        createRdmaPair();
        DocaException.check(ctrl.taskReceiveSetConf(received, receiveFailed, transactions), "receive conf");
        DocaException.check(ctrl.taskSendSetConf(sent, sendFailed, transactions), "send conf");
    }

    /**
     * Worker thread: an RDMA context on {@code dev} as every storage worker makes them: its TCP
     * listeners on {@code bind} (null: all addresses, the library default; the apps' {@code
     * --listen-address}), its GID index {@code gidIndex} when >= 0 ({@code -g}; else the device's).
     * The target, zero-copy and gga-offload workers make every RDMA context of theirs here.
     */
    public static Rdma createRdma(Dev dev, InetAddress bind, int gidIndex) {
        Rdma r = Rdma.create(dev);
        if (bind != null) {
            DocaException.check(r.setTcpAddress(bind, null), "rdma tcp address");
        }
        if (gidIndex >= 0) {
            DocaException.check(r.setGidIndex(gidIndex), AppSupport.GID_INDEX_FLAG + " " + gidIndex);
        }
        return r;
    }

    /**
     * Worker thread: creates {@link #ctrl} and {@link #data} as both apps configure them
     * ({@link #createRdma}): RDMA read/write permissions, queues for {@link #transactions}, TCP
     * listeners on {@link #rdmaBind}, GID index {@link #gidIndex}. The caller then sets its task
     * configurations and calls {@link #startRdmaPair()}.
     */
    protected final void createRdmaPair() {
        int q = Math.min(Rdma.MAX_QUEUE_SIZE, AppSupport.pow2(Math.max(16, transactions)));
        ctrl = createRdma(dev, rdmaBind, gidIndex);
        data = createRdma(dev, rdmaBind, gidIndex);
        for (Rdma r : new Rdma[] {ctrl, data}) {
            DocaException.check(r.setPermissions(
                    AccessFlags.LOCAL_READ_WRITE | AccessFlags.RDMA_READ | AccessFlags.RDMA_WRITE),
                    "rdma permissions");
            DocaException.check(r.setSendQueueSize(q), "send queue size");
            DocaException.check(r.setRecvQueueSize(q), "recv queue size");
        }
    }

    /** Worker thread: connects both RDMA contexts to the engine and starts them (RUNNING once connected). */
    protected final void startRdmaPair() {
        DocaException.check(thread.pe().connectCtx(ctrl), "connect ctrl");
        DocaException.check(thread.pe().connectCtx(data), "connect data");
        for (Rdma r : new Rdma[] {ctrl, data}) {
            DocaError e = r.start();
            if (e != DocaError.IN_PROGRESS && e != DocaError.SUCCESS) {
                throw AppSupport.rdmaStartFailed(e, "rdma start", dev, gidIndex);
            }
        }
    }

    /** Worker thread: a started local read/write map of {@code bytes} from this worker's memory for the IO messages. */
    protected final MemoryMap createMessageMap(long bytes) {
        MemoryMap m = MemoryMap.create();
        m.setMemrange(memory.allocate(bytes, 64));
        m.addDev(dev);
        m.setPermissions(AccessFlags.LOCAL_READ_WRITE);
        DocaException.check(m.start(), "message map");
        return m;
    }

    /** Data path (worker thread): a receive failed; counted and logged unless the worker is tearing down (flushes). */
    protected final void receiveFailed(String what, Task t) {
        if (!tearingDown) {
            errors++;
            LOG.log(System.Logger.Level.WARNING, "worker {0}: {1} receive failed: {2}", index, what,
                    t.status().docaName());
        }
    }

    /** Data path (worker thread): submits {@code t}, counting a refusal as an error unless tearing down. */
    protected final void submitOrCount(Task t) {
        if (t.submit() != DocaError.SUCCESS && !tearingDown) {
            errors++;
        }
    }

    /** Worker thread: the contexts in the order they are stopped (null entries are skipped). */
    protected abstract Ctx[] contexts();

    /** Worker thread: frees every task that is not in flight (called until every context is IDLE). */
    protected abstract void freeCompletedTasks();

    /** Worker thread: the per-transaction buffers to release once the contexts are IDLE. */
    protected abstract Buf[][] buffers();

    /** Worker thread, last: releases maps and whatever else the subclass created. */
    protected abstract void releaseMaps();

    /**
     * Control path: on the worker thread, {@code prepare} builds each transaction's buffers and tasks
     * (false: NO_MEMORY for that transaction), the measured window opens, and {@code post} posts each
     * transaction's receives: the data path begins.
     */
    protected final void startTransactions(java.util.function.IntPredicate prepare,
            java.util.function.IntConsumer post) {
        thread.run(() -> {
            for (int i = 0; i < transactions; i++) {
                if (!prepare.test(i)) {
                    throw new DocaException(DocaError.NO_MEMORY, "cannot prepare transaction " + i);
                }
            }
            beginDataPath();
            for (int i = 0; i < transactions; i++) {
                post.accept(i);
            }
        }, CMD_TIMEOUT);
    }

    /** True when none of {@code parts} (a transaction's buffers and tasks) is null. Control path. */
    protected static boolean allSet(Object... parts) {
        for (Object p : parts) {
            if (p == null) {
                return false;
            }
        }
        return true;
    }

    /** Worker thread: opens the measured window (call when the transactions are ready, before posting). */
    protected final void beginDataPath() {
        running = true;
        alloc0 = ThreadAllocation.current();
        hits0 = thread.pe().hits();
        misses0 = thread.pe().misses();
    }

    /** Closes the measured window ({@link #onStopDataPath()}); the contexts keep running until {@link #close()}. */
    public final void stopDataPath() {
        thread.run(() -> {
            allocated = ThreadAllocation.current() - alloc0;
            running = false;
            hits = hitsSinceStart();
            misses = missesSinceStart();
            opsOut = ops;
            onStopDataPath();
        }, CMD_TIMEOUT);
    }

    /**
     * Worker thread, at the end of the measured window: by default no new request is expected and
     * the peer may tear its connections down first, so their resets are expected from here on.
     */
    protected void onStopDataPath() {
        tearingDown = true;
    }

    /** Worker thread: engine polls with work since {@link #beginDataPath()}. */
    protected final long hitsSinceStart() {
        ProgressEngine pe = thread.pe();
        return pe == null ? 0 : pe.hits() - hits0;
    }

    /** Worker thread: engine polls without work since {@link #beginDataPath()}. */
    protected final long missesSinceStart() {
        ProgressEngine pe = thread.pe();
        return pe == null ? 0 : pe.misses() - misses0;
    }

    /** Worker thread, first step of {@link #close()}: the subclass leaves its data path (default: nothing). */
    protected void onTeardown() {
    }

    /**
     * Any thread (metrics): operations completed so far in the data path. An opaque read of the
     * worker's plain single-writer counter: racy by design (a scrape may be a moment behind), no
     * atomic or lock added to the data path.
     */
    public final long opsNow() {
        return (long) OPS.getOpaque(this);
    }

    /** Any thread (metrics): failed operations so far; racy opaque read, as {@link #opsNow()}. */
    public final long errorsNow() {
        return (long) ERRORS.getOpaque(this);
    }

    /** Any thread (metrics): the engine's polls that found work (racy read of its counter). */
    public final long enginePollsWithWork() {
        ProgressEngine pe = thread.pe();
        return pe == null ? 0 : pe.hits();
    }

    /** Any thread (metrics): the engine's polls that found nothing (racy read of its counter). */
    public final long enginePollsIdle() {
        ProgressEngine pe = thread.pe();
        return pe == null ? 0 : pe.misses();
    }

    /** Any thread (metrics): {ops, errors, busy polls, idle polls}, as {@link DataPathMetrics#DATA_PATH_WORKER}. */
    @Override
    public void readCounters(long[] into) {
        into[0] = opsNow();
        into[1] = errorsNow();
        into[2] = enginePollsWithWork();
        into[3] = enginePollsIdle();
    }

    @Override
    public final int index() {
        return index;
    }

    /** Operations in the measured window. */
    public final long ops() {
        return opsOut;
    }

    /** Bytes the worker thread allocated between data-path start and stop (0 in steady state). */
    public final long dataPathAllocatedBytes() {
        return allocated;
    }

    /**
     * The row of {@link ControlService#printStats}: {ops, engine hits, engine misses, bytes allocated} of the window.
     */
    public final long[] statsRow() {
        return new long[] {ops(), hits(), misses(), dataPathAllocatedBytes()};
    }

    /** Closes the measured window of every worker (control path); a worker that fails is logged, the others go on. */
    public static void stopAll(Iterable<? extends DataPathWorker> workers) {
        for (DataPathWorker w : workers) {
            try {
                w.stopDataPath();
            } catch (DocaException e) {
                LOG.log(System.Logger.Level.WARNING, "worker {0}: {1}", w.index(), e.getMessage());
            }
        }
    }

    public final long hits() {
        return hits;
    }

    public final long misses() {
        return misses;
    }

    /** Stops the contexts, frees every task and buffer, closes the engine, ends the thread. */
    @Override
    public final void close() {
        try {
            thread.run(() -> {
                tearingDown = true;
                running = false;
                onTeardown();
                for (Ctx c : contexts()) {
                    if (c != null && c.state() != CtxState.IDLE) {
                        c.stop();
                    }
                }
            }, CMD_TIMEOUT);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (System.nanoTime() < deadline) {
                boolean idle = thread.execute(() -> {
                    freeCompletedTasks();
                    return allIdle();
                }, CMD_TIMEOUT);
                if (idle) {
                    break;
                }
                Thread.sleep(2);
            }
            thread.run(() -> {
                for (Buf[] bs : buffers()) {
                    if (bs != null) {
                        for (Buf b : bs) {
                            if (b != null) {
                                b.decRefcount();
                            }
                        }
                    }
                }
                releaseMaps();
                if (allIdle() && thread.pe() != null) {
                    thread.pe().close();
                    thread.attach(null);
                }
            }, CMD_TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (DocaException e) {
            LOG.log(System.Logger.Level.WARNING, "{0}: teardown: {1}", thread.roleName(), e.getMessage());
        } finally {
            thread.close();
            memory.close();
        }
    }

    private boolean allIdle() {
        for (Ctx c : contexts()) {
            if (c != null && c.state() != CtxState.IDLE) {
                return false;
            }
        }
        return true;
    }

    /** Worker thread: frees the tasks of {@code ts} that are not in flight and clears their slots. */
    protected static void freeAll(Task[] ts) {
        if (ts == null) {
            return;
        }
        for (int i = 0; i < ts.length; i++) {
            Task t = ts[i];
            if (t != null && t.state() != TaskState.SUBMITTED) {
                t.free();
                ts[i] = null;
            }
        }
    }
}
