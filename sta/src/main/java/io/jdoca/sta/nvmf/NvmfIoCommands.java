package io.jdoca.sta.nvmf;

import io.jdoca.core.mem.NativeMemory;
import io.jdoca.sta.backend.StaBackendChannel;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeLayouts;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The offloaded I/O commands of one queue pair (SPDK's {@code ctrlr_bdev.c}): Read, Write, Flush,
 * Write Zeroes, Compare and Dataset Management on a namespace's back-end, from READY_TO_EXECUTE to
 * EXECUTED; the range and length checks of the NVM Command Set; the staging buffer for Compare and
 * DSM data that was not in the capsule. An inline back-end executes here; an asynchronous one goes
 * through {@link NvmfBackendIo}. Answers, counters and timeouts are the {@link NvmfCommandExecutor}'s.
 *
 * <p>Not thread-safe: the owning IO engine's thread (called by the executor).
 */
final class NvmfIoCommands {
    /** DSM range fields are little-endian (NVM Command Set 1.0 figure 39). */
    private static final ValueLayout.OfInt LE32 = NvmeLayouts.LE32;
    private static final ValueLayout.OfLong LE64 = NvmeLayouts.LE64;
    private final NvmfCommandExecutor exec;
    private final NvmfQpair qp;
    private final NvmfPollGroup group;
    private final NvmfTransport tr;
    private final NvmfBackendChannels bech;
    private final NvmfBackendIo async;
    private final int maxIo;
    private final int inCapsuleMax;
    /** One staging buffer per QP (max I/O size) for Compare/DSM data that was not in the capsule. */
    private final MemorySegment stage;
    private NvmfRequest stageOwner;

    NvmfIoCommands(NvmfCommandExecutor exec, NvmfQpair qp, NvmfPollGroup group, NvmfTransport tr, NativeMemory memory,
                   int maxIo, int inCapsuleMax) {
        this.exec = exec;
        this.qp = qp;
        this.group = group;
        this.tr = tr;
        this.bech = group.backendChannels();
        this.async = exec.backendIo();
        this.maxIo = maxIo;
        this.inCapsuleMax = inCapsuleMax;
        this.stage = memory.allocate(maxIo, 4096);
    }

    /**
     * Executes offloadable command {@code r} (namespace, queue and SQE fields set, counters begun):
     * {@code sglLen} and {@code sglType} describe its data, {@code dataLen} bytes of it are in the
     * capsule at {@code dataOff} of {@code buf}.
     */
    void execute(NvmfRequest r, long sglLen, int sglType, MemorySegment buf, int dataOff, int dataLen) {
        switch (r.opcode) {
            case NvmeOpcode.IO_READ -> read(r, sglLen);
            case NvmeOpcode.IO_WRITE -> write(r, sglLen, buf, dataOff, dataLen);
            case NvmeOpcode.IO_FLUSH -> flush(r);
            case NvmeOpcode.IO_WRITE_ZEROES -> writeZeroes(r);
            default -> {
                boolean fetch = dataLen == 0 && NvmeCommand.isHostMemory(sglType);
                if (fetch && stageData(r, sglLen)) {
                    return;
                }
                r.transition(NvmfRequestState.READY_TO_EXECUTE);
                if (r.opcode == NvmeOpcode.IO_COMPARE) {
                    compare(r, sglLen, buf, dataOff, dataLen);
                } else {
                    dsm(r, buf, dataOff, dataLen);
                }
            }
        }
    }

    private int transferStatus(NvmfRequest r, long len, long sglLen) {
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

    private static int rangeStatus(NvmfNamespace ns, long slba, long nlb) {
        if (slba < 0 || slba + nlb > ns.sizeBlocks() || slba + nlb < slba) {
            return NvmeStatus.LBA_OUT_OF_RANGE;
        }
        return NvmeStatus.SUCCESS;
    }

    private void read(NvmfRequest r, long sglLen) {
        NvmfNamespace ns = r.ns;
        long len = (long) r.nlb << ns.blockShift();
        int st = transferStatus(r, len, sglLen);
        if (st != NvmeStatus.SUCCESS) {
            r.executed(st);
            exec.respond(r);
            return;
        }
        int n = (int) len;
        StaBackendChannel ch = bech.channel(ns.backend());
        if (ch != null) {
            r.channel = ch;
            r.dataLen = n;
            if (bech.acquire(r) < 0) {
                bech.await(r); // NEED_BUFFER until a slot frees (onBuffer)
                return;
            }
            async.submit(r, StaBackendChannel.OP_READ, r.slba << ns.blockShift());
            return;
        }
        // Inline back-end: the data goes straight into the transport's send buffer (zero copy).
        r.transition(NvmfRequestState.READY_TO_EXECUTE);
        r.transition(NvmfRequestState.EXECUTING);
        long at = tr.c2hBegin(r, n);
        long t0 = System.nanoTime();
        st = ns.backend().read(r.slba << ns.blockShift(), tr.c2hBuffer(), at, n, group.scratch());
        exec.checkTimeout(r, t0);
        r.executed(st);
        if (st != NvmeStatus.SUCCESS) {
            exec.respond(r);
            return;
        }
        exec.countRead(r, n);
        r.transition(NvmfRequestState.TRANSFERRING_CONTROLLER_TO_HOST);
        exec.releaseCounters(r);
        boolean dataCompletes = qp.sqFlowControlDisabled();
        tr.c2hEnd(r, n, dataCompletes);
        if (!dataCompletes) {
            tr.complete(r);
        }
    }

    private void write(NvmfRequest r, long sglLen, MemorySegment buf, int dataOff, int dataLen) {
        NvmfNamespace ns = r.ns;
        long len = (long) r.nlb << ns.blockShift();
        int st = transferStatus(r, len, sglLen);
        if (st == NvmeStatus.SUCCESS && dataLen > 0 && (dataLen != len || dataLen > inCapsuleMax)) {
            st = NvmeStatus.DATA_SGL_LENGTH_INVALID;
        }
        if (st != NvmeStatus.SUCCESS) {
            r.executed(st);
            exec.respond(r);
            return;
        }
        r.offset = r.slba << ns.blockShift();
        r.len = (int) len;
        StaBackendChannel ch = bech.channel(ns.backend());
        if (ch != null && bech.acquire(r) >= 0) {
            r.channel = ch;
            r.dataLen = r.len;
            if (dataLen > 0) {
                MemorySegment.copy(buf, dataOff, bech.buffer(r), 0, dataLen);
                async.submit(r, StaBackendChannel.OP_WRITE, r.offset);
                return;
            }
            r.kind = NvmfRequest.KIND_WRITE_BUFFERED;
            r.transition(NvmfRequestState.TRANSFERRING_HOST_TO_CONTROLLER);
            tr.requestHostData(r, 0, r.len);
            return;
        }
        // Inline back-end (or every slot busy): written from the receive buffer as the data arrives.
        if (dataLen > 0) {
            r.transition(NvmfRequestState.READY_TO_EXECUTE);
            r.transition(NvmfRequestState.EXECUTING);
            long t0 = System.nanoTime();
            st = ns.backend().write(r.offset, buf, dataOff, dataLen, group.scratch());
            exec.checkTimeout(r, t0);
            exec.countWrite(r, dataLen);
            r.executed(st);
            exec.respond(r);
            return;
        }
        r.kind = NvmfRequest.KIND_WRITE;
        r.transition(NvmfRequestState.TRANSFERRING_HOST_TO_CONTROLLER);
        tr.requestHostData(r, 0, r.len);
    }

    private void flush(NvmfRequest r) {
        StaBackendChannel ch = bech.channel(r.ns.backend());
        if (ch != null && bech.acquire(r) >= 0) {
            r.channel = ch;
            r.dataLen = 0;
            async.submit(r, StaBackendChannel.OP_FLUSH, 0);
            return;
        }
        r.transition(NvmfRequestState.READY_TO_EXECUTE);
        r.transition(NvmfRequestState.EXECUTING);
        long t0 = System.nanoTime();
        int st = r.ns.backend().flush();
        exec.checkTimeout(r, t0);
        other(r, st);
    }

    private void writeZeroes(NvmfRequest r) {
        r.transition(NvmfRequestState.READY_TO_EXECUTE);
        NvmfNamespace ns = r.ns;
        int st = rangeStatus(ns, r.slba, r.nlb);
        if (st == NvmeStatus.SUCCESS && async.beginRanges(r)) {
            async.range(r, StaBackendChannel.OP_WRITE_ZEROES, r.slba << ns.blockShift(),
                    (long) r.nlb << ns.blockShift());
            async.endRanges(r);
            return;
        }
        if (st == NvmeStatus.SUCCESS) {
            r.transition(NvmfRequestState.EXECUTING);
            long t0 = System.nanoTime();
            st = ns.backend().writeZeroes(r.slba << ns.blockShift(), (long) r.nlb << ns.blockShift(), group.scratch());
            exec.checkTimeout(r, t0);
        }
        other(r, st);
    }

    /**
     * Compare or DSM whose host data is not in the capsule: validate, then fetch it into the
     * staging buffer (executed when it has arrived). False when the command should be executed
     * (and refused) right away instead.
     */
    private boolean stageData(NvmfRequest r, long sglLen) {
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
            exec.respond(r);
            return true;
        }
        stageOwner = r;
        r.kind = NvmfRequest.KIND_STAGE;
        r.len = (int) need;
        r.transition(NvmfRequestState.TRANSFERRING_HOST_TO_CONTROLLER);
        tr.requestHostData(r, 0, r.len);
        return true;
    }

    /** From READY_TO_EXECUTE: compares {@code dataLen} bytes of host data with the blocks. */
    private void compare(NvmfRequest r, long sglLen, MemorySegment src, long dataOff, int dataLen) {
        NvmfNamespace ns = r.ns;
        long len = (long) r.nlb << ns.blockShift();
        int st = transferStatus(r, len, sglLen);
        if (st == NvmeStatus.SUCCESS && dataLen != len) {
            st = dataLen == 0 ? NvmeStatus.INVALID_FIELD : NvmeStatus.DATA_SGL_LENGTH_INVALID;
        }
        if (st == NvmeStatus.SUCCESS) {
            r.transition(NvmfRequestState.EXECUTING);
            MemorySegment scratch = group.scratch();
            long t0 = System.nanoTime();
            st = ns.backend().read(r.slba << ns.blockShift(), scratch, 0, dataLen, scratch);
            exec.checkTimeout(r, t0);
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
    private void dsm(NvmfRequest r, MemorySegment src, long dataOff, int dataLen) {
        NvmfNamespace ns = r.ns;
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
            long nlb = src.get(LE32, at + 4) & 0xffffffffL;
            long slba = src.get(LE64, at + 8);
            if (slba < 0 || slba + nlb > ns.sizeBlocks()) {
                st = NvmeStatus.LBA_OUT_OF_RANGE;
            }
        }
        if (st == NvmeStatus.SUCCESS && deallocate && async.beginRanges(r)) {
            // Every range to the channel at once; the command completes with the last (first error wins).
            for (int i = 0; i < nr; i++) {
                long at = dataOff + i * 16L;
                long nlb = src.get(LE32, at + 4) & 0xffffffffL;
                if (nlb > 0) {
                    async.range(r, StaBackendChannel.OP_DEALLOCATE, src.get(LE64, at + 8) << ns.blockShift(),
                            nlb << ns.blockShift());
                }
            }
            async.endRanges(r);
            return;
        }
        if (st == NvmeStatus.SUCCESS) {
            r.transition(NvmfRequestState.EXECUTING);
            long t0 = System.nanoTime();
            for (int i = 0; deallocate && st == NvmeStatus.SUCCESS && i < nr; i++) {
                long at = dataOff + i * 16L;
                long nlb = src.get(LE32, at + 4) & 0xffffffffL;
                long slba = src.get(LE64, at + 8);
                if (nlb > 0) {
                    st = ns.backend().deallocate(slba << ns.blockShift(), nlb << ns.blockShift(), group.scratch());
                }
            }
            exec.checkTimeout(r, t0);
        }
        other(r, st);
    }

    private void other(NvmfRequest r, int st) {
        exec.countOther(r);
        r.executed(st);
        exec.respond(r);
    }

    MemorySegment stage() {
        return stage;
    }

    void clearStage() {
        stageOwner = null;
    }

    /** The staged host data of a Compare or DSM has arrived: executes it from the staging buffer. */
    void executeStaged(NvmfRequest r) {
        stageOwner = null;
        r.transition(NvmfRequestState.READY_TO_EXECUTE);
        int st = r.status;
        if (st == NvmeStatus.SUCCESS && (r.ns.isRemoved() || r.queue.isDestroyed())) {
            st = r.ns.isRemoved() ? NvmeStatus.INVALID_NAMESPACE : NvmeStatus.NAMESPACE_NOT_READY;
        }
        if (st != NvmeStatus.SUCCESS) {
            r.executed(st);
            exec.respond(r);
        } else if (r.opcode == NvmeOpcode.IO_COMPARE) {
            compare(r, r.len, stage, 0, r.len);
        } else {
            dsm(r, stage, 0, r.len);
        }
    }
}
