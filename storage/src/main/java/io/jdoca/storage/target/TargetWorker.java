package io.jdoca.storage.target;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
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
import io.jdoca.storage.common.AppSupport;
import io.jdoca.storage.common.ConnectionRole;
import io.jdoca.storage.common.IoMessage;
import io.jdoca.storage.common.IoMessageType;
import io.jdoca.storage.common.PeWorkerThread;
import io.jdoca.storage.common.ThreadAllocation;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One target-rdma worker (DOCA's {@code target_rdma_worker}): a {@link PeWorkerThread} with two RDMA
 * contexts — io_control (IO messages: receive, send) and io_data (transfers: read, write) — and
 * {@code transactions} pre-built transactions, each a 64-byte message buffer with its receive, send,
 * read and write tasks and a storage and a remote buffer.
 *
 * <p>Per request (reference §2): a <b>read</b> is an RDMA write from storage + storage_offset to the
 * requester's memory + requester_offset; a <b>write</b> is an RDMA read the other way; the reply is
 * the request rewritten in place (SUCCESS, IO_FAILED on a transfer error, INVALID_VALUE for a bad
 * type or a range outside the storage or the requester's memory), and the receive is re-posted once
 * the reply is sent. No allocation on this path. All methods except the constructor and
 * {@link #close()} run commands on the worker thread.
 */
final class TargetWorker implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("io.jdoca.storage.target");
    private static final long CMD_TIMEOUT = AppSupport.commandTimeoutNanos();
    private static final int MSG = IoMessage.SIZE;

    private final int index;
    private final PeWorkerThread thread;
    private final Dev dev;
    private final int transactions;
    private final MemoryMap storageMap;
    private final MemoryMap remoteMap;
    private final Arena arena = Arena.ofShared();

    // worker-thread state
    private Rdma ctrl;
    private Rdma data;
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
    private boolean running;
    private boolean tearingDown;
    private long ops;
    private long errors;
    private long hits0;
    private long misses0;
    private volatile long hits;
    private long alloc0;
    private volatile long allocated;
    private volatile long misses;
    private volatile long opsOut;

    TargetWorker(int index, Dev dev, int transactions, MemoryMap storageMap, MemoryMap remoteMap) {
        this.index = index;
        this.dev = dev;
        this.transactions = transactions;
        this.storageMap = storageMap;
        this.remoteMap = remoteMap;
        this.thread = new PeWorkerThread("target-worker-" + index);
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
        DocaException.check(ctrl.taskReceiveSetConf(this::onRecv, this::onRecvError, n), "receive conf");
        DocaException.check(ctrl.taskSendSetConf(this::onSend, this::onSendError, n), "send conf");
        DocaException.check(data.taskReadSetConf(this::onData, this::onDataError, n), "read conf");
        DocaException.check(data.taskWriteSetConf(this::onData, this::onDataError, n), "write conf");
        DocaException.check(thread.pe().connectCtx(ctrl), "connect ctrl");
        DocaException.check(thread.pe().connectCtx(data), "connect data");
        startCtx(ctrl);
        startCtx(data);
        MemorySegment msgMem = arena.allocate((long) MSG * n, 64);
        msgMap = MemoryMap.create();
        msgMap.setMemrange(msgMem);
        msgMap.addDev(dev);
        msgMap.setPermissions(AccessFlags.LOCAL_READ_WRITE);
        DocaException.check(msgMap.start(), "message map");
        msgInv = BufInventory.create(n);
        storageInv = BufInventory.create(n);
        remoteInv = BufInventory.create(n);
        msgInv.start();
        storageInv.start();
        remoteInv.start();
    }

    private static void startCtx(Rdma r) {
        DocaError e = r.start();
        if (e != DocaError.IN_PROGRESS && e != DocaError.SUCCESS) {
            throw new DocaException(e, "rdma start");
        }
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
        thread.run(() -> {
            int n = transactions;
            msgBuf = new Buf[n];
            localBuf = new Buf[n];
            remoteBuf = new Buf[n];
            recv = new RdmaTaskReceive[n];
            send = new RdmaTaskSend[n];
            read = new RdmaTaskRead[n];
            write = new RdmaTaskWrite[n];
            for (int i = 0; i < n; i++) {
                msgBuf[i] = msgInv.getByAddr(msgMap, msgMap.baseAddress() + (long) MSG * i, MSG);
                localBuf[i] = storageInv.getByAddr(storageMap, storageMap.baseAddress(), 1);
                remoteBuf[i] = remoteInv.getByAddr(remoteMap, remoteMap.baseAddress(), 1);
                recv[i] = ctrl.taskReceiveAllocInit(msgBuf[i], i);
                send[i] = ctrl.taskSendAllocInit(null, msgBuf[i], i);
                read[i] = data.taskReadAllocInit(dataConn, remoteBuf[i], localBuf[i], i);
                write[i] = data.taskWriteAllocInit(dataConn, localBuf[i], remoteBuf[i], i);
                if (msgBuf[i] == null || localBuf[i] == null || remoteBuf[i] == null || recv[i] == null || send[i] == null
                        || read[i] == null || write[i] == null) {
                    throw new DocaException(DocaError.NO_MEMORY, "cannot prepare transaction " + i);
                }
            }
            running = true;
            alloc0 = ThreadAllocation.current();
            hits0 = thread.pe().hits();
            misses0 = thread.pe().misses();
            for (int i = 0; i < n; i++) {
                DocaException.check(recv[i].submit(), "post receive");
            }
        }, CMD_TIMEOUT);
    }

    /** Stops taking new requests' statistics; the contexts keep running until {@link #close()}. */
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

    int index() {
        return index;
    }

    // ------------------------------------------------------------------ data path (worker thread)

    private void onRecv(RdmaTaskReceive r, long ud, long cud) {
        int i = (int) ud;
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
            remoteInv.reuseByData(remoteBuf[i], remoteMap.baseAddress() + ro, size);
            storageInv.reuseByAddr(localBuf[i], storageMap.baseAddress() + so, size);
            e = read[i].submit();
        }
        if (e != DocaError.SUCCESS) {
            respond(i, DocaError.IO_FAILED);
        }
    }

    private void onRecvError(RdmaTaskReceive r, long ud, long cud) {
        if (!tearingDown) {
            errors++;
            LOG.log(System.Logger.Level.WARNING, "worker {0}: receive failed: {1}", index, r.status().docaName());
        }
    }

    private void onData(io.jdoca.core.exec.Task t, long ud, long cud) {
        respond((int) ud, DocaError.SUCCESS);
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
        DocaError e = recv[i].submit();
        if (e != DocaError.SUCCESS && !tearingDown) {
            errors++;
        }
    }

    // ------------------------------------------------------------------ teardown

    /** Stops both contexts, frees every task and buffer, ends the thread. */
    @Override
    public void close() {
        try {
            thread.run(() -> {
                tearingDown = true;
                running = false;
                for (Rdma r : new Rdma[] {ctrl, data}) {
                    if (r != null && r.state() != CtxState.IDLE) {
                        r.stop();
                    }
                }
            }, CMD_TIMEOUT);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (System.nanoTime() < deadline) {
                boolean idle = thread.execute(() -> {
                    freeCompletedTasks();
                    return (ctrl == null || ctrl.state() == CtxState.IDLE) && (data == null || data.state() == CtxState.IDLE);
                }, CMD_TIMEOUT);
                if (idle) {
                    break;
                }
                Thread.sleep(2);
            }
            thread.run(() -> {
                for (Buf[] bs : new Buf[][] {msgBuf, localBuf, remoteBuf}) {
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
                if (ctrl != null && ctrl.state() == CtxState.IDLE && data.state() == CtxState.IDLE) {
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

    private void freeCompletedTasks() {
        freeAll(recv);
        freeAll(send);
        freeAll(read);
        freeAll(write);
    }

    private static void freeAll(io.jdoca.core.exec.Task[] ts) {
        if (ts == null) {
            return;
        }
        for (int i = 0; i < ts.length; i++) {
            io.jdoca.core.exec.Task t = ts[i];
            if (t != null && t.state() != io.jdoca.core.exec.TaskState.SUBMITTED) {
                t.free();
                ts[i] = null;
            }
        }
    }
}
