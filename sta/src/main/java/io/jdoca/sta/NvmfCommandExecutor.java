package io.jdoca.sta;

import io.jdoca.core.DocaError;
import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The NVMe-oF command layer of one queue pair (SPDK's {@code ctrlr.c}): a command in, dispatched,
 * its host data in, its completion out, each outstanding command a {@link StaRequest} walking
 * {@link StaRequestState}; the per-engine counters and back-end timeouts of each answer. It talks
 * to the wire only through {@link NvmfTransport}, so it knows nothing of TCP or RDMA.
 *
 * <p>Offloaded: Read, Write, Flush, Write Zeroes, Dataset Management and Compare on I/O queues of
 * a bound subsystem, executed by {@link NvmfIoCommands} (inline back-ends) and {@link NvmfBackendIo}
 * (asynchronous ones). Everything else (admin, Fabrics, other I/O) goes to the application's
 * non-offload callback; the Connect's queue id and size are noted on the way.
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
    private final StaBeChannels bech;
    private final NvmfBackendIo async;
    private final NvmfIoCommands commands;

    NvmfCommandExecutor(StaQp qp, StaIo io, NvmfTransport tr, Arena arena, int maxIo, int inCapsuleMax, int requests) {
        this.qp = qp;
        this.io = io;
        this.tr = tr;
        this.pool = new StaRequestPool(requests);
        this.pool.executor = this;
        this.bech = io.beChannels();
        this.async = new NvmfBackendIo(this, qp, io, tr, bech);
        this.commands = new NvmfIoCommands(this, qp, io, tr, arena, maxIo, inCapsuleMax);
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
        commands.execute(r, cmd.sglLength(), cmd.sglType(), buf, dataOff, dataLen);
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
            case StaRequest.KIND_STAGE -> MemorySegment.copy(buf, off, commands.stage(), datao, n);
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
            case StaRequest.KIND_STAGE -> commands.executeStaged(r);
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
        commands.clearStage();
    }

    /** EXECUTED → COMPLETED → FREE without an answer (the connection is gone). */
    void drop(StaRequest r) {
        bech.release(r);
        r.transition(StaRequestState.COMPLETED);
        releaseCounters(r);
        pool.put(r);
    }

    // ------------------------------------------------------------------ completion

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
