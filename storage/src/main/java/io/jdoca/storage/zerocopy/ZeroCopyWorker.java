package io.jdoca.storage.zerocopy;

import io.jdoca.comch.ComchConnection;
import io.jdoca.comch.ComchConsumer;
import io.jdoca.comch.ComchConsumerTaskPostRecv;
import io.jdoca.comch.ComchProducer;
import io.jdoca.comch.ComchProducerTaskSend;
import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskState;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.rdma.Rdma;
import io.jdoca.rdma.RdmaConnection;
import io.jdoca.rdma.RdmaExport;
import io.jdoca.rdma.RdmaTaskReceive;
import io.jdoca.rdma.RdmaTaskSend;
import io.jdoca.storage.common.AppSupport;
import io.jdoca.storage.common.ConnectionRole;
import io.jdoca.storage.common.IoMessage;
import io.jdoca.storage.common.IoMessageType;
import io.jdoca.storage.common.PeWorkerThread;
import io.jdoca.storage.common.ThreadAllocation;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One zero-copy relay worker (DOCA's {@code comch_to_rdma_zero_copy} worker, reference §6): a
 * {@link PeWorkerThread} with a Comch consumer and producer towards the initiator and two RDMA
 * contexts (io_control, io_data) towards the target. Each transaction has two 64-byte buffers, each
 * shared by two tasks: Comch receive → RDMA send (the request goes on byte for byte), and RDMA
 * receive → Comch send (the response). The relay never touches the data: the target moves it
 * straight to and from the host memory the relay re-exported.
 *
 * <p>Unlike DOCA's sample, which overwrites {@code result} with SUCCESS, the target's result code
 * reaches the initiator unchanged. No allocation on the data path; methods other than the
 * constructor and {@link #close()} run on the worker thread.
 */
final class ZeroCopyWorker implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("io.jdoca.storage.zerocopy");
    private static final long CMD_TIMEOUT = AppSupport.commandTimeoutNanos();
    private static final int MSG = IoMessage.SIZE;

    private final int index;
    private final PeWorkerThread thread;
    private final Dev dev;
    private final int transactions;
    private final ComchConnection comchConnection;
    private final Arena arena = Arena.ofShared();

    private Rdma ctrl;
    private Rdma data;
    private RdmaConnection ctrlConn;
    private ComchConsumer consumer;
    private ComchProducer producer;
    private MemoryMap msgMap;
    private BufInventory inv;
    private Buf[] reqBuf;
    private Buf[] respBuf;
    private ComchConsumerTaskPostRecv[] comchRecv;
    private RdmaTaskSend[] rdmaSend;
    private ComchProducerTaskSend[] errReply;
    private RdmaTaskReceive[] rdmaRecv;
    private ComchProducerTaskSend[] comchSend;
    private final IoMessage view = new IoMessage();
    private volatile int consumerId;
    private boolean running;
    private boolean tearingDown;
    private long ops;
    private long errors;
    private long hits0;
    private long misses0;
    private volatile long opsOut;
    private volatile long hits;
    private long alloc0;
    private volatile long allocated;
    private volatile long misses;

    ZeroCopyWorker(int index, Dev dev, int transactions, ComchConnection comchConnection) {
        this.index = index;
        this.dev = dev;
        this.transactions = transactions;
        this.comchConnection = comchConnection;
        this.thread = new PeWorkerThread("zero-copy-worker-" + index);
        thread.run(this::createObjects, CMD_TIMEOUT);
    }

    private void createObjects() {
        int n = transactions;
        int q = Math.min(Rdma.MAX_QUEUE_SIZE, AppSupport.pow2(Math.max(16, n)));
        ctrl = Rdma.create(dev);
        data = Rdma.create(dev);
        for (Rdma r : new Rdma[] {ctrl, data}) {
            DocaException.check(r.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.RDMA_READ | AccessFlags.RDMA_WRITE),
                    "rdma permissions");
            DocaException.check(r.setSendQueueSize(q), "send queue size");
            DocaException.check(r.setRecvQueueSize(q), "recv queue size");
        }
        DocaException.check(ctrl.taskReceiveSetConf(this::onRdmaRecv, this::onRdmaRecvError, n), "receive conf");
        DocaException.check(ctrl.taskSendSetConf(this::onRdmaSend, this::onRdmaSendError, n), "send conf");
        DocaException.check(thread.pe().connectCtx(ctrl), "connect ctrl");
        DocaException.check(thread.pe().connectCtx(data), "connect data");
        start(ctrl.start());
        start(data.start());

        MemorySegment mem = arena.allocate((long) MSG * 2 * n, 64);
        msgMap = MemoryMap.create();
        msgMap.setMemrange(mem);
        msgMap.addDev(dev);
        msgMap.setPermissions(AccessFlags.LOCAL_READ_WRITE);
        DocaException.check(msgMap.start(), "message map");
        inv = BufInventory.create(2 * n);
        inv.start();

        consumer = ComchConsumer.create(comchConnection, msgMap);
        consumer.setMaxMsgSize(MSG);
        consumer.setRingSlots(AppSupport.pow2(2 * n));
        DocaException.check(consumer.taskPostRecvSetConf(this::onComchRecv, this::onComchRecvError, n), "post recv conf");
        producer = ComchProducer.create(comchConnection);
        DocaException.check(producer.taskSendSetConf(this::onComchSend, this::onComchSendError, 2 * n), "producer conf");
        DocaException.check(thread.pe().connectCtx(consumer), "connect consumer");
        DocaException.check(thread.pe().connectCtx(producer), "connect producer");
        DocaException.check(consumer.start(), "consumer start");
        DocaException.check(producer.start(), "producer start");
        consumerId = consumer.id();
    }

    private static void start(DocaError e) {
        if (e != DocaError.IN_PROGRESS && e != DocaError.SUCCESS) {
            throw new DocaException(e, "rdma start");
        }
    }

    int consumerId() {
        return consumerId;
    }

    int index() {
        return index;
    }

    byte[] export(ConnectionRole role) {
        return thread.execute(() -> {
            Rdma r = role == ConnectionRole.IO_DATA ? data : ctrl;
            RdmaExport ex = r.export();
            if (role == ConnectionRole.IO_CONTROL) {
                ctrlConn = ex.connection();
            } else {
                dataExport = ex.connection();
            }
            return ex.blob();
        }, CMD_TIMEOUT);
    }

    private RdmaConnection dataExport;

    void connect(ConnectionRole role, byte[] peerBlob) {
        thread.run(() -> {
            Rdma r = role == ConnectionRole.IO_DATA ? data : ctrl;
            RdmaConnection c = role == ConnectionRole.IO_DATA ? dataExport : ctrlConn;
            DocaException.check(r.connect(peerBlob, c), "rdma connect (" + role.wireName() + ")");
        }, CMD_TIMEOUT);
    }

    boolean isReady() {
        return thread.execute(() -> ctrl.state() == CtxState.RUNNING && data.state() == CtxState.RUNNING, CMD_TIMEOUT);
    }

    /** Builds the transactions, posts every receive and begins relaying to {@code initiatorConsumerId}. */
    void startDataPath(int initiatorConsumerId) {
        thread.run(() -> {
            int n = transactions;
            reqBuf = new Buf[n];
            respBuf = new Buf[n];
            comchRecv = new ComchConsumerTaskPostRecv[n];
            rdmaSend = new RdmaTaskSend[n];
            errReply = new ComchProducerTaskSend[n];
            rdmaRecv = new RdmaTaskReceive[n];
            comchSend = new ComchProducerTaskSend[n];
            for (int i = 0; i < n; i++) {
                reqBuf[i] = inv.getByAddr(msgMap, msgMap.baseAddress() + (long) MSG * i, MSG);
                respBuf[i] = inv.getByAddr(msgMap, msgMap.baseAddress() + (long) MSG * (n + i), MSG);
                comchRecv[i] = consumer.taskPostRecvAllocInit(reqBuf[i], i);
                rdmaSend[i] = ctrl.taskSendAllocInit(ctrlConn, reqBuf[i], i);
                errReply[i] = producer.taskSendAllocInit(reqBuf[i], null, 0, initiatorConsumerId, i);
                rdmaRecv[i] = ctrl.taskReceiveAllocInit(respBuf[i], i);
                comchSend[i] = producer.taskSendAllocInit(respBuf[i], null, 0, initiatorConsumerId, i);
                if (reqBuf[i] == null || respBuf[i] == null || comchRecv[i] == null || rdmaSend[i] == null || errReply[i] == null
                        || rdmaRecv[i] == null || comchSend[i] == null) {
                    throw new DocaException(DocaError.NO_MEMORY, "cannot prepare transaction " + i);
                }
            }
            running = true;
            alloc0 = ThreadAllocation.current();
            hits0 = thread.pe().hits();
            misses0 = thread.pe().misses();
            for (int i = 0; i < n; i++) {
                DocaException.check(rdmaRecv[i].submit(), "post rdma receive");
                DocaException.check(comchRecv[i].submit(), "post comch receive");
            }
        }, CMD_TIMEOUT);
    }

    void stopDataPath() {
        thread.run(() -> {
            allocated = ThreadAllocation.current() - alloc0;
            running = false;
            // From here on the peer may tear its connections down first: its resets are expected.
            tearingDown = true;
            hits = thread.pe().hits() - hits0;
            misses = thread.pe().misses() - misses0;
            opsOut = ops;
        }, CMD_TIMEOUT);
    }

    long ops() {
        return opsOut;
    }

    /** Bytes the worker thread allocated between data-path start and stop (0 in steady state). */
    long dataPathAllocatedBytes() {
        return allocated;
    }

    long hits() {
        return hits;
    }

    long misses() {
        return misses;
    }

    // ------------------------------------------------------------------ data path

    /** A request from the initiator: forward the same buffer to the target. */
    private void onComchRecv(ComchConsumerTaskPostRecv t, long ud, long cud) {
        int i = (int) ud;
        DocaError e = reqBuf[i].dataLen() == MSG ? rdmaSend[i].submit() : DocaError.INVALID_VALUE;
        if (e != DocaError.SUCCESS) {
            replyError(i, e == DocaError.INVALID_VALUE ? DocaError.INVALID_VALUE : DocaError.IO_FAILED);
        }
    }

    private void replyError(int i, DocaError code) {
        errors++;
        Buf b = reqBuf[i];
        b.setDataLen(MSG);
        view.wrap(b.segment(), b.dataOffset()).setResponse(code.code());
        if (errReply[i].submit() != DocaError.SUCCESS) {
            repostComch(i);
        }
    }

    private void onComchRecvError(ComchConsumerTaskPostRecv t, long ud, long cud) {
        if (!tearingDown) {
            errors++;
            LOG.log(System.Logger.Level.WARNING, "worker {0}: comch receive failed: {1}", index, t.status().docaName());
        }
    }

    private void onRdmaSend(RdmaTaskSend t, long ud, long cud) {
        repostComch((int) ud);
    }

    private void onRdmaSendError(RdmaTaskSend t, long ud, long cud) {
        if (!tearingDown) {
            replyError((int) ud, DocaError.IO_FAILED);
        }
    }

    private void repostComch(int i) {
        reqBuf[i].resetDataLen();
        if (comchRecv[i].submit() != DocaError.SUCCESS && !tearingDown) {
            errors++;
        }
    }

    /** A response from the target: relay it as is (its result code included) to the initiator. */
    private void onRdmaRecv(RdmaTaskReceive t, long ud, long cud) {
        int i = (int) ud;
        Buf b = respBuf[i];
        if (b.dataLen() != MSG) {
            errors++;
            repostRdma(i);
            return;
        }
        view.wrap(b.segment(), b.dataOffset());
        if (view.typeCode() != IoMessageType.RESULT.code()) {
            view.setResponse(DocaError.UNEXPECTED.code());
        }
        if (comchSend[i].submit() != DocaError.SUCCESS) {
            errors++;
            repostRdma(i);
        }
    }

    private void onRdmaRecvError(RdmaTaskReceive t, long ud, long cud) {
        if (!tearingDown) {
            errors++;
            LOG.log(System.Logger.Level.WARNING, "worker {0}: rdma receive failed: {1}", index, t.status().docaName());
        }
    }

    private void onComchSend(ComchProducerTaskSend t, long ud, long cud) {
        int i = (int) ud;
        if (t == comchSend[i]) {
            if (running) {
                ops++;
            }
            repostRdma(i);
        } else {
            repostComch(i);
        }
    }

    private void onComchSendError(ComchProducerTaskSend t, long ud, long cud) {
        if (tearingDown) {
            return;
        }
        errors++;
        onComchSend(t, ud, cud);
    }

    private void repostRdma(int i) {
        respBuf[i].resetDataLen();
        if (rdmaRecv[i].submit() != DocaError.SUCCESS && !tearingDown) {
            errors++;
        }
    }

    // ------------------------------------------------------------------ teardown

    @Override
    public void close() {
        try {
            thread.run(() -> {
                tearingDown = true;
                running = false;
                stopIfRunning(ctrl);
                stopIfRunning(data);
                stopIfRunning(consumer);
                stopIfRunning(producer);
            }, CMD_TIMEOUT);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (System.nanoTime() < deadline) {
                boolean idle = thread.execute(() -> {
                    freeAll(comchRecv);
                    freeAll(rdmaSend);
                    freeAll(errReply);
                    freeAll(rdmaRecv);
                    freeAll(comchSend);
                    return isIdle(ctrl) && isIdle(data) && isIdle(consumer) && isIdle(producer);
                }, CMD_TIMEOUT);
                if (idle) {
                    break;
                }
                Thread.sleep(2);
            }
            thread.run(() -> {
                for (Buf[] bs : new Buf[][] {reqBuf, respBuf}) {
                    if (bs != null) {
                        for (Buf b : bs) {
                            if (b != null) {
                                b.decRefcount();
                            }
                        }
                    }
                }
                if (msgMap != null) {
                    msgMap.close();
                }
                if (isIdle(ctrl) && isIdle(data) && isIdle(consumer) && isIdle(producer)) {
                    thread.pe().close();
                }
            }, CMD_TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (DocaException e) {
            LOG.log(System.Logger.Level.WARNING, "worker {0}: teardown: {1}", index, e.getMessage());
        } finally {
            thread.close();
            arena.close();
        }
    }

    private static void stopIfRunning(io.jdoca.core.exec.Ctx c) {
        if (c != null && c.state() != CtxState.IDLE) {
            c.stop();
        }
    }

    private static boolean isIdle(io.jdoca.core.exec.Ctx c) {
        return c == null || c.state() == CtxState.IDLE;
    }

    private static void freeAll(Task[] ts) {
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
