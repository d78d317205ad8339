package io.jdoca.nvmf.tgt;

import io.jdoca.core.DocaError;
import io.jdoca.sta.StaIo;
import io.jdoca.sta.StaQp;
import io.jdoca.sta.StaSubsystem;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.nvmf.NvmfListenerAna;
import io.jdoca.sta.nvmf.NvmfQpairState;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One command an IO engine did not execute (Fabrics, admin, an I/O command it does not offload) on
 * its way to {@code sta-main} and back, as SPDK hands a request from a poll group to the subsystem's
 * thread and its completion back: the QP's IO thread copies the SQE (and a Connect's data) into it
 * ({@link NvmfCommandForwarder}); {@code sta-main} executes it against the target state
 * ({@link AdminHandler}) and sets the answer ({@link #complete}, {@link #completeWithData}), which
 * posts the command back; the IO thread then runs it ({@link #run}): applies what a Connect grants
 * to the QP and submits the non-offload send or write-send task. A command that only reports a
 * closed QP ({@link #gone}) goes one way.
 *
 * <p>Threads: built on the QP's IO thread; read and answered on {@code sta-main}; {@link #run} on
 * the QP's IO thread. Each hand-over goes through a queue (happens-before), so the fields need no
 * lock; nobody touches the command after handing it over.
 */
final class NvmfAdminCommand implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfAdminCommand.class);

    final StaQp qp;
    /** The QP's queue id when the command arrived (0 = admin queue; the QP's field is its IO thread's). */
    final int qid;
    /** The copied SQE (off the heap, as every segment the shared flyweights see: {@link #offHeap}). */
    final NvmeCommand sqe = new NvmeCommand().wrap(offHeap(NvmeCommand.SIZE), 0);
    /** A Connect's data (1024 bytes), copied from the capsule or fetched from the host; else null. */
    MemorySegment data;
    /** The command carries host data that was not in the capsule. */
    final boolean payloadMissing;
    /** Non-null: not a command but the QP's end (why), reported by the transport error event. */
    final String gone;

    // The answer, set on sta-main.
    private int status;
    private int dw0;
    private int dw1;
    private byte[] reply;
    private int replyLen;
    /** Granted by a Connect: the QP's submission queue size, and for an I/O queue the subsystem it may use. */
    private int sqSize;
    private StaSubsystem bind;
    private NvmfListenerAna ana;
    private long hostIdHi;
    private long hostIdLo;

    private NvmfAdminCommand(StaQp qp, int qid, NvmeCommand cmd, boolean payloadMissing, String gone) {
        this.qp = qp;
        this.qid = qid;
        this.payloadMissing = payloadMissing;
        this.gone = gone;
        if (cmd != null) {
            MemorySegment.copy(cmd.segment(), cmd.base(), this.sqe.segment(), 0, NvmeCommand.SIZE);
        }
    }

    /**
     * {@code len} bytes of native memory the garbage collector frees: what an admin command's SQE copy, its data and
     * its answer live in. Never a heap array: the flyweights and copies these pass through ({@link NvmeCommand}'s
     * accessors, {@code MemorySegment.copy}) are the data path's too, where the JIT compiled them for native segments
     * only; one heap segment there (a Keep Alive's SQE) deoptimised the IO engine's compiled command path
     * ({@code class_check} traps; docs/performance/nvmf.md, 2026-12-03 07:40). Control path.
     */
    static MemorySegment offHeap(int len) {
        return Arena.ofAuto().allocate(Math.max(1, len));
    }

    /** A copy of {@code cmd} as it arrived on {@code qp}. IO thread. */
    static NvmfAdminCommand of(StaQp qp, NvmeCommand cmd, boolean payloadMissing) {
        return new NvmfAdminCommand(qp, qp.qid(), cmd, payloadMissing, null);
    }

    /** The report that {@code qp} was torn down ({@code why}). IO thread. */
    static NvmfAdminCommand gone(StaQp qp, String why) {
        return new NvmfAdminCommand(qp, qp.qid(), null, false, why);
    }

    int cid() {
        return sqe.cid();
    }

    /** Sets the completion (status, DW0, DW1) and posts the command back to its QP's IO thread. sta-main. */
    void complete(int st, int d0, int d1) {
        this.status = st;
        this.dw0 = d0;
        this.dw1 = d1;
        NvmfMain.post(qp.io(), this);
    }

    /** Returns {@code len} bytes of {@code bytes} to the host with a successful completion. sta-main. */
    void completeWithData(byte[] bytes, int len) {
        this.reply = bytes;
        this.replyLen = len;
        complete(NvmeStatus.SUCCESS, 0, 0);
    }

    /**
     * A successful Connect: the IO thread sets the SQ size (and binds an I/O queue to
     * {@code subsystem} and its path: the listener's ANA states, null without ANA reporting, and
     * the host identifier) before it sends the answer. sta-main.
     */
    void grant(int entries, StaSubsystem subsystem, NvmfListenerAna listenerAna, long hostHi, long hostLo) {
        this.sqSize = entries;
        this.bind = subsystem;
        this.ana = listenerAna;
        this.hostIdHi = hostHi;
        this.hostIdLo = hostLo;
    }

    /** {@link #grant(int, StaSubsystem, NvmfListenerAna, long, long)} for an admin queue (no subsystem, no path). */
    void grant(int entries) {
        grant(entries, null, null, 0, 0);
    }

    /** The answer, on the QP's IO thread (posted by {@link #complete}). */
    @Override
    public void run() {
        if (qp.state() == NvmfQpairState.CLOSED) {
            return; // the host left while sta-main was answering
        }
        StaIo io = qp.io();
        if (sqSize > 0) {
            io.qpConnectSetSqSize(qp, sqSize);
            if (bind != null && !bind(qp, bind, ana, hostIdHi, hostIdLo)) {
                status = NvmeStatus.INTERNAL_ERROR;
                dw0 = 0;
                reply = null;
            }
        }
        if (reply != null) {
            sendData(io, qp, cid(), reply, replyLen);
        } else {
            send(io, qp, cid(), status, dw0, dw1);
        }
    }

    /**
     * Binds an I/O queue to {@code subsystem} and its path; false when it cannot (logged). The QP's IO
     * thread: answering its Connect, or after it authenticated (posted before the last answer).
     */
    static boolean bind(StaQp qp, StaSubsystem subsystem, NvmfListenerAna ana, long hostHi, long hostLo) {
        if (qp.state() == NvmfQpairState.CLOSED) {
            return false;
        }
        if (qp.io().qpAddSubsystem(qp, subsystem) != DocaError.SUCCESS) {
            LOG.warn("{}: cannot bind the I/O queue to {}", qp, subsystem.nqn());
            return false;
        }
        qp.setPath(ana, hostHi, hostLo);
        return true;
    }

    /** Submits a non-offload send task: the completion of command {@code cid}. IO thread. */
    static void send(StaIo io, StaQp qp, int cid, int status, int dw0, int dw1) {
        var t = io.taskNonOffloadSendAllocInit(qp, cid, status, dw0, dw1, 0);
        if (t == null) {
            LOG.error("{}: no free non-offload send task ({})", qp, io.lastError());
            return;
        }
        var e = t.submit();
        if (e != DocaError.SUCCESS) {
            LOG.error("{}: non-offload send submit failed: {}", qp, e);
            t.free();
        }
    }

    /** Submits a non-offload write-send task: {@code len} bytes of data, then a successful completion. IO thread. */
    static void sendData(StaIo io, StaQp qp, int cid, byte[] data, int len) {
        MemorySegment seg = offHeap(len);
        MemorySegment.copy(data, 0, seg, ValueLayout.JAVA_BYTE, 0, len);
        var t = io.taskNonOffloadWriteSendAllocInit(qp, cid, seg, 0, len, NvmeStatus.SUCCESS, 0, 0, 0);
        if (t == null) {
            LOG.error("{}: no free non-offload write-send task ({})", qp, io.lastError());
            return;
        }
        var e = t.submit();
        if (e != DocaError.SUCCESS) {
            LOG.error("{}: non-offload write-send submit failed: {}", qp, e);
            t.free();
        }
    }
}
