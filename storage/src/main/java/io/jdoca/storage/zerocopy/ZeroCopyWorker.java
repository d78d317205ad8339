package io.jdoca.storage.zerocopy;

import io.jdoca.comch.ComchConnection;
import io.jdoca.comch.ComchConsumer;
import io.jdoca.comch.ComchConsumerTaskPostRecv;
import io.jdoca.comch.ComchProducer;
import io.jdoca.comch.ComchProducerTaskSend;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.exec.Ctx;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.rdma.Rdma;
import io.jdoca.rdma.RdmaConnection;
import io.jdoca.rdma.RdmaExport;
import io.jdoca.rdma.RdmaTaskReceive;
import io.jdoca.rdma.RdmaTaskSend;
import io.jdoca.storage.common.AppSupport;
import io.jdoca.storage.common.DataPathWorker;
import io.jdoca.storage.wire.ConnectionRole;
import io.jdoca.storage.wire.IoMessage;
import io.jdoca.storage.wire.IoMessageType;

/**
 * One zero-copy relay worker (DOCA's {@code comch_to_rdma_zero_copy} worker, reference §6): a
 * {@link DataPathWorker} (an agent-runtime {@code EngineWorker}) with a Comch consumer and producer
 * towards the initiator and two RDMA contexts (io_control, io_data) towards the target. Each
 * transaction has two 64-byte buffers, each shared by two tasks: Comch receive → RDMA send (the request goes on byte
 * for byte), and RDMA
 * receive → Comch send (the response). The relay never touches the data: the target moves it
 * straight to and from the host memory the relay re-exported.
 *
 * <p>Unlike DOCA's sample, which overwrites {@code result} with SUCCESS, the target's result code
 * reaches the initiator unchanged. No allocation on the data path; methods other than the
 * constructor and {@link #close()} run on the worker thread.
 */
final class ZeroCopyWorker extends DataPathWorker {
    private static final int MSG = IoMessage.SIZE;

    private final ComchConnection comchConnection;

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

    /**
     * {@code rdmaBind}: the address the RDMA contexts' TCP listeners bind to (null: all, the library default);
     * {@code gidIndex}: their GID index ({@code -g}; -1: the device's).
     */
    ZeroCopyWorker(int index, Dev dev, int transactions, ComchConnection comchConnection,
            java.net.InetAddress rdmaBind, int gidIndex) {
        super("zero-copy-worker", index, dev, transactions, rdmaBind, gidIndex, true);
        this.comchConnection = comchConnection;
        create(this::createObjects);
    }

    private void createObjects() {
        int n = transactions;
        createRdmaPair(this::onRdmaRecv, this::onRdmaRecvError, this::onRdmaSend, this::onRdmaSendError);
        startRdmaPair();

        msgMap = createMessageMap((long) MSG * 2 * n);
        inv = BufInventory.create(2 * n);
        inv.start();

        consumer = ComchConsumer.create(comchConnection, msgMap);
        consumer.setMaxMsgSize(MSG);
        consumer.setRingSlots(AppSupport.pow2(2 * n));
        DocaException.check(consumer.taskPostRecvSetConf(this::onComchRecv, this::onComchRecvError, n),
                "post recv conf");
        producer = ComchProducer.create(comchConnection);
        DocaException.check(producer.taskSendSetConf(this::onComchSend, this::onComchSendError, 2 * n),
                "producer conf");
        DocaException.check(thread.pe().connectCtx(consumer), "connect consumer");
        DocaException.check(thread.pe().connectCtx(producer), "connect producer");
        DocaException.check(consumer.start(), "consumer start");
        DocaException.check(producer.start(), "producer start");
        consumerId = consumer.id();
        reqBuf = new Buf[n];
        respBuf = new Buf[n];
        comchRecv = new ComchConsumerTaskPostRecv[n];
        rdmaSend = new RdmaTaskSend[n];
        errReply = new ComchProducerTaskSend[n];
        rdmaRecv = new RdmaTaskReceive[n];
        comchSend = new ComchProducerTaskSend[n];
    }

    int consumerId() {
        return consumerId;
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
        int n = transactions;
        startTransactions(i -> {
            reqBuf[i] = inv.getByAddr(msgMap, msgMap.baseAddress() + (long) MSG * i, MSG);
            respBuf[i] = inv.getByAddr(msgMap, msgMap.baseAddress() + (long) MSG * (n + i), MSG);
            comchRecv[i] = consumer.taskPostRecvAllocInit(reqBuf[i], i);
            rdmaSend[i] = ctrl.taskSendAllocInit(ctrlConn, reqBuf[i], i);
            errReply[i] = producer.taskSendAllocInit(reqBuf[i], null, 0, initiatorConsumerId, i);
            rdmaRecv[i] = ctrl.taskReceiveAllocInit(respBuf[i], i);
            comchSend[i] = producer.taskSendAllocInit(respBuf[i], null, 0, initiatorConsumerId, i);
            return allSet(reqBuf[i], respBuf[i], comchRecv[i], rdmaSend[i], errReply[i], rdmaRecv[i], comchSend[i]);
        }, i -> {
            DocaException.check(rdmaRecv[i].submit(), "post rdma receive");
            DocaException.check(comchRecv[i].submit(), "post comch receive");
        });
    }

    // ------------------------------------------------------------------ data path

    /** A request from the initiator: forward the same buffer to the target. */
    private void onComchRecv(ComchConsumerTaskPostRecv t, long ud, long cud) {
        int i = (int) ud;
        if (reqBuf[i].dataLen() == MSG) {
            // The relay answers from another slot: the initiator's user data ties the response to it.
            requestArrived(view.wrap(reqBuf[i].segment(), reqBuf[i].dataOffset()).userData());
        }
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
        receiveFailed("comch", t);
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
        submitOrCount(comchRecv[i]);
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
        receiveFailed("rdma", t);
    }

    private void onComchSend(ComchProducerTaskSend t, long ud, long cud) {
        int i = (int) ud;
        if (t == comchSend[i]) {
            if (running) {
                ops++;
                requestAnswered(view.wrap(respBuf[i].segment(), respBuf[i].dataOffset()).userData());
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
        submitOrCount(rdmaRecv[i]);
    }

    // ------------------------------------------------------------------ teardown (DataPathWorker.close)

    @Override
    protected Ctx[] contexts() {
        return new Ctx[] {ctrl, data, consumer, producer};
    }

    @Override
    protected void freeCompletedTasks() {
        freeAll(comchRecv);
        freeAll(rdmaSend);
        freeAll(errReply);
        freeAll(rdmaRecv);
        freeAll(comchSend);
    }

    @Override
    protected Buf[][] buffers() {
        return new Buf[][] {reqBuf, respBuf};
    }

    @Override
    protected void releaseMaps() {
        if (msgMap != null) {
            msgMap.close();
        }
    }
}
