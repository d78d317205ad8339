package io.jdoca.sta.nvmf;

import io.jdoca.sta.backend.StaBackend;
import io.jdoca.sta.backend.StaBackendChannel;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.MemorySegment;

/**
 * The asynchronous back-end half of a queue pair's command layer (SPDK's {@code ctrlr_bdev.c}
 * completion path): a request in READY_TO_EXECUTE goes to the engine's {@link StaBackendChannel}
 * with an engine slot buffer (EXECUTING); its completion, reaped in the engine's progress, moves
 * it to EXECUTED and sends the data and the completion, or queues the answer until the wire has
 * room. Reads wait in NEED_BUFFER while every slot is busy. Write Zeroes and Dataset Management
 * (Deallocate) go to channels that {@link StaBackendChannel#supportsRanges support them} as one
 * range operation each ({@link #beginRanges}, {@link #range}, {@link #endRanges}): the command
 * completes with the last, first error wins. Memory and null back-ends have no channel and never
 * come here.
 *
 * <p>Not thread-safe: the owning IO engine's thread.
 */
final class NvmfBackendIo {
    private final NvmfCommandExecutor exec;
    private final NvmfQpair qp;
    private final NvmfPollGroup group;
    private final NvmfTransport tr;
    private final NvmfBackendChannels bech;
    /** EXECUTED requests whose answer waits for room on the wire: FIFO through {@link NvmfRequest#nextWaiting}. */
    private NvmfRequest deferHead;
    private NvmfRequest deferTail;

    NvmfBackendIo(NvmfCommandExecutor exec, NvmfQpair qp, NvmfPollGroup group, NvmfTransport tr,
                  NvmfBackendChannels bech) {
        this.exec = exec;
        this.qp = qp;
        this.group = group;
        this.tr = tr;
        this.bech = bech;
    }

    void clearDeferred() {
        deferHead = null;
        deferTail = null;
    }

    /** READY_TO_EXECUTE → EXECUTING: the operation goes to the engine's channel (inline when the channel is full). */
    void submit(NvmfRequest r, int op, long offset) {
        r.transition(NvmfRequestState.READY_TO_EXECUTE);
        r.transition(NvmfRequestState.EXECUTING);
        if (!bech.submit(r.channel, op, offset, r.dataLen, r)) {
            StaBackend be = r.ns.backend();
            MemorySegment b = bech.buffer(r);
            long t0 = System.nanoTime();
            int st = switch (op) {
                case StaBackendChannel.OP_READ -> be.read(offset, b, 0, r.dataLen, group.scratch());
                case StaBackendChannel.OP_WRITE -> be.write(offset, b, 0, r.dataLen, group.scratch());
                default -> be.flush();
            };
            exec.checkTimeout(r, t0);
            onBackendComplete(r, st);
        }
    }

    /**
     * Write Zeroes or Dataset Management {@code r} (READY_TO_EXECUTE, range-checked) goes to the
     * engine's channel if it takes range operations and a slot is free: then true, {@code r} holds
     * the slot and is EXECUTING, and the caller submits each range with {@link #range} and ends
     * with {@link #endRanges}. False: the caller uses the back-end's synchronous calls.
     */
    boolean beginRanges(NvmfRequest r) {
        StaBackendChannel ch = bech.channel(r.ns.backend());
        if (ch == null || !ch.supportsRanges() || bech.acquire(r) < 0) {
            return false;
        }
        r.channel = ch;
        r.dataLen = 0;
        r.opsPending = 0;
        r.opsStatus = NvmeStatus.SUCCESS;
        r.transition(NvmfRequestState.EXECUTING);
        return true;
    }

    /**
     * One range of {@code r} ({@link StaBackendChannel#OP_WRITE_ZEROES} or
     * {@link StaBackendChannel#OP_DEALLOCATE}, bytes): to the channel, or, when it is full, through
     * the back-end's synchronous call here.
     */
    void range(NvmfRequest r, int op, long offset, long len) {
        if (bech.submitRange(r.channel, op, offset, len, r)) {
            return;
        }
        StaBackend be = r.ns.backend();
        long t0 = System.nanoTime();
        int st = op == StaBackendChannel.OP_WRITE_ZEROES ? be.writeZeroes(offset, len, group.scratch())
                : be.deallocate(offset, len, group.scratch());
        exec.checkTimeout(r, t0);
        if (st != NvmeStatus.SUCCESS && r.opsStatus == NvmeStatus.SUCCESS) {
            r.opsStatus = st;
        }
    }

    /** Every range of {@code r} is submitted: it completes now when none is in flight, else with the last. */
    void endRanges(NvmfRequest r) {
        if (r.opsPending == 0) {
            onBackendComplete(r, r.opsStatus);
        }
    }

    /** A slot became free for a read waiting in NEED_BUFFER (engine progress). */
    void onBuffer(NvmfRequest r) {
        if (qp.closed()) {
            r.executed(NvmeStatus.ABORTED_SQ_DELETION);
            exec.drop(r);
            return;
        }
        submit(r, StaBackendChannel.OP_READ, r.slba << r.ns.blockShift());
    }

    /** The back-end finished the request's operation (engine progress, or inline after a full channel). */
    void onBackendComplete(NvmfRequest r, int status) {
        if (r.opcode == NvmeOpcode.IO_WRITE) {
            exec.countWrite(r, r.dataLen);
        } else if (r.opcode != NvmeOpcode.IO_READ) {
            exec.countOther(r); // Flush, Write Zeroes, Dataset Management
        }
        r.executed(status);
        if (qp.closed()) {
            exec.drop(r);
            return;
        }
        if (deferHead != null || !tr.reserve(answerBytes(r))) {
            defer(r);
            return;
        }
        answer(r);
    }

    private int answerBytes(NvmfRequest r) {
        return r.opcode == NvmeOpcode.IO_READ && r.status == NvmeStatus.SUCCESS ? r.dataLen : 0;
    }

    private void defer(NvmfRequest r) {
        r.nextWaiting = null;
        if (deferTail == null) {
            deferHead = r;
        } else {
            deferTail.nextWaiting = r;
        }
        deferTail = r;
    }

    /** Sends the answers that waited for room; engine progress, before the transport polls. */
    int drainDeferred() {
        int n = 0;
        NvmfRequest r;
        while ((r = deferHead) != null && tr.reserve(answerBytes(r))) {
            deferHead = r.nextWaiting;
            if (deferHead == null) {
                deferTail = null;
            }
            r.nextWaiting = null;
            answer(r);
            n++;
        }
        return n;
    }

    /** EXECUTED (asynchronous): data and completion out, the slot back to the engine. */
    private void answer(NvmfRequest r) {
        if (r.opcode == NvmeOpcode.IO_READ && r.status == NvmeStatus.SUCCESS) {
            int n = r.dataLen;
            exec.countRead(r, n);
            r.transition(NvmfRequestState.TRANSFERRING_CONTROLLER_TO_HOST);
            exec.releaseCounters(r);
            // As the inline path: one C2HData PDU; with the host's SQ flow control off its SUCCESS
            // flag completes the command and no CapsuleResp follows (NVMe/TCP TP 8000; Linux nvmet-tcp
            // does the same). One PDU less per read to build, send and parse: the file back-end's
            // randread went from 0.68 to 0.76 of fio (median of six paired rounds, docs/performance/nvmf.md).
            boolean dataCompletes = qp.sqFlowControlDisabled();
            long at = tr.c2hBegin(r, n);
            MemorySegment.copy(bech.buffer(r), 0, tr.c2hBuffer(), at, n);
            // The slot is handed on only after the answer: a read waiting for it may answer at once.
            int slot = bech.detach(r);
            tr.c2hEnd(r, n, dataCompletes);
            if (!dataCompletes) {
                tr.complete(r);
            }
            bech.releaseSlot(slot);
            return;
        }
        bech.release(r);
        exec.respond(r);
    }
}
