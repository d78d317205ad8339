package io.jdoca.sta;

import io.jdoca.core.DocaError;
import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.pdu.NvmeTcpPdu;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The NVMe-oF command layer of one queue pair (SPDK's {@code ctrlr.c} + {@code ctrlr_bdev.c}):
 * a command in, its execution on the back-end, its data and completion out, each outstanding
 * command a {@link StaRequest} walking {@link StaRequestState}. It talks to the wire only through
 * {@link NvmfTransport}, so it knows nothing of TCP.
 *
 * <p>Offloaded here: Read, Write, Flush, Write Zeroes, Dataset Management and Compare on I/O
 * queues of a bound subsystem. Everything else (admin, Fabrics, other I/O) goes to the
 * application's non-offload callback; the Connect's queue id and size are noted on the way.
 *
 * <p><b>Threads.</b> The owning {@link StaIo} engine's thread: the transport calls
 * {@link #onCommand} and {@link #onHostData} from its poll, the engine calls {@link #fetch}
 * and {@link #abortAll}.
 */
final class NvmfCommandExecutor {
    private final StaQp qp;
    private final StaIo io;
    private final NvmfTransport tr;
    private final StaRequestPool pool;
    private final int maxIo;
    private final int inCapsuleMax;
    /** One staging buffer per QP (max I/O size) for Compare/DSM data that was not in the capsule. */
    private final MemorySegment stage;
    private StaRequest stageOwner;
    private final StaBeChannels bech;
    private final NvmfBackendIo async;

    NvmfCommandExecutor(StaQp qp, StaIo io, NvmfTransport tr, Arena arena, int maxIo, int inCapsuleMax, int requests) {
        this.qp = qp;
        this.io = io;
        this.tr = tr;
        this.maxIo = maxIo;
        this.inCapsuleMax = inCapsuleMax;
        this.pool = new StaRequestPool(requests);
        this.pool.executor = this;
        this.bech = io.beChannels();
        this.async = new NvmfBackendIo(this, qp, io, tr, bech);
        this.stage = arena.allocate(maxIo, 4096);
    }

    StaRequest requestByTag(int tag) {
        return pool.byTag(tag);
    }

    StaRequestPool pool() {
        return pool;
    }

    NvmfBackendIo backendIo() {
        return async;
    }

    // ------------------------------------------------------------------ commands in

    /**
     * A command arrived: {@code cmd} wraps its SQE, {@code dataLen} bytes of in-capsule data sit
     * at {@code dataOff} of {@code buf}, {@code dataDigestError} says they failed their digest.
     */
    void onCommand(NvmeCommand cmd, MemorySegment buf, int dataOff, int dataLen, boolean dataDigestError) {
        int cid = cmd.cid();
        int opcode = cmd.opcode();
        qp.advanceSqHead();
        if (dataDigestError) {
            tr.sendCompletion(cid, NvmeStatus.TRANSIENT_TRANSPORT_ERROR, 0, 0);
            return;
        }
        if (qp.state == StaQpState.DISCONNECTING) {
            tr.sendCompletion(cid, NvmeStatus.ABORTED_SQ_DELETION, 0, 0);
            return;
        }
        if (dataLen > 0 && cmd.sglType() != NvmeCommand.SGL_DATA_BLOCK_OFFSET) {
            tr.sendCompletion(cid, NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID, 0, 0);
            return;
        }
        StaSubsystem subs = qp.subsystem();
        if (subs != null && qp.qid() > 0 && offloadable(opcode)) {
            executeIo(subs, cmd, buf, dataOff, dataLen);
            return;
        }
        if (opcode == NvmeOpcode.FABRICS && cmd.fctype() == NvmeOpcode.FCTYPE_CONNECT && qp.qid() < 0) {
            // The queue needs its id and size from Connect; the application decides whether to accept.
            MemorySegment seg = cmd.segment();
            long sqe = cmd.base();
            // CATTR bit 2: the host disabled SQ flow control, so reads may complete with C2HData SUCCESS alone.
            qp.onConnect(FabricsConnectCommand.qid(seg, sqe), FabricsConnectCommand.sqsize(seg, sqe) + 1,
                    (FabricsConnectCommand.cattr(seg, sqe) & 0x4) != 0);
        }
        io.nonOffloaded++;
        // Fabrics commands carry their data direction in FCTYPE, not in the opcode (NVMe-oF 1.1 figure 10):
        // Connect's data is host-to-controller (over RDMA it comes by keyed SGL on the admin queue).
        int direction = opcode == NvmeOpcode.FABRICS ? cmd.fctype() : opcode;
        boolean needsFetch = dataLen == 0 && NvmeOpcode.hostToController(direction) && cmd.sglLength() > 0;
        if (!io.deliverNonOffload(qp, cmd, dataLen > 0 ? buf.asSlice(dataOff, dataLen) : null, dataLen, !needsFetch)) {
            tr.sendCompletion(cid, NvmeStatus.INVALID_OPCODE, 0, 0);
        }
    }

    private static boolean offloadable(int opcode) {
        return opcode == NvmeOpcode.IO_READ || opcode == NvmeOpcode.IO_WRITE || opcode == NvmeOpcode.IO_FLUSH
                || opcode == NvmeOpcode.IO_WRITE_ZEROES || opcode == NvmeOpcode.IO_DATASET_MANAGEMENT
                || opcode == NvmeOpcode.IO_COMPARE;
    }

    private void executeIo(StaSubsystem subs, NvmeCommand cmd, MemorySegment buf, int dataOff, int dataLen) {
        int cid = cmd.cid();
        int opcode = cmd.opcode();
        StaRequest r = pool.get();
        if (r == null) {
            // More commands than the queue holds: the host broke SQ flow control.
            io.ioErrors++;
            tr.sendCompletion(cid, NvmeStatus.COMMAND_INTERRUPTED, 0, 0);
            return;
        }
        r.init(StaRequest.KIND_INLINE, cid, opcode);
        StaNamespace ns = subs.ns(cmd.nsid());
        if (ns == null || ns.removed) {
            r.executed(NvmeStatus.INVALID_NAMESPACE);
            respond(r);
            return;
        }
        StaBeQueue q = ns.backend().queueFor(io.index());
        if (q == null || q.destroyed || ns.backend().isDestroyed()) {
            r.ns = ns;
            ns.counters[io.index()].begin();
            r.executed(NvmeStatus.NAMESPACE_NOT_READY);
            respond(r);
            return;
        }
        r.ns = ns;
        r.queue = q;
        r.slba = cmd.slba();
        r.nlb = cmd.nlb();
        r.cdw10 = cmd.cdw10();
        r.cdw11 = cmd.cdw11();
        ns.counters[io.index()].begin();
        q.counters[io.index()].begin();
        long sgl = cmd.sglLength();
        switch (opcode) {
            case NvmeOpcode.IO_READ -> read(r, sgl);
            case NvmeOpcode.IO_WRITE -> write(r, sgl, buf, dataOff, dataLen);
            case NvmeOpcode.IO_FLUSH -> flush(r);
            case NvmeOpcode.IO_WRITE_ZEROES -> writeZeroes(r);
            default -> {
                boolean fetch = dataLen == 0 && NvmeCommand.isHostMemory(cmd.sglType());
                if (fetch && stageData(r, sgl)) {
                    return;
                }
                r.transition(StaRequestState.READY_TO_EXECUTE);
                if (opcode == NvmeOpcode.IO_COMPARE) {
                    compare(r, sgl, buf, dataOff, dataLen);
                } else {
                    dsm(r, buf, dataOff, dataLen);
                }
            }
        }
    }

    // ------------------------------------------------------------------ the operations

    private int transferStatus(StaRequest r, long len, long sglLen) {
        int st = rangeStatus(r.ns, r.slba, r.nlb);
        if (st != NvmeStatus.SUCCESS) {
            return st;
        }
        if (len > maxIo) {
            return NvmeStatus.INVALID_FIELD;
        }
        if (sglLen < len) {
            return NvmeStatus.DATA_SGL_LENGTH_INVALID;
        }
        return NvmeStatus.SUCCESS;
    }

    private static int rangeStatus(StaNamespace ns, long slba, long nlb) {
        if (slba < 0 || slba + nlb > ns.sizeBlocks() || slba + nlb < slba) {
            return NvmeStatus.LBA_OUT_OF_RANGE;
        }
        return NvmeStatus.SUCCESS;
    }

    private void read(StaRequest r, long sglLen) {
        StaNamespace ns = r.ns;
        long len = (long) r.nlb << ns.blockShift();
        int st = transferStatus(r, len, sglLen);
        if (st != NvmeStatus.SUCCESS) {
            r.executed(st);
            respond(r);
            return;
        }
        int n = (int) len;
        StaBeChannel ch = bech.channel(ns.backend());
        if (ch != null) {
            r.channel = ch;
            r.dataLen = n;
            if (bech.acquire(r) < 0) {
                bech.await(r); // NEED_BUFFER until a slot frees (onBuffer)
                return;
            }
            async.submit(r, StaBeChannel.OP_READ, r.slba << ns.blockShift());
            return;
        }
        // Inline back-end: the data goes straight into the transport's send buffer (zero copy).
        r.transition(StaRequestState.READY_TO_EXECUTE);
        r.transition(StaRequestState.EXECUTING);
        long at = tr.c2hBegin(r.cid, n);
        long t0 = System.nanoTime();
        st = ns.backend().read(r.slba << ns.blockShift(), tr.c2hBuffer(), at, n, io.scratch());
        checkTimeout(r, t0);
        r.executed(st);
        if (st != NvmeStatus.SUCCESS) {
            respond(r);
            return;
        }
        r.transition(StaRequestState.TRANSFERRING_CONTROLLER_TO_HOST);
        boolean dataSuccess = qp.sqFlowControlDisabled();
        tr.c2hEnd(r.cid, n, dataSuccess);
        countRead(r, n);
        if (!dataSuccess) {
            tr.sendCompletion(r.cid, NvmeStatus.SUCCESS, 0, 0);
        }
        release(r);
    }

    private void write(StaRequest r, long sglLen, MemorySegment buf, int dataOff, int dataLen) {
        StaNamespace ns = r.ns;
        long len = (long) r.nlb << ns.blockShift();
        int st = transferStatus(r, len, sglLen);
        if (st == NvmeStatus.SUCCESS && dataLen > 0 && (dataLen != len || dataLen > inCapsuleMax)) {
            st = NvmeStatus.DATA_SGL_LENGTH_INVALID;
        }
        if (st != NvmeStatus.SUCCESS) {
            r.executed(st);
            respond(r);
            return;
        }
        r.offset = r.slba << ns.blockShift();
        r.len = (int) len;
        StaBeChannel ch = bech.channel(ns.backend());
        if (ch != null && bech.acquire(r) >= 0) {
            r.channel = ch;
            r.dataLen = r.len;
            if (dataLen > 0) {
                MemorySegment.copy(buf, dataOff, bech.buffer(r), 0, dataLen);
                async.submit(r, StaBeChannel.OP_WRITE, r.offset);
                return;
            }
            r.kind = StaRequest.KIND_WRITE_BUFFERED;
            r.transition(StaRequestState.TRANSFERRING_HOST_TO_CONTROLLER);
            tr.requestHostData(r, 0, r.len);
            return;
        }
        // Inline back-end (or every slot busy): written from the receive buffer as the data arrives.
        if (dataLen > 0) {
            r.transition(StaRequestState.READY_TO_EXECUTE);
            r.transition(StaRequestState.EXECUTING);
            long t0 = System.nanoTime();
            st = ns.backend().write(r.offset, buf, dataOff, dataLen, io.scratch());
            checkTimeout(r, t0);
            countWrite(r, dataLen);
            r.executed(st);
            respond(r);
            return;
        }
        r.kind = StaRequest.KIND_WRITE;
        r.transition(StaRequestState.TRANSFERRING_HOST_TO_CONTROLLER);
        tr.requestHostData(r, 0, r.len);
    }

    private void flush(StaRequest r) {
        StaBeChannel ch = bech.channel(r.ns.backend());
        if (ch != null && bech.acquire(r) >= 0) {
            r.channel = ch;
            r.dataLen = 0;
            async.submit(r, StaBeChannel.OP_FLUSH, 0);
            return;
        }
        r.transition(StaRequestState.READY_TO_EXECUTE);
        r.transition(StaRequestState.EXECUTING);
        long t0 = System.nanoTime();
        int st = r.ns.backend().flush();
        checkTimeout(r, t0);
        other(r, st);
    }

    private void writeZeroes(StaRequest r) {
        r.transition(StaRequestState.READY_TO_EXECUTE);
        StaNamespace ns = r.ns;
        int st = rangeStatus(ns, r.slba, r.nlb);
        if (st == NvmeStatus.SUCCESS) {
            r.transition(StaRequestState.EXECUTING);
            long t0 = System.nanoTime();
            st = ns.backend().writeZeroes(r.slba << ns.blockShift(), (long) r.nlb << ns.blockShift(), io.scratch());
            checkTimeout(r, t0);
        }
        other(r, st);
    }

    /**
     * Compare or DSM whose host data is not in the capsule: validate, then fetch it into the
     * staging buffer (executed when it has arrived). False when the command should be executed
     * (and refused) right away instead.
     */
    private boolean stageData(StaRequest r, long sglLen) {
        long need;
        if (r.opcode == NvmeOpcode.IO_COMPARE) {
            need = (long) r.nlb << r.ns.blockShift();
            if (transferStatus(r, need, sglLen) != NvmeStatus.SUCCESS) {
                return false;
            }
        } else {
            need = ((r.cdw10 & 0xff) + 1) * 16L;
            if (sglLen < need) {
                return false;
            }
        }
        if (stageOwner != null) {
            // The single staging buffer is busy: the host retries (Command Interrupted, no DNR).
            r.executed(NvmeStatus.COMMAND_INTERRUPTED);
            respond(r);
            return true;
        }
        stageOwner = r;
        r.kind = StaRequest.KIND_STAGE;
        r.len = (int) need;
        r.transition(StaRequestState.TRANSFERRING_HOST_TO_CONTROLLER);
        tr.requestHostData(r, 0, r.len);
        return true;
    }

    /** From READY_TO_EXECUTE: compares {@code dataLen} bytes of host data with the blocks. */
    private void compare(StaRequest r, long sglLen, MemorySegment src, long dataOff, int dataLen) {
        StaNamespace ns = r.ns;
        long len = (long) r.nlb << ns.blockShift();
        int st = transferStatus(r, len, sglLen);
        if (st == NvmeStatus.SUCCESS && dataLen != len) {
            st = dataLen == 0 ? NvmeStatus.INVALID_FIELD : NvmeStatus.DATA_SGL_LENGTH_INVALID;
        }
        if (st == NvmeStatus.SUCCESS) {
            r.transition(StaRequestState.EXECUTING);
            MemorySegment scratch = io.scratch();
            long t0 = System.nanoTime();
            st = ns.backend().read(r.slba << ns.blockShift(), scratch, 0, dataLen, scratch);
            checkTimeout(r, t0);
            if (st == NvmeStatus.SUCCESS
                    && MemorySegment.mismatch(scratch, 0, dataLen, src, dataOff, dataOff + dataLen) != -1) {
                st = NvmeStatus.COMPARE_FAILURE;
            }
        }
        other(r, st);
    }

    /**
     * From READY_TO_EXECUTE: Dataset Management (NVM Command Set 1.0 §3.2.3): ranges of 16 bytes
     * {attrs, NLB, SLBA}; AD (CDW11 bit 2) deallocates.
     */
    private void dsm(StaRequest r, MemorySegment src, long dataOff, int dataLen) {
        StaNamespace ns = r.ns;
        int nr = (r.cdw10 & 0xff) + 1;
        boolean deallocate = (r.cdw11 & 0x4) != 0;
        int st = NvmeStatus.SUCCESS;
        // The buffer must hold the NR ranges; it may be longer (Linux always sends a 4096-byte
        // buffer, room for 256 ranges, whatever NR is), and the tail is ignored, as nvmet does.
        if (dataLen < nr * 16) {
            st = dataLen == 0 ? NvmeStatus.INVALID_FIELD : NvmeStatus.DATA_SGL_LENGTH_INVALID;
        }
        for (int i = 0; st == NvmeStatus.SUCCESS && i < nr; i++) {
            long at = dataOff + i * 16L;
            long nlb = src.get(NvmeTcpPdu.LE32, at + 4) & 0xffffffffL;
            long slba = src.get(NvmeTcpPdu.LE64, at + 8);
            if (slba < 0 || slba + nlb > ns.sizeBlocks()) {
                st = NvmeStatus.LBA_OUT_OF_RANGE;
            }
        }
        if (st == NvmeStatus.SUCCESS) {
            r.transition(StaRequestState.EXECUTING);
            long t0 = System.nanoTime();
            for (int i = 0; deallocate && st == NvmeStatus.SUCCESS && i < nr; i++) {
                long at = dataOff + i * 16L;
                long nlb = src.get(NvmeTcpPdu.LE32, at + 4) & 0xffffffffL;
                long slba = src.get(NvmeTcpPdu.LE64, at + 8);
                if (nlb > 0) {
                    st = ns.backend().deallocate(slba << ns.blockShift(), nlb << ns.blockShift(), io.scratch());
                }
            }
            checkTimeout(r, t0);
        }
        other(r, st);
    }

    // ------------------------------------------------------------------ host data in

    /**
     * {@code n} bytes of the request's host data at byte {@code datao} arrived in {@code buf} at
     * {@code off} ({@code status}: the transport's verdict on them, e.g. a data digest error).
     * A write executes each piece as it arrives, straight from the receive buffer (no copy, no
     * per-request buffer); the last piece is the request's EXECUTING step.
     */
    void onHostData(StaRequest r, MemorySegment buf, int off, int datao, int n, int status) {
        if (status != NvmeStatus.SUCCESS && r.status == NvmeStatus.SUCCESS) {
            r.status = status;
        }
        boolean last = datao + n == r.len;
        switch (r.kind) {
            case StaRequest.KIND_WRITE -> {
                if (last) {
                    r.transition(StaRequestState.READY_TO_EXECUTE);
                    r.transition(StaRequestState.EXECUTING);
                }
                if (r.status == NvmeStatus.SUCCESS && n > 0) {
                    if (r.ns.removed || r.queue.destroyed) {
                        r.status = r.ns.removed ? NvmeStatus.INVALID_NAMESPACE : NvmeStatus.NAMESPACE_NOT_READY;
                    } else {
                        long t0 = System.nanoTime();
                        r.status = r.ns.backend().write(r.offset + datao, buf, off, n, io.scratch());
                        checkTimeout(r, t0);
                    }
                }
            }
            case StaRequest.KIND_STAGE -> MemorySegment.copy(buf, off, stage, datao, n);
            case StaRequest.KIND_WRITE_BUFFERED -> MemorySegment.copy(buf, off, bech.buffer(r), datao, n);
            default -> MemorySegment.copy(buf, off, r.task.dst, r.task.dstOffset + datao, n);
        }
        r.received += n;
        if (last) {
            hostDataDone(r);
        }
    }

    private void hostDataDone(StaRequest r) {
        switch (r.kind) {
            case StaRequest.KIND_WRITE_BUFFERED -> {
                int st = r.status;
                if (st == NvmeStatus.SUCCESS && (r.ns.removed || r.queue.destroyed)) {
                    st = r.ns.removed ? NvmeStatus.INVALID_NAMESPACE : NvmeStatus.NAMESPACE_NOT_READY;
                }
                if (st != NvmeStatus.SUCCESS) {
                    countWrite(r, r.len);
                    bech.release(r);
                    r.executed(st);
                    respond(r);
                } else {
                    async.submit(r, StaBeChannel.OP_WRITE, r.offset);
                }
            }
            case StaRequest.KIND_WRITE -> {
                countWrite(r, r.len);
                r.executed(r.status);
                respond(r);
            }
            case StaRequest.KIND_STAGE -> {
                stageOwner = null;
                r.transition(StaRequestState.READY_TO_EXECUTE);
                int st = r.status;
                if (st == NvmeStatus.SUCCESS && (r.ns.removed || r.queue.destroyed)) {
                    st = r.ns.removed ? NvmeStatus.INVALID_NAMESPACE : NvmeStatus.NAMESPACE_NOT_READY;
                }
                if (st != NvmeStatus.SUCCESS) {
                    r.executed(st);
                    respond(r);
                } else if (r.opcode == NvmeOpcode.IO_COMPARE) {
                    compare(r, r.len, stage, 0, r.len);
                } else {
                    dsm(r, stage, 0, r.len);
                }
            }
            default -> {
                // A non-offload fetch: the data is the application's now; it answers the command.
                StaIoTaskNonOffloadRead t = r.task;
                int st = r.status;
                r.transition(StaRequestState.READY_TO_EXECUTE);
                r.transition(StaRequestState.EXECUTING);
                r.executed(st);
                r.transition(StaRequestState.COMPLETED);
                pool.put(r);
                io.completeTask(t, st == NvmeStatus.SUCCESS ? DocaError.SUCCESS : DocaError.IO_FAILED);
            }
        }
    }

    /** Starts a non-offload fetch (the host's data for the application); false when no request is free. */
    boolean fetch(StaIoTaskNonOffloadRead t) {
        StaRequest r = pool.get();
        if (r == null) {
            return false;
        }
        r.init(StaRequest.KIND_FETCH, t.cid, 0);
        r.task = t;
        r.len = t.len;
        r.transition(StaRequestState.TRANSFERRING_HOST_TO_CONTROLLER);
        tr.requestHostData(r, 0, t.len);
        return true;
    }

    /**
     * The connection is gone: every request still waiting for host data ends unanswered
     * (EXECUTED, COMPLETED, FREE); fetch tasks complete with {@code why}.
     */
    void abortAll(DocaError why) {
        async.clearDeferred();
        for (int tag = 0; tag < pool.size(); tag++) {
            StaRequest r = pool.at(tag);
            StaRequestState s = r.state();
            if (s == StaRequestState.EXECUTING) {
                continue; // the back-end still owns it: ends when its completion arrives (onBackendComplete)
            }
            if (s != StaRequestState.TRANSFERRING_HOST_TO_CONTROLLER && s != StaRequestState.NEED_BUFFER
                    && s != StaRequestState.EXECUTED) {
                continue;
            }
            if (r.waiting) {
                bech.cancelWait(r);
            }
            r.nextWaiting = null;
            StaIoTaskNonOffloadRead t = r.task;
            if (s != StaRequestState.EXECUTED) {
                r.executed(NvmeStatus.ABORTED_SQ_DELETION);
            }
            drop(r);
            if (t != null) {
                io.completeTask(t, why);
            }
        }
        stageOwner = null;
    }

    /** EXECUTED → COMPLETED → FREE without an answer (the connection is gone). */
    void drop(StaRequest r) {
        bech.release(r);
        r.transition(StaRequestState.COMPLETED);
        releaseCounters(r);
        pool.put(r);
    }

    // ------------------------------------------------------------------ completion

    private void other(StaRequest r, int st) {
        r.queue.counters[io.index()].otherOps++;
        r.ns.counters[io.index()].otherOps++;
        r.executed(st);
        respond(r);
    }

    /** EXECUTED → TRANSFERRING_CONTROLLER_TO_HOST (the completion) → COMPLETED → FREE. */
    void respond(StaRequest r) {
        r.transition(StaRequestState.TRANSFERRING_CONTROLLER_TO_HOST);
        if (r.status != NvmeStatus.SUCCESS) {
            io.ioErrors++;
            if (r.ns != null) {
                r.ns.counters[io.index()].errors++;
            }
            if (r.queue != null) {
                r.queue.counters[io.index()].errors++;
            }
        }
        tr.sendCompletion(r.cid, r.status, 0, 0);
        release(r);
    }

    void release(StaRequest r) {
        r.transition(StaRequestState.COMPLETED);
        releaseCounters(r);
        pool.put(r);
    }

    void releaseCounters(StaRequest r) {
        if (r.ns != null) {
            r.ns.counters[io.index()].end();
        }
        if (r.queue != null) {
            r.queue.counters[io.index()].end();
        }
    }

    void countRead(StaRequest r, int n) {
        StaCounters qc = r.queue.counters[io.index()];
        StaCounters nc = r.ns.counters[io.index()];
        qc.reads++;
        qc.readBytes += n;
        nc.reads++;
        nc.readBytes += n;
        io.reads++;
        io.readBytes += n;
    }

    void countWrite(StaRequest r, int n) {
        StaCounters qc = r.queue.counters[io.index()];
        StaCounters nc = r.ns.counters[io.index()];
        qc.writes++;
        qc.writeBytes += n;
        nc.writes++;
        nc.writeBytes += n;
        io.writes++;
        io.writeBytes += n;
    }

    void checkTimeout(StaRequest r, long t0) {
        long el = System.nanoTime() - t0;
        if (el > io.sta().backendTimeoutNanos()) {
            r.queue.counters[io.index()].timeouts++;
            io.sta().reportBackendTimeout(r.queue, r.ns, r.opcode, el);
        }
    }
}
