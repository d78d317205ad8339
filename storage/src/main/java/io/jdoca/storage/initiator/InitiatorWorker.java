package io.jdoca.storage.initiator;

import io.jdoca.comch.ComchConnection;
import io.jdoca.comch.ComchConsumer;
import io.jdoca.comch.ComchConsumerTaskPostRecv;
import io.jdoca.comch.ComchProducer;
import io.jdoca.comch.ComchProducerTaskSend;
import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.agent.Agent;
import io.jdoca.core.agent.AgentRunner;
import io.jdoca.core.agent.ThreadAllocation;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.storage.common.AppSupport;
import io.jdoca.storage.wire.IoMessage;
import io.jdoca.storage.wire.IoMessageType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * One initiator worker (DOCA's {@code initiator_comch_worker}): a thread with its own progress
 * engine, a Comch consumer (responses) and producer (requests), and {@code transactions} pre-built
 * transactions that walk the strategy's actions over the worker's share of the storage.
 *
 * <p>An {@link Agent} on its own {@link AgentRunner} thread ({@code initiator-worker-<index>}, backing off
 * with {@link AppSupport#workerIdle()}), like the services' workers. Life cycle, driven by the control
 * thread: {@link #prepare} (the runner starts; {@code onStart} pins the thread, starts the contexts and
 * announces the consumer) → {@link #run} with the service's consumer id → {@link #awaitFinished} →
 * {@link #shutdown}; the duty cycle walks {@link Phase}. The data path (between run and finish)
 * allocates nothing.
 */
final class InitiatorWorker implements Agent {
    /**
     * Where the worker is: WAITING_FOR_START → RUNNING → FINISHED, or WAITING_FOR_START → FINISHED when
     * aborted before the start (nothing else: {@link #enter} refuses any other move).
     */
    enum Phase {
        WAITING_FOR_START, RUNNING, FINISHED;

        boolean canMoveTo(Phase next) {
            return switch (this) {
                case WAITING_FOR_START -> next == RUNNING || next == FINISHED;
                case RUNNING -> next == FINISHED;
                case FINISHED -> false;
            };
        }
    }

    private static final int MSG = IoMessage.SIZE;

    // ---- configuration
    private final int index;
    private final ExecutionStrategy mode;
    private final Dev dev;
    private final ComchConnection connection;
    private final MemorySegment local;
    private final MemorySegment expected;
    private final long ioSize;
    private final long rangeBase;
    private final long rangeUnits;
    private final long opsTarget;
    private final int transactions;

    // ---- control hand-off
    private final AgentRunner runner;
    /** Worker thread only: the duty cycle's phase. */
    private Phase phase = Phase.WAITING_FOR_START;
    private long alloc0;
    private long hits0;
    private long misses0;
    private Arena arena;
    private MemoryMap msgMap;
    private BufInventory inv;
    private final CountDownLatch prepared = new CountDownLatch(1);
    private final CountDownLatch finished = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private final CountDownLatch startSignal = new CountDownLatch(1);
    private volatile int remoteConsumerId;
    private volatile boolean abort;
    private volatile String setupError;
    /** {@code --cpu}: the CPU this worker's thread pins itself to before it builds its contexts. */
    private final int cpu;
    private volatile int consumerId;

    // ---- data path (worker thread only)
    private ProgressEngine pe;
    private ComchConsumer consumer;
    private ComchProducer producer;
    private final IoMessage sendView = new IoMessage();
    private final IoMessage recvView = new IoMessage();
    private ComchProducerTaskSend[] sends;
    private long[] txStorageOffset;
    private long[] txLocalOffset;
    private long[] txStart;
    private int[] txPending;
    private int[] txStage;
    private int[] txResult;
    private long nextUnit;
    private long issued;
    private long completed;
    private int activeTx;
    private final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    private volatile String failure;
    private volatile long startNanos;
    private volatile long endNanos;
    private volatile long ops;
    private volatile long hits;
    private volatile long allocated;
    private volatile long misses;

    private static final int STAGE_IDLE = 0;
    private static final int STAGE_WRITE = 1;
    private static final int STAGE_READ = 2;

    InitiatorWorker(int index, int cpu, ExecutionStrategy mode, Dev dev, ComchConnection connection,
            MemorySegment local,
            MemorySegment expected, long ioSize, long rangeBase, long rangeUnits, long opsTarget, int transactions) {
        this.index = index;
        this.cpu = cpu;
        this.mode = mode;
        this.dev = dev;
        this.connection = connection;
        this.local = local;
        this.expected = expected;
        this.ioSize = ioSize;
        this.rangeBase = rangeBase;
        this.rangeUnits = rangeUnits;
        this.opsTarget = opsTarget;
        this.transactions = transactions;
        this.runner = new AgentRunner(this, AppSupport.workerIdle(), AgentRunner.ErrorHandler.stderr());
    }

    // ------------------------------------------------------------------ control thread API

    /** Starts the thread and waits until its contexts run; returns its consumer id. */
    int prepare(long timeoutNanos) throws InterruptedException {
        runner.start();
        if (!prepared.await(timeoutNanos, TimeUnit.NANOSECONDS)) {
            throw new DocaException(DocaError.TIME_OUT, "worker " + index + " did not get ready");
        }
        if (setupError != null) {
            throw new DocaException(DocaError.INITIALIZATION, "worker " + index + ": " + setupError);
        }
        return consumerId;
    }

    void run(int serviceConsumerId) {
        this.remoteConsumerId = serviceConsumerId;
        startSignal.countDown();
        runner.wake();
    }

    boolean awaitFinished(long nanos) throws InterruptedException {
        return finished.await(nanos, TimeUnit.NANOSECONDS);
    }

    void abort() {
        abort = true;
        startSignal.countDown();
        runner.wake();
    }

    /** Destroys the consumer and producer and ends the thread. */
    void shutdown(long timeoutMillis) throws InterruptedException {
        abort = true;
        startSignal.countDown();
        released.countDown();
        runner.close(TimeUnit.MILLISECONDS.toNanos(timeoutMillis));
    }

    String failure() {
        return failure;
    }

    long ops() {
        return ops;
    }

    long hits() {
        return hits;
    }

    long misses() {
        return misses;
    }

    long startNanos() {
        return startNanos;
    }

    long endNanos() {
        return endNanos;
    }

    /** Bytes this worker's thread allocated while running transactions (0 in steady state). */
    long dataPathAllocatedBytes() {
        return allocated;
    }

    Histogram latency() {
        return latency;
    }

    // ------------------------------------------------------------------ worker thread

    @Override
    public String roleName() {
        return "initiator-worker-" + index;
    }

    /** Pins the thread ({@code --cpu}), builds and starts the contexts, announces the consumer (control path). */
    @Override
    public void onStart() {
        arena = Arena.ofShared();
        try {
            io.jdoca.core.util.CpuAffinity.pinCurrentThread(cpu); // --cpu: the worker really runs there
            int recvCount = 2 * transactions;
            MemorySegment msgMem = arena.allocate((long) MSG * (transactions + recvCount), 64);
            msgMap = MemoryMap.create();
            msgMap.setMemrange(msgMem);
            msgMap.addDev(dev);
            msgMap.setPermissions(AccessFlags.LOCAL_READ_WRITE);
            DocaException.check(msgMap.start(), "message map start");
            inv = BufInventory.create(transactions + recvCount);
            DocaException.check(inv.start(), "inventory start");
            pe = ProgressEngine.create();
            consumer = ComchConsumer.create(connection, msgMap);
            consumer.setMaxMsgSize(MSG);
            consumer.setRingSlots(AppSupport.pow2(recvCount));
            consumer.taskPostRecvSetConf(this::onRecv, this::onRecvError, recvCount);
            producer = ComchProducer.create(connection);
            producer.taskSendSetConf(this::onSend, this::onSendError, transactions);
            DocaException.check(pe.connectCtx(consumer), "connect consumer");
            DocaException.check(pe.connectCtx(producer), "connect producer");
            DocaException.check(consumer.start(), "consumer start");
            DocaException.check(producer.start(), "producer start");
            sends = new ComchProducerTaskSend[transactions];
            txStorageOffset = new long[transactions];
            txLocalOffset = new long[transactions];
            txStart = new long[transactions];
            txPending = new int[transactions];
            txStage = new int[transactions];
            txResult = new int[transactions];
            for (int i = 0; i < transactions; i++) {
                Buf b = inv.getByData(msgMap, msgMap.baseAddress() + (long) MSG * i, MSG);
                sends[i] = producer.taskSendAllocInit(b, null, 0, 0, i);
                if (sends[i] == null) {
                    throw new DocaException(producer.lastError(), "producer task");
                }
            }
            for (int j = 0; j < recvCount; j++) {
                Buf b = inv.getByAddr(msgMap, msgMap.baseAddress() + (long) MSG * (transactions + j), MSG);
                ComchConsumerTaskPostRecv r = consumer.taskPostRecvAllocInit(b, j);
                if (r == null) {
                    throw new DocaException(consumer.lastError(), "consumer task");
                }
                DocaException.check(r.submit(), "post receive");
            }
            consumerId = consumer.id();
        } catch (RuntimeException e) {
            setupError = e.getMessage();
            finish(); // awaitFinished returns at once; shutdown releases and tears down what was built
        }
        prepared.countDown();
    }

    /**
     * One duty cycle: waits for {@link #run} (or an abort), then progresses the engine until every
     * transaction has ended, then waits for {@link #shutdown}; returns {@link Agent#DONE} once released.
     */
    @Override
    public int doWork() {
        switch (phase) {
            case WAITING_FOR_START -> {
                if (startSignal.getCount() > 0) {
                    return 0;
                }
                if (abort) {
                    finish();
                    return 1;
                }
                startDataPath();
                return 1;
            }
            case RUNNING -> {
                int work;
                try {
                    work = pe.progress() ? 1 : 0;
                } catch (RuntimeException e) {
                    failure = "worker " + index + " crashed: " + e;
                    work = 1;
                }
                if (activeTx == 0 || failure != null || abort) {
                    endDataPath();
                    finish();
                }
                return work;
            }
            case FINISHED -> {
                return released.getCount() == 0 ? DONE : 0;
            }
            default -> throw new IllegalStateException("phase " + phase);
        }
    }

    /** Destroys the consumer and producer and frees the worker's memory (control path, worker thread). */
    @Override
    public void onClose() {
        if (phase != Phase.FINISHED) { // closed without shutdown (the runner's deadline): still answer awaitFinished
            finish();
        }
        try {
            teardown();
            if (inv != null) {
                inv.stop();
            }
            if (msgMap != null) {
                msgMap.close();
            }
        } catch (RuntimeException e) {
            failure = "worker " + index + " crashed: " + e;
        } finally {
            arena.close();
        }
    }

    private void enter(Phase next) {
        if (!phase.canMoveTo(next)) {
            throw new IllegalStateException("initiator worker " + index + ": " + phase + " -> " + next);
        }
        phase = next;
    }

    private void finish() {
        enter(Phase.FINISHED);
        finished.countDown();
    }

    private void startDataPath() {
        enter(Phase.RUNNING);
        for (ComchProducerTaskSend s : sends) {
            s.setRemoteConsumerId(remoteConsumerId);
        }
        hits0 = pe.hits();
        misses0 = pe.misses();
        startNanos = System.nanoTime();
        int n = (int) Math.min(transactions, opsTarget);
        for (int i = 0; i < n; i++) {
            startTransaction(i);
        }
        alloc0 = ThreadAllocation.current();
    }

    private void endDataPath() {
        allocated = ThreadAllocation.current() - alloc0;
        endNanos = System.nanoTime();
        ops = completed;
        hits = pe.hits() - hits0;
        misses = pe.misses() - misses0;
    }

    private void startTransaction(int i) {
        long unit = nextUnit;
        nextUnit = nextUnit + 1 == rangeUnits ? 0 : nextUnit + 1;
        long storageOff = rangeBase + unit * ioSize;
        long localOff = storageOff % (local.byteSize() - local.byteSize() % ioSize);
        txStorageOffset[i] = storageOff;
        txLocalOffset[i] = localOff;
        txStart[i] = System.nanoTime();
        issued++;
        activeTx++;
        if (mode.copyExpected()) {
            MemorySegment.copy(expected, storageOff, local, localOff, ioSize);
        }
        if (mode.write()) {
            issue(i, IoMessageType.WRITE, STAGE_WRITE);
        } else {
            afterWrite(i);
        }
    }

    private void afterWrite(int i) {
        if (mode.read()) {
            if (mode.validate()) {
                fillZero(txLocalOffset[i]);
            }
            issue(i, IoMessageType.READ, STAGE_READ);
        } else {
            finish(i);
        }
    }

    private void fillZero(long off) {
        // clear the local block so a read that moved nothing cannot pass validation
        for (long p = 0; p < ioSize; p += 8) {
            local.set(ValueLayout.JAVA_LONG_UNALIGNED, off + p, 0L);
        }
    }

    private void afterRead(int i) {
        if (mode.validate()) {
            long so = txStorageOffset[i];
            long lo = txLocalOffset[i];
            long m = MemorySegment.mismatch(local, lo, lo + ioSize, expected, so, so + ioSize);
            if (m >= 0) {
                recordMismatch(so, lo, m);
                return;
            }
        }
        finish(i);
    }

    private void finish(int i) {
        long lat = System.nanoTime() - txStart[i];
        latency.recordValue(Math.min(lat, latency.getHighestTrackableValue()));
        completed++;
        txStage[i] = STAGE_IDLE;
        activeTx--;
        if (issued < opsTarget && !abort) {
            startTransaction(i);
        }
    }

    private void issue(int i, IoMessageType type, int stage) {
        ComchProducerTaskSend s = sends[i];
        Buf b = s.buf();
        sendView.wrap(b.segment(), b.dataOffset()).setRequest(type, i, (int) ioSize, txLocalOffset[i],
                txStorageOffset[i]);
        txStage[i] = stage;
        txPending[i] = 2;
        txResult[i] = 0;
        DocaError e = s.submit();
        if (e != DocaError.SUCCESS) {
            fail("submit of " + type + " failed: " + e.docaName());
        }
    }

    private void onSend(ComchProducerTaskSend t, long ud, long cud) {
        step((int) ud);
    }

    private void onSendError(ComchProducerTaskSend t, long ud, long cud) {
        if (!abort) {
            fail("request send failed: " + t.status().docaName());
        }
    }

    private void onRecv(ComchConsumerTaskPostRecv t, long ud, long cud) {
        Buf b = t.buf();
        if (b.dataLen() != MSG) {
            fail("response of " + b.dataLen() + " bytes, expected " + MSG);
            return;
        }
        recvView.wrap(b.segment(), b.dataOffset());
        long tx = recvView.userData();
        int result = recvView.result();
        int type = recvView.typeCode();
        b.resetDataLen();
        DocaError e = t.submit();
        if (e != DocaError.SUCCESS && !abort) {
            fail("re-posting a receive failed: " + e.docaName());
            return;
        }
        if (tx < 0 || tx >= transactions || txStage[(int) tx] == STAGE_IDLE || type != IoMessageType.RESULT.code()) {
            fail("unexpected response (user_data " + tx + ", type " + type + ")");
            return;
        }
        txResult[(int) tx] = result;
        step((int) tx);
    }

    private void onRecvError(ComchConsumerTaskPostRecv t, long ud, long cud) {
        if (!abort && failure == null && t.status() != DocaError.SHUTDOWN) {
            fail("receive failed: " + t.status().docaName());
        }
        t.free();
    }

    private void step(int i) {
        if (--txPending[i] > 0) {
            return;
        }
        int res = txResult[i];
        if (res != DocaError.SUCCESS.code()) {
            fail("IO at storage offset " + txStorageOffset[i] + " failed: " + DocaError.fromCode(res).docaName()
                    + " (" + res + ")");
            return;
        }
        if (txStage[i] == STAGE_WRITE) {
            afterWrite(i);
        } else if (txStage[i] == STAGE_READ) {
            afterRead(i);
        }
    }

    private void fail(String why) {
        if (failure == null) {
            failure = "worker " + index + ": " + why;
        }
    }

    private void recordMismatch(long storageOff, long localOff, long at) {
        long from = at & ~15L;
        int len = (int) Math.min(32, ioSize - from);
        HexFormat hex = HexFormat.ofDelimiter(" ");
        byte[] exp = expected.asSlice(storageOff + from, len).toArray(ValueLayout.JAVA_BYTE);
        byte[] got = local.asSlice(localOff + from, len).toArray(ValueLayout.JAVA_BYTE);
        fail("data mismatch at storage offset " + (storageOff + at) + " (block offset " + storageOff + " + " + at
                + ")\n"
                + "  expected [" + (storageOff + from) + ".." + (storageOff + from + len) + "): " + hex.formatHex(exp)
                        + "\n"
                + "  actual   [" + (storageOff + from) + ".." + (storageOff + from + len) + "): " + hex.formatHex(got));
    }

    private void teardown() {
        if (pe == null) {
            return;
        }
        abort = true;
        if (producer != null && sends != null) {
            pe.progressUntil(() -> producer.numInflightTasks() == 0, IdleStrategy.backoff(), 2_000_000_000L);
            for (ComchProducerTaskSend s : sends) {
                if (s != null) {
                    s.buf().decRefcount();
                    s.free();
                }
            }
        }
        if (producer != null && producer.state() != CtxState.IDLE) {
            producer.stop();
        }
        if (consumer != null && consumer.state() != CtxState.IDLE) {
            consumer.stop();
        }
        pe.progressUntil(() -> (producer == null || producer.state() == CtxState.IDLE)
                && (consumer == null || consumer.state() == CtxState.IDLE), IdleStrategy.backoff(), 5_000_000_000L);
        if ((producer == null || producer.state() == CtxState.IDLE) && (consumer == null
                || consumer.state() == CtxState.IDLE)) {
            pe.close();
        }
    }
}
