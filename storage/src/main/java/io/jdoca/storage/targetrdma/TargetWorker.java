package io.jdoca.storage.targetrdma;

import io.jdoca.core.DocaError;
import io.jdoca.storage.common.Msync;
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
import io.jdoca.rdma.RdmaTaskRead;
import io.jdoca.rdma.RdmaTaskReceive;
import io.jdoca.rdma.RdmaTaskSend;
import io.jdoca.rdma.RdmaTaskWrite;
import io.jdoca.storage.common.DataPathWorker;
import io.jdoca.storage.wire.ConnectionRole;
import io.jdoca.storage.wire.IoMessage;
import io.jdoca.storage.wire.IoMessageType;

/**
 * One target-rdma worker (DOCA's {@code target_rdma_worker}): a {@link DataPathWorker} (an
 * agent-runtime {@code EngineWorker}) with two RDMA contexts — io_control (IO messages: receive,
 * send) and io_data (transfers: read, write) — and {@code transactions} pre-built transactions,
 * each a 64-byte message buffer with its receive, send, read and write tasks and a storage and a
 * remote buffer.
 *
 * <p>Per request (reference §2): a <b>read</b> is an RDMA write from storage + storage_offset to the
 * requester's memory + requester_offset; a <b>write</b> is an RDMA read the other way; the reply is
 * the request rewritten in place (SUCCESS, IO_FAILED on a transfer error, INVALID_VALUE for a bad
 * type or a range outside the storage or the requester's memory), and the receive is re-posted once
 * the reply is sent. No allocation on this path. All methods except the constructor and
 * {@link #close()} run commands on the worker thread.
 */
final class TargetWorker extends DataPathWorker {
    private static final int MSG = IoMessage.SIZE;

    private final MemoryMap storageMap;
    private final MemoryMap remoteMap;
    /** {@link Durability#WRITE}: each write's storage range is flushed before its response. */
    private final boolean syncPerWrite;
    /** Worker thread: the storage range of each transaction's write, for the flush (pre-allocated). */
    private final long[] syncOffset;
    private final long[] syncLength;

    // worker-thread state
    private RdmaConnection dataConn;
    private MemoryMap msgMap;
    private BufInventory msgInv;
    private BufInventory storageInv;
    private BufInventory remoteInv;
    private Buf[] msgBuf;
    private Buf[] localBuf;
    private Buf[] remoteBuf;
    private RdmaTaskReceive[] recv;
    private RdmaTaskSend[] send;
    private RdmaTaskRead[] read;
    private RdmaTaskWrite[] write;
    private final IoMessage view = new IoMessage();
    /** Worker thread: completed reads/writes and their bytes while running (metrics, read racily). */
    private long reads;
    private long writes;
    private long readBytes;
    private long writeBytes;
    private static final java.lang.invoke.VarHandle[] COUNTERS = new java.lang.invoke.VarHandle[4];

    static {
        try {
            java.lang.invoke.MethodHandles.Lookup l = java.lang.invoke.MethodHandles.lookup();
            String[] names = {"reads", "writes", "readBytes", "writeBytes"};
            for (int k = 0; k < names.length; k++) {
                COUNTERS[k] = l.findVarHandle(TargetWorker.class, names[k], long.class);
            }
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Any thread (metrics): the base columns, then reads, writes, read bytes, write bytes
     * ({@link io.jdoca.storage.common.DataPathMetrics#TARGET_WORKER}); opaque reads of this worker's
     * plain single-writer longs, racy by design.
     */
    @Override
    public void readCounters(long[] into) {
        super.readCounters(into);
        for (int k = 0; k < COUNTERS.length; k++) {
            into[4 + k] = (long) COUNTERS[k].getOpaque(this);
        }
    }

    TargetWorker(int index, Dev dev, int transactions, MemoryMap storageMap, MemoryMap remoteMap) {
        this(index, dev, transactions, storageMap, remoteMap, null, -1, false);
    }

    /**
     * {@code rdmaBind}: the address the RDMA contexts' TCP listeners bind to (null: all, the library
     * default); {@code gidIndex}: the RDMA contexts' GID index ({@code -g}; -1: the device's);
     * {@code syncPerWrite}: flush each write's range of the (file-mapped) storage before its response
     * ({@link Durability#WRITE}).
     */
    TargetWorker(int index, Dev dev, int transactions, MemoryMap storageMap, MemoryMap remoteMap,
            java.net.InetAddress rdmaBind, int gidIndex, boolean syncPerWrite) {
        super("target-worker", index, dev, transactions, rdmaBind, gidIndex, true);
        this.storageMap = storageMap;
        this.remoteMap = remoteMap;
        this.syncPerWrite = syncPerWrite;
        this.syncOffset = new long[transactions];
        this.syncLength = new long[transactions];
        create(this::createObjects);
    }

    private void createObjects() {
        int n = transactions;
        createRdmaPair(this::onRecv, this::onRecvError, this::onSend, this::onSendError);
        DocaException.check(data.taskReadSetConf(this::onData, this::onDataError, n), "read conf");
        DocaException.check(data.taskWriteSetConf(this::onData, this::onDataError, n), "write conf");
        startRdmaPair();
        msgMap = createMessageMap((long) MSG * n);
        msgInv = BufInventory.create(n);
        storageInv = BufInventory.create(n);
        remoteInv = BufInventory.create(n);
        msgInv.start();
        storageInv.start();
        remoteInv.start();
        msgBuf = new Buf[n];
        localBuf = new Buf[n];
        remoteBuf = new Buf[n];
        recv = new RdmaTaskReceive[n];
        send = new RdmaTaskSend[n];
        read = new RdmaTaskRead[n];
        write = new RdmaTaskWrite[n];
    }

    /** {@code doca_rdma_export} + {@code doca_rdma_connect} for one role; returns this side's blob. */
    byte[] createConnection(ConnectionRole role, byte[] peerBlob) {
        return thread.execute(() -> {
            Rdma r = role == ConnectionRole.IO_DATA ? data : ctrl;
            RdmaExport ex = r.export();
            DocaException.check(r.connect(peerBlob, ex.connection()), "rdma connect (" + role.wireName() + ")");
            if (role == ConnectionRole.IO_DATA) {
                dataConn = ex.connection();
            }
            return ex.blob();
        }, CMD_TIMEOUT);
    }

    /** True once both contexts are RUNNING (their connections established). */
    boolean isReady() {
        return thread.execute(() -> ctrl.state() == CtxState.RUNNING && data.state() == CtxState.RUNNING
                && dataConn != null, CMD_TIMEOUT);
    }

    /** Prepares every transaction and posts the receives: the data path begins. */
    void startDataPath() {
        startTransactions(i -> {
            msgBuf[i] = msgInv.getByAddr(msgMap, msgMap.baseAddress() + (long) MSG * i, MSG);
            localBuf[i] = storageInv.getByAddr(storageMap, storageMap.baseAddress(), 1);
            remoteBuf[i] = remoteInv.getByAddr(remoteMap, remoteMap.baseAddress(), 1);
            recv[i] = ctrl.taskReceiveAllocInit(msgBuf[i], i);
            send[i] = ctrl.taskSendAllocInit(null, msgBuf[i], i);
            read[i] = data.taskReadAllocInit(dataConn, remoteBuf[i], localBuf[i], i);
            write[i] = data.taskWriteAllocInit(dataConn, localBuf[i], remoteBuf[i], i);
            return allSet(msgBuf[i], localBuf[i], remoteBuf[i], recv[i], send[i], read[i], write[i]);
        }, i -> DocaException.check(recv[i].submit(), "post receive"));
    }

    // ------------------------------------------------------------------ data path (worker thread)

    private void onRecv(RdmaTaskReceive r, long ud, long cud) {
        int i = (int) ud;
        requestArrived(i);
        Buf m = msgBuf[i];
        send[i].setConnection(r.resultConnection());
        if (m.dataLen() != MSG) {
            respond(i, DocaError.INVALID_VALUE);
            return;
        }
        view.wrap(m.segment(), m.dataOffset());
        int type = view.typeCode();
        long size = view.ioSize();
        long so = view.storageOffset();
        long ro = view.requesterOffset();
        if (type != IoMessageType.READ.code() && type != IoMessageType.WRITE.code()) {
            respond(i, DocaError.INVALID_VALUE);
            return;
        }
        if (size == 0 || so < 0 || so > storageMap.length() - size || ro < 0 || ro > remoteMap.length() - size) {
            respond(i, DocaError.INVALID_VALUE);
            return;
        }
        DocaError e;
        if (type == IoMessageType.READ.code()) {
            storageInv.reuseByData(localBuf[i], storageMap.baseAddress() + so, size);
            remoteInv.reuseByAddr(remoteBuf[i], remoteMap.baseAddress() + ro, size);
            e = write[i].submit();
        } else {
            syncOffset[i] = so;
            syncLength[i] = size;
            remoteInv.reuseByData(remoteBuf[i], remoteMap.baseAddress() + ro, size);
            storageInv.reuseByAddr(localBuf[i], storageMap.baseAddress() + so, size);
            e = read[i].submit();
        }
        if (e != DocaError.SUCCESS) {
            respond(i, DocaError.IO_FAILED);
        }
    }

    private void onRecvError(RdmaTaskReceive r, long ud, long cud) {
        receiveFailed("rdma", r);
    }

    private void onData(io.jdoca.core.exec.Task t, long ud, long cud) {
        int i = (int) ud;
        if (running) {
            // A read request is served by an RDMA write to the requester, a write by an RDMA read.
            if (t == write[i]) {
                reads++;
                readBytes += localBuf[i].dataLen();
            } else {
                writes++;
                writeBytes += remoteBuf[i].dataLen();
            }
        }
        if (syncPerWrite && t != write[i] && Msync.sync(storageMap.baseAddress() + syncOffset[i], syncLength[i]) != 0) {
            // Not on the device: the write is not acknowledged as done.
            errors++;
            respond(i, DocaError.IO_FAILED);
            return;
        }
        respond(i, DocaError.SUCCESS);
    }

    private void onDataError(io.jdoca.core.exec.Task t, long ud, long cud) {
        if (tearingDown) {
            return;
        }
        errors++;
        respond((int) ud, DocaError.IO_FAILED);
    }

    private void respond(int i, DocaError result) {
        Buf m = msgBuf[i];
        if (m.dataLen() != MSG) {
            m.setDataLen(MSG);
        }
        view.wrap(m.segment(), m.dataOffset()).setResponse(result.code());
        DocaError e = send[i].submit();
        if (e != DocaError.SUCCESS && !tearingDown) {
            errors++;
            repost(i);
        }
    }

    private void onSend(RdmaTaskSend s, long ud, long cud) {
        if (running) {
            ops++;
            requestAnswered(ud);
        }
        repost((int) ud);
    }

    private void onSendError(RdmaTaskSend s, long ud, long cud) {
        if (tearingDown) {
            return;
        }
        errors++;
        repost((int) ud);
    }

    private void repost(int i) {
        msgBuf[i].resetDataLen();
        submitOrCount(recv[i]);
    }

    // ------------------------------------------------------------------ teardown (DataPathWorker.close)

    @Override
    protected Ctx[] contexts() {
        return new Ctx[] {ctrl, data};
    }

    @Override
    protected Buf[][] buffers() {
        return new Buf[][] {msgBuf, localBuf, remoteBuf};
    }

    @Override
    protected void releaseMaps() {
        if (msgMap != null) {
            msgMap.close();
        }
    }

    @Override
    protected void freeCompletedTasks() {
        freeAll(recv);
        freeAll(send);
        freeAll(read);
        freeAll(write);
    }
}
