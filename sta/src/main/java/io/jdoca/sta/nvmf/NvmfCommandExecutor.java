package io.jdoca.sta.nvmf;

import io.jdoca.core.DocaError;
import io.jdoca.core.mem.NativeMemory;
import io.jdoca.sta.backend.StaBackendChannel;
import io.jdoca.sta.backend.StaBeQueue;
import io.jdoca.sta.backend.StaCounters;
import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.MemorySegment;

/**
 * The NVMe-oF command layer of one queue pair (SPDK's {@code ctrlr.c} request path): a command in
 * with the request its transport took for it, dispatched, its host data in, its answer out; each
 * request walks {@link NvmfRequestState}. It talks to the wire only through {@link NvmfTransport},
 * so it knows nothing of TCP or RDMA.
 *
 * <p>Offloaded: Read, Write, Flush, Write Zeroes, Dataset Management and Compare on I/O queues
 * bound to namespaces, executed by {@link NvmfIoCommands} (inline back-ends) and
 * {@link NvmfBackendIo} (asynchronous ones). Everything else (admin, Fabrics, other I/O) goes to
 * the application ({@link NvmfQpairEvents#onApplicationCommand}), which answers it later with
 * {@link #answer} or fetches its data first with {@link #fetch}; the Connect's queue id and size
 * are noted on the way.
 *
 * <p><b>Threads.</b> The owning IO engine's thread: the transport calls {@link #onCommand},
 * {@link #onHostData} and {@link #completed} from its poll, the engine calls the rest.
 */
public final class NvmfCommandExecutor {
    private final NvmfQpair qp;
    private final NvmfPollGroup group;
    private final NvmfTransport tr;
    private final NvmfRequestPool pool;
    private final NvmfBackendChannels bech;
    private final NvmfBackendIo async;
    private final NvmfIoCommands commands;
    private final NativeMemory memory = new NativeMemory();

    NvmfCommandExecutor(NvmfQpair qp, NvmfPollGroup group, NvmfTransport tr, int maxIo, int inCapsuleMax) {
        this.qp = qp;
        this.group = group;
        this.tr = tr;
        this.pool = tr.requests();
        this.pool.executor = this;
        this.bech = group.backendChannels();
        this.async = new NvmfBackendIo(this, qp, group, tr, bech);
        this.commands = new NvmfIoCommands(this, qp, group, tr, memory, maxIo, inCapsuleMax);
    }

    NvmfBackendIo backendIo() {
        return async;
    }

    // ------------------------------------------------------------------ commands in

    /**
     * A command arrived and the transport took request {@code r} (NEED_BUFFER) for it: {@code cmd}
     * wraps its SQE, {@code dataLen} bytes of in-capsule data sit at {@code dataOff} of {@code buf},
     * {@code dataDigestError} says they failed their digest.
     */
    public void onCommand(NvmfRequest r, NvmeCommand cmd, MemorySegment buf, int dataOff, int dataLen,
                          boolean dataDigestError) {
        int opcode = cmd.opcode();
        r.init(NvmfRequest.KIND_INLINE, cmd.cid(), opcode);
        qp.advanceSqHead();
        if (dataDigestError) {
            refuse(r, NvmeStatus.TRANSIENT_TRANSPORT_ERROR);
            return;
        }
        if (qp.state() == NvmfQpairState.DISCONNECTING) {
            refuse(r, NvmeStatus.ABORTED_SQ_DELETION);
            return;
        }
        if (dataLen > 0 && cmd.sglType() != NvmeCommand.SGL_DATA_BLOCK_OFFSET) {
            refuse(r, NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID);
            return;
        }
        NvmfNamespaceMap map = qp.namespaces();
        if (map != null && qp.qid() > 0 && offloadable(opcode)) {
            executeIo(r, map, cmd, buf, dataOff, dataLen);
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
        group.nonOffloaded++;
        // Fabrics commands carry their data direction in FCTYPE, not in the opcode (NVMe-oF 1.1 figure 10):
        // Connect's data is host-to-controller (over RDMA it comes by keyed SGL on the admin queue).
        int direction = opcode == NvmeOpcode.FABRICS ? cmd.fctype() : opcode;
        boolean needsFetch = dataLen == 0 && NvmeOpcode.hostToController(direction) && cmd.sglLength() > 0;
        r.kind = NvmfRequest.KIND_APPLICATION;
        r.transition(NvmfRequestState.EXECUTING);
        MemorySegment payload = dataLen > 0 ? buf.asSlice(dataOff, dataLen) : null;
        if (!qp.events().onApplicationCommand(cmd, payload, dataLen, !needsFetch)
                && r.state() == NvmfRequestState.EXECUTING) {
            r.executed(NvmeStatus.INVALID_OPCODE);
            respond(r);
        }
    }

    private void refuse(NvmfRequest r, int status) {
        r.executed(status);
        respond(r);
    }

    private static boolean offloadable(int opcode) {
        return opcode == NvmeOpcode.IO_READ || opcode == NvmeOpcode.IO_WRITE || opcode == NvmeOpcode.IO_FLUSH
                || opcode == NvmeOpcode.IO_WRITE_ZEROES || opcode == NvmeOpcode.IO_DATASET_MANAGEMENT
                || opcode == NvmeOpcode.IO_COMPARE;
    }

    private void executeIo(NvmfRequest r, NvmfNamespaceMap map, NvmeCommand cmd, MemorySegment buf, int dataOff,
                           int dataLen) {
        NvmfNamespace ns = map.ns(cmd.nsid());
        if (ns == null || ns.isRemoved()) {
            refuse(r, NvmeStatus.INVALID_NAMESPACE);
            return;
        }
        NvmfListenerAna ana = qp.ana();
        if (ana != null) {
            // ANA (Base 2.0 §8.1.3): a path in the inaccessible, persistent loss or change state
            // executes no I/O; its path-related status makes the host retry on another path.
            int st = ana.ioStatus(ns.anaGroup());
            if (st != NvmeStatus.SUCCESS) {
                refuse(r, st);
                return;
            }
        }
        NvmfReservationView rv = ns.reservation();
        if (rv != null && rv.conflicts(qp.hostIdHi(), qp.hostIdLo(),
                NvmfReservationView.commandClass(cmd.opcode()) == NvmfReservationView.CLASS_WRITE)) {
            // Base 2.0 §8.19: a reservation another host holds decides; no allocation, no lock.
            refuse(r, NvmeStatus.RESERVATION_CONFLICT);
            return;
        }
        int engine = group.index();
        StaBeQueue q = ns.backend().queueFor(engine);
        r.ns = ns;
        ns.counters(engine).begin();
        if (q == null || q.isDestroyed() || ns.backend().isDestroyed()) {
            refuse(r, NvmeStatus.NAMESPACE_NOT_READY);
            return;
        }
        r.queue = q;
        r.slba = cmd.slba();
        r.nlb = cmd.nlb();
        r.cdw10 = cmd.cdw10();
        r.cdw11 = cmd.cdw11();
        q.counters(engine).begin();
        commands.execute(r, cmd.sglLength(), cmd.sglType(), buf, dataOff, dataLen);
    }

    // ------------------------------------------------------------------ host data in

    /**
     * {@code n} bytes of the request's host data at byte {@code datao} arrived in {@code buf} at
     * {@code off} ({@code status}: the transport's verdict on them, e.g. a data digest error).
     * A write executes each piece as it arrives, straight from the receive buffer (no copy, no
     * per-request buffer); the last piece is the request's EXECUTING step.
     */
    public void onHostData(NvmfRequest r, MemorySegment buf, int off, int datao, int n, int status) {
        if (!r.state().awaitsHostData()) {
            return; // answered meanwhile (the queue pair is being destroyed): the data has no owner
        }
        if (status != NvmeStatus.SUCCESS && r.status == NvmeStatus.SUCCESS) {
            r.status = status;
        }
        boolean last = datao + n == r.len;
        switch (r.kind) {
            case NvmfRequest.KIND_WRITE -> {
                if (last) {
                    r.transition(NvmfRequestState.READY_TO_EXECUTE);
                    r.transition(NvmfRequestState.EXECUTING);
                }
                if (r.status == NvmeStatus.SUCCESS && n > 0) {
                    if (r.ns.isRemoved() || r.queue.isDestroyed()) {
                        r.status = r.ns.isRemoved() ? NvmeStatus.INVALID_NAMESPACE : NvmeStatus.NAMESPACE_NOT_READY;
                    } else {
                        long t0 = System.nanoTime();
                        r.status = r.ns.backend().write(r.offset + datao, buf, off, n, group.scratch());
                        checkTimeout(r, t0);
                    }
                }
            }
            case NvmfRequest.KIND_STAGE -> MemorySegment.copy(buf, off, commands.stage(), datao, n);
            case NvmfRequest.KIND_WRITE_BUFFERED -> MemorySegment.copy(buf, off, bech.buffer(r), datao, n);
            default -> {
                if (n > 0 && r.sink != null) {
                    MemorySegment.copy(buf, off, r.sink.destination(), r.sink.destinationOffset() + datao, n);
                }
            }
        }
        r.received += n;
        if (last) {
            hostDataDone(r);
        }
    }

    private void hostDataDone(NvmfRequest r) {
        switch (r.kind) {
            case NvmfRequest.KIND_WRITE_BUFFERED -> {
                int st = r.status;
                if (st == NvmeStatus.SUCCESS && (r.ns.isRemoved() || r.queue.isDestroyed())) {
                    st = r.ns.isRemoved() ? NvmeStatus.INVALID_NAMESPACE : NvmeStatus.NAMESPACE_NOT_READY;
                }
                if (st != NvmeStatus.SUCCESS) {
                    countWrite(r, r.len);
                    bech.release(r);
                    r.executed(st);
                    respond(r);
                } else {
                    async.submit(r, StaBackendChannel.OP_WRITE, r.offset);
                }
            }
            case NvmfRequest.KIND_WRITE -> {
                countWrite(r, r.len);
                r.executed(r.status);
                respond(r);
            }
            case NvmfRequest.KIND_STAGE -> commands.executeStaged(r);
            default -> {
                // The application's fetch: the data is its now; it answers the command later.
                NvmfHostDataSink sink = r.sink;
                int st = r.status;
                r.sink = null;
                r.status = NvmeStatus.SUCCESS;
                r.transition(NvmfRequestState.EXECUTING);
                if (sink != null) {
                    sink.fetched(st == NvmeStatus.SUCCESS ? DocaError.SUCCESS : DocaError.IO_FAILED);
                }
            }
        }
    }

    // ------------------------------------------------------------------ the application's commands

    /**
     * The application fetches the host data of its command {@code cid} ({@code len} bytes) into
     * {@code sink}: NOT_FOUND when no such command waits for the application, BAD_STATE while its
     * data is already being fetched. {@link NvmfHostDataSink#fetched} ends it.
     */
    public DocaError fetch(int cid, int len, NvmfHostDataSink sink) {
        NvmfRequest r = pool.applicationRequest(cid);
        if (r == null) {
            return DocaError.NOT_FOUND;
        }
        if (r.transition(NvmfRequestState.TRANSFERRING_HOST_TO_APPLICATION) != DocaError.SUCCESS) {
            return DocaError.BAD_STATE;
        }
        r.sink = sink;
        r.len = len;
        r.received = 0;
        tr.requestHostData(r, 0, len);
        return DocaError.SUCCESS;
    }

    /**
     * The application answers its command {@code cid}: {@code dataLen} bytes of {@code data} (may
     * be 0) then the completion (status, DW0, DW1). NOT_FOUND when no such command waits for an
     * answer. The caller reserved the room ({@link NvmfTransport#reserve}).
     */
    public DocaError answer(int cid, MemorySegment data, long dataOff, int dataLen, int status, int dw0, int dw1) {
        NvmfRequest r = pool.applicationRequest(cid);
        if (r == null || r.state() != NvmfRequestState.EXECUTING) {
            return DocaError.NOT_FOUND;
        }
        if (dataLen > 0) {
            tr.sendData(r, data, dataOff, dataLen);
        }
        r.dw0 = dw0;
        r.dw1 = dw1;
        r.executed(status);
        respond(r);
        return DocaError.SUCCESS;
    }

    /** Lets a command whose capsule the transport refused (a bad SGL) be answered: counted, then {@code status}. */
    public void onRefusedCommand(NvmfRequest r, int cid, int status) {
        r.init(NvmfRequest.KIND_INLINE, cid, 0);
        qp.advanceSqHead();
        refuse(r, status);
    }

    /**
     * The connection is gone: every request not owned by the back-end ends unanswered (EXECUTED,
     * COMPLETED, FREE); fetches of the application end with {@code why}. Requests the back-end
     * still executes end when their completion arrives.
     */
    public void abortAll(DocaError why) {
        async.clearDeferred();
        for (int tag = 0; tag < pool.size(); tag++) {
            NvmfRequest r = pool.at(tag);
            NvmfRequestState s = r.state();
            if (s == NvmfRequestState.FREE || s == NvmfRequestState.COMPLETED
                    || (s == NvmfRequestState.EXECUTING && r.kind != NvmfRequest.KIND_APPLICATION)) {
                continue; // free, or the back-end still owns it (ends in NvmfBackendIo.onBackendComplete)
            }
            if (r.waiting) {
                bech.cancelWait(r);
            }
            r.nextWaiting = null;
            NvmfHostDataSink sink = r.sink;
            if (s == NvmfRequestState.TRANSFERRING_CONTROLLER_TO_HOST) {
                completed(r); // the wire is gone: nothing will complete it
                continue;
            }
            if (s != NvmfRequestState.EXECUTED) {
                r.executed(NvmeStatus.ABORTED_SQ_DELETION);
            }
            drop(r);
            if (sink != null) {
                sink.fetched(why);
            }
        }
        commands.clearStage();
    }

    /**
     * The queue pair is being destroyed: every command not executing in the back-end is answered
     * with Command Aborted due to SQ Deletion (the host learns its fate before the connection
     * closes): those waiting for host data or a back-end slot, and the application's. Commands in
     * the back-end finish and are answered normally. Engine thread.
     */
    public void failWaiting() {
        for (int tag = 0; tag < pool.size(); tag++) {
            NvmfRequest r = pool.at(tag);
            NvmfRequestState s = r.state();
            boolean waitingData = s == NvmfRequestState.TRANSFERRING_HOST_TO_CONTROLLER
                    || s == NvmfRequestState.NEED_BUFFER;
            boolean application = r.kind == NvmfRequest.KIND_APPLICATION
                    && (s == NvmfRequestState.EXECUTING || s == NvmfRequestState.TRANSFERRING_HOST_TO_APPLICATION);
            if ((!waitingData && !application) || !tr.reserve(0)) {
                continue;
            }
            if (r.waiting) {
                bech.cancelWait(r);
            }
            bech.release(r);
            NvmfHostDataSink sink = r.sink;
            r.sink = null;
            r.executed(NvmeStatus.ABORTED_SQ_DELETION);
            if (r.kind == NvmfRequest.KIND_STAGE) {
                commands.clearStage();
            }
            respond(r);
            if (sink != null) {
                sink.fetched(DocaError.SHUTDOWN);
            }
        }
    }

    /** EXECUTED → COMPLETED → FREE without an answer (the connection is gone). */
    void drop(NvmfRequest r) {
        bech.release(r);
        releaseCounters(r);
        r.transition(NvmfRequestState.COMPLETED);
        pool.put(r);
    }

    // ------------------------------------------------------------------ completion

    /** EXECUTED → TRANSFERRING_CONTROLLER_TO_HOST: the transport sends the completion and ends the request. */
    void respond(NvmfRequest r) {
        r.transition(NvmfRequestState.TRANSFERRING_CONTROLLER_TO_HOST);
        if (r.status != NvmeStatus.SUCCESS && r.kind != NvmfRequest.KIND_APPLICATION) {
            // The engine's I/O errors: the application's own answers are its business.
            group.ioErrors++;
            int engine = group.index();
            if (r.ns != null) {
                r.ns.counters(engine).error();
            }
            if (r.queue != null) {
                r.queue.counters(engine).error();
            }
        }
        releaseCounters(r);
        tr.complete(r);
    }

    /**
     * The transport no longer needs {@code r} (its answer is sent, or the connection is gone):
     * COMPLETED → FREE. Transports call this; nothing may touch the request afterwards.
     */
    public void completed(NvmfRequest r) {
        r.transition(NvmfRequestState.COMPLETED);
        pool.put(r);
    }

    /** Ends the request's share of its namespace's and queue's in-flight counts (once). */
    void releaseCounters(NvmfRequest r) {
        int engine = group.index();
        if (r.ns != null) {
            r.ns.counters(engine).end();
            r.ns = null;
        }
        if (r.queue != null) {
            r.queue.counters(engine).end();
            r.queue = null;
        }
    }

    void countRead(NvmfRequest r, int n) {
        int engine = group.index();
        r.queue.counters(engine).read(n);
        r.ns.counters(engine).read(n);
        group.reads++;
        group.readBytes += n;
    }

    void countWrite(NvmfRequest r, int n) {
        int engine = group.index();
        r.queue.counters(engine).write(n);
        r.ns.counters(engine).write(n);
        group.writes++;
        group.writeBytes += n;
    }

    void countOther(NvmfRequest r) {
        int engine = group.index();
        StaCounters qc = r.queue.counters(engine);
        qc.otherOp();
        r.ns.counters(engine).otherOp();
    }

    void checkTimeout(NvmfRequest r, long t0) {
        long el = System.nanoTime() - t0;
        if (el > group.backendTimeoutNanos()) {
            r.queue.counters(group.index()).timeout();
            group.reportBackendTimeout(r.queue, r.ns, r.opcode, el);
        }
    }

    /** Frees the executor's own buffers (the staging buffer). After the connection is gone. */
    public void releaseMemory() {
        memory.close();
    }
}
