package io.jdoca.rdma;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.rdma.wire.VerbsQpInfo;
import io.jdoca.verbs.CmId;
import io.jdoca.verbs.MemoryRegion;
import io.jdoca.verbs.QpAttr;
import io.jdoca.verbs.QueuePair;
import io.jdoca.verbs.SendWr;
import io.jdoca.verbs.Verbs;
import io.jdoca.verbs.VerbsConstants;
import io.jdoca.verbs.VerbsDeviceContext;
import io.jdoca.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;

/**
 * One connection of the verbs transport: an RC queue pair on the context's CQ and SRQ. Created (RESET → INIT)
 * at {@link Rdma#export()}, moved INIT → RTR → RTS by {@link #connect} with the peer's {@link VerbsQpInfo}.
 *
 * <p>Data path: each of the {@code sendQueueSize} slots owns, from creation, one {@link SendWr} (an {@code ibv_send_wr}
 * and its SGE array); a task takes the next slot, its WR is filled (opcode, SGEs with the local maps' lkeys, the remote
 * address and the remote map's rkey, the immediate in network order) and posted at once, {@code wr_id} = this
 * endpoint's index and the slot. The device completes an RC send queue in order; {@link #work()} hands the completions
 * to the context in submission order, tasks refused before posting included. Nothing is allocated and nothing thrown
 * per task.
 *
 * <p>Errors: a failed completion moves the QP to the error state (RC), so it breaks the connection
 * ({@link VerbsErrors}); the requests behind it come back flushed and complete with the cause. A local stop
 * moves the QP to ERR and its requests complete with SHUTDOWN.
 *
 * <p>Threads: engine thread only.
 */
final class VerbsEndpoint extends RdmaEndpoint {
    private static final System.Logger LOG = System.getLogger(VerbsEndpoint.class.getName());
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int COMPLETION_BUDGET = 256;
    /**
     * The same-host peer's pid is looked at every 100 ms, the clock read for that every 1024 passes: a busy-polling
     * requester makes ~80 passes per 2-byte RDMA READ in the TCG guest (one pass ~1 µs), where a clock read costs
     * 1.5–10 µs; every 64 passes that was 2 µs per read. 1024 passes of a fast host take well under the 100 ms.
     */
    private static final int LIVENESS_POLL_MASK = 1023;
    /**
     * Local ACK timeout exponent: 4.096 µs × 2^17 ≈ 0.54 s, × 7 tries ≈ 4 s before a silent peer is declared gone
     * (IBA Vol. 1, 9.7.6.1.3 and 11.2.4.2). Long enough for a peer on an emulated CPU, short enough for a dead one.
     */
    static final int ACK_TIMEOUT = 17;
    /** 6, not the IBA's maximum 7: Soft-RoCE (rxe_comp.c) treats a retry count of 7 as "retry forever", as for RNR,
     * and a request to a vanished peer would then never complete (seen in the guest). */
    static final int RETRY_CNT = 6;

    final VerbsTransport vt;
    final int index;
    private final int cap;
    private final int maxSge;
    /**
     * GC-managed, not shared: the memory is freed once this endpoint is unreachable, after {@link #release()} has
     * deregistered what the device may write. Closing a shared arena makes the JVM handshake every thread and
     * deoptimize frames. Twice in the Soft-RoCE guest at full speed, the verbs conformance suite's JVM died with
     * SIGSEGV in compiled code on the test thread just after test tear-downs that closed such arenas; the cause is not
     * proven (a JVM fault is suspected). The engine thread is this memory's only user, so nothing needs a shared one.
     */
    private final Arena arena = Arena.ofAuto();
    private final SendWr[] wrSlot;
    private final QpAttr attr = new QpAttr();
    /**
     * One registered 8-byte cell per slot: atomics and sync-event get/add land here and are appended to the task's
     * buffer when it completes, in submission order, so tasks sharing one result buffer append in order (as DOCA).
     */
    private final MemorySegment scratch;
    private final MemoryRegion scratchMr;
    private final int scratchLkey;
    /**
     * The control word: [0] is set to 1 by the peer (an RDMA WRITE) when it closes the connection, so a stop is seen
     * at once and not only at the next unacknowledged request; [8] holds the 1 this end writes into the peer's.
     */
    private final MemorySegment ctrl;
    private final MemoryRegion ctrlMr;
    private long peerCtrlAddr;
    private int peerCtrlRkey;
    /** The peer's process when it runs on this host (its death is then seen within 100 ms), else null. */
    private ProcessHandle peerProc;
    private long lastLivenessNanos;
    private int livenessPolls;
    private boolean goodbyePending;
    private boolean peerGone;
    private long goodbyeDeadline;
    private final QueuePair qp;
    final int qpn;
    final int psn;
    private final RdmaTask[] ring;
    private long head;
    private long tail;
    /** Work requests posted and not yet completed by the device. */
    private int posted;
    private boolean connected;
    private boolean closed;
    private DocaError closeReason;
    private boolean released;
    private String brokenWhy;

    /**
     * Creates the QP and moves it to INIT. Throws {@link DocaException} (NO_MEMORY for too many connections, DRIVER).
     */
    VerbsEndpoint(Rdma rdma, RdmaConnection conn, VerbsTransport vt) {
        super(rdma, conn);
        this.vt = vt;
        this.cap = vt.sendQueueSize;
        this.maxSge = vt.maxSendSge;
        this.index = vt.register(this);
        if (index < 0) {
            throw new DocaException(DocaError.NO_MEMORY, "a verbs RDMA context has at most "
                    + VerbsTransport.MAX_CONNECTIONS + " connections");
        }
        wrSlot = SendWr.array(cap + 1, maxSge); // slot cap: the goodbye write
        ring = new RdmaTask[cap];
        VerbsDeviceContext dev = vt.dev;
        scratch = arena.allocate(8L * cap, 8);
        try {
            scratchMr = dev.protectionDomain().register(scratch, VerbsConstants.IBV_ACCESS_LOCAL_WRITE);
        } catch (VerbsException e) {
            vt.unregister(index, this);
            throw new DocaException(DocaError.DRIVER, "ibv_reg_mr of the atomic result cells: " + e.getMessage());
        }
        scratchLkey = scratchMr.lkey();
        ctrl = arena.allocate(16, 8);
        ctrl.set(JAVA_LONG, 8, 1L);
        try {
            ctrlMr = dev.protectionDomain().register(ctrl, VerbsConstants.IBV_ACCESS_LOCAL_WRITE
                    | VerbsConstants.IBV_ACCESS_REMOTE_WRITE);
        } catch (VerbsException e) {
            scratchMr.close();
            vt.unregister(index, this);
            throw new DocaException(DocaError.DRIVER, "ibv_reg_mr of the control word: " + e.getMessage());
        }
        QueuePair q;
        try {
            // + 1 send: the goodbye write; receives come from the context's SRQ
            q = dev.protectionDomain().createQp(QueuePair.Init.rc(vt.cq, cap + 1, 1).withSge(maxSge, 1)
                    .withSrq(vt.srq));
        } catch (VerbsException e) {
            scratchMr.close();
            ctrlMr.close();
            vt.unregister(index, this);
            throw new DocaException(DocaError.DRIVER, "ibv_create_qp on " + dev.name() + ": " + e.getMessage());
        }
        qp = q;
        qpn = q.qpNum();
        psn = RANDOM.nextInt() & 0xFFFFFF;
        try {
            attr.clear().state(VerbsConstants.IBV_QPS_INIT).pkeyIndex(0).port(dev.port())
                    .accessFlags(qpAccess(rdma.permissions()));
            qp.modify(attr, VerbsConstants.IBV_QP_STATE | VerbsConstants.IBV_QP_PKEY_INDEX
                    | VerbsConstants.IBV_QP_PORT | VerbsConstants.IBV_QP_ACCESS_FLAGS);
        } catch (VerbsException e) {
            release();
            throw new DocaException(DocaError.DRIVER, "QP RESET → INIT on " + dev.name() + ": " + e.getMessage());
        }
    }

    /**
     * The QP's remote access: what this context lets peers do (DOCA's context permissions), enforced by the
     * device on top of each memory region's own access flags.
     */
    static int qpAccess(int docaPermissions) {
        int a = VerbsConstants.IBV_ACCESS_LOCAL_WRITE;
        if ((docaPermissions & AccessFlags.RDMA_READ) != 0) {
            a |= VerbsConstants.IBV_ACCESS_REMOTE_READ;
        }
        if ((docaPermissions & AccessFlags.RDMA_WRITE) != 0) {
            a |= VerbsConstants.IBV_ACCESS_REMOTE_WRITE;
        }
        if ((docaPermissions & AccessFlags.RDMA_ATOMIC) != 0) {
            a |= VerbsConstants.IBV_ACCESS_REMOTE_ATOMIC;
        }
        return a;
    }

    /** This end's descriptor for the connection blob. */
    VerbsQpInfo info() {
        VerbsDeviceContext d = vt.dev;
        return new VerbsQpInfo(qpn, psn, vt.gid, d.lid(), d.port(), d.activeMtu(), d.linkLayer(), ctrl.address(),
                ctrlMr.rkey());
    }

    /**
     * INIT → RTR → RTS towards {@code peer}; {@code samehostPid} is the peer's process id when it runs on this host
     * (0 otherwise). Control path; throws {@link VerbsException}.
     */
    void connect(VerbsQpInfo peer, long samehostPid) {
        peerCtrlAddr = peer.ctrlAddr();
        peerCtrlRkey = peer.ctrlRkey();
        peerProc = samehostPid == 0 ? null : ProcessHandle.of(samehostPid).orElse(null);
        lastLivenessNanos = System.nanoTime();
        VerbsDeviceContext d = vt.dev;
        attr.clear().state(VerbsConstants.IBV_QPS_RTR).pathMtu(Math.min(d.activeMtu(), peer.mtu()))
                .destQpNum(peer.qpn()).rqPsn(peer.psn()).maxDestRdAtomic(Math.max(1, Math.min(16, d.maxQpRdAtom())))
                .minRnrTimer(VerbsErrors.rnrTimerCode(rdma.rnrTimeoutNanos()));
        if (peer.linkLayer() == VerbsConstants.IBV_LINK_LAYER_INFINIBAND && peer.lid() != 0) {
            attr.ahLid(peer.lid(), d.port());
        } else {
            // RoCE: the peer is addressed by its GID (GRH), the source GID by this context's index.
            attr.ahGlobal(peer.gid(), vt.gidIndex, 64, d.port());
        }
        qp.modify(attr, VerbsConstants.IBV_QP_STATE | VerbsConstants.IBV_QP_AV | VerbsConstants.IBV_QP_PATH_MTU
                | VerbsConstants.IBV_QP_DEST_QPN | VerbsConstants.IBV_QP_RQ_PSN
                | VerbsConstants.IBV_QP_MAX_DEST_RD_ATOMIC | VerbsConstants.IBV_QP_MIN_RNR_TIMER);
        // 6 RNR retries (7 = forever): a send the peer has no receive for fails after ~the RNR retry time.
        attr.clear().state(VerbsConstants.IBV_QPS_RTS).timeout(ACK_TIMEOUT).retryCnt(RETRY_CNT).rnrRetry(6).sqPsn(psn)
                .maxRdAtomic(Math.max(1, Math.min(16, d.maxQpInitRdAtom())));
        qp.modify(attr, VerbsConstants.IBV_QP_STATE | VerbsConstants.IBV_QP_TIMEOUT | VerbsConstants.IBV_QP_RETRY_CNT
                | VerbsConstants.IBV_QP_RNR_RETRY | VerbsConstants.IBV_QP_SQ_PSN
                | VerbsConstants.IBV_QP_MAX_QP_RD_ATOMIC);
        connected = true;
    }

    /**
     * CM mode: INIT → RTR → RTS with the attributes rdma_cm computed for {@code cmId} ({@code rdma_init_qp_attr}:
     * the route's address vector, the peer's QP number, the CM's PSNs), the peer's control word from its private
     * data. The ACK timeout, retry counts and RNR timer are this transport's (the CM's defaults would retry a
     * vanished peer for much longer). Control path; throws {@link VerbsException}.
     */
    void connectCm(CmId cmId, long peerCtrl, int peerRkey, long samehostPid) {
        peerCtrlAddr = peerCtrl;
        peerCtrlRkey = peerRkey;
        peerProc = samehostPid == 0 ? null : ProcessHandle.of(samehostPid).orElse(null);
        lastLivenessNanos = System.nanoTime();
        VerbsDeviceContext d = vt.dev;
        int m = attr.fromCm(cmId, VerbsConstants.IBV_QPS_RTR);
        attr.maxDestRdAtomic(Math.max(1, Math.min(16, d.maxQpRdAtom())))
                .minRnrTimer(VerbsErrors.rnrTimerCode(rdma.rnrTimeoutNanos()));
        qp.modify(attr, m | VerbsConstants.IBV_QP_MAX_DEST_RD_ATOMIC | VerbsConstants.IBV_QP_MIN_RNR_TIMER);
        m = attr.fromCm(cmId, VerbsConstants.IBV_QPS_RTS);
        attr.timeout(ACK_TIMEOUT).retryCnt(RETRY_CNT).rnrRetry(6)
                .maxRdAtomic(Math.max(1, Math.min(16, d.maxQpInitRdAtom())));
        qp.modify(attr, m | VerbsConstants.IBV_QP_TIMEOUT | VerbsConstants.IBV_QP_RETRY_CNT
                | VerbsConstants.IBV_QP_RNR_RETRY | VerbsConstants.IBV_QP_MAX_QP_RD_ATOMIC);
        connected = true;
    }

    /** The control word's address and rkey (CM mode: they go into the private data). */
    long ctrlAddr() {
        return ctrl.address();
    }

    int ctrlRkey() {
        return ctrlMr.rkey();
    }

    /**
     * CM mode: rdma_cm reported the connection gone (DISCONNECTED: the peer disconnected, stopped or its process
     * died and the kernel tore its ids down). The peer's QP is gone or in error, so no goodbye is written.
     */
    void peerLeft(String why) {
        peerGone = true;
        broken(DocaError.CONNECTION_RESET, why);
    }

    /** Closed and the goodbye write (if any) finished: the CM may now tell the peer ({@code rdma_disconnect}). */
    boolean closedAndQuiet() {
        return closed && !goodbyePending;
    }

    // ------------------------------------------------------------------ data path

    @Override
    DocaError submit(RdmaTask t) {
        if (tail - head >= cap) {
            return DocaError.AGAIN;
        }
        int slot = (int) (tail % cap);
        if (closed) {
            t.result = closeReason;
            t.done = true;
        } else if (t.result != DocaError.SUCCESS) {
            t.done = true; // refused by the checks of both sides: completes in order, nothing posted
        } else {
            DocaError e = post(t, slot);
            if (e == DocaError.AGAIN) {
                return DocaError.AGAIN;
            }
            if (e != DocaError.SUCCESS) {
                t.result = e;
                t.done = true;
            } else {
                t.done = false;
                posted++;
            }
        }
        ring[slot] = t;
        tail++;
        return DocaError.SUCCESS;
    }

    /** Fills slot {@code slot}'s WR for {@code t} and posts it. Allocation-free. */
    private DocaError post(RdmaTask t, int slot) {
        SendWr wr = wrSlot[slot];
        int opcode;
        int k;
        int rkey = 0;
        switch (t.kind) {
            case RdmaTask.K_SEND, RdmaTask.K_SEND_IMM -> {
                opcode = t.kind == RdmaTask.K_SEND ? VerbsConstants.IBV_WR_SEND : VerbsConstants.IBV_WR_SEND_WITH_IMM;
                k = VerbsSges.gather(t.local, wr, vt.devInfo, maxSge);
            }
            case RdmaTask.K_WRITE, RdmaTask.K_WRITE_IMM -> {
                opcode = t.kind == RdmaTask.K_WRITE ? VerbsConstants.IBV_WR_RDMA_WRITE
                        : VerbsConstants.IBV_WR_RDMA_WRITE_WITH_IMM;
                k = VerbsSges.gather(t.local, wr, vt.devInfo, maxSge);
            }
            case RdmaTask.K_SE_SET -> {
                opcode = VerbsConstants.IBV_WR_RDMA_WRITE;
                k = VerbsSges.one(t.local, t.local.data(), wr, vt.devInfo);
            }
            case RdmaTask.K_READ -> {
                opcode = VerbsConstants.IBV_WR_RDMA_READ;
                k = VerbsSges.scatter(t.local, t.len, wr, vt.devInfo, maxSge);
            }
            case RdmaTask.K_SE_GET -> {
                opcode = VerbsConstants.IBV_WR_RDMA_READ;
                k = cell(slot, wr);
            }
            case RdmaTask.K_CAS -> {
                opcode = VerbsConstants.IBV_WR_ATOMIC_CMP_AND_SWP;
                k = cell(slot, wr);
            }
            case RdmaTask.K_FADD, RdmaTask.K_SE_ADD -> {
                opcode = VerbsConstants.IBV_WR_ATOMIC_FETCH_AND_ADD;
                k = cell(slot, wr);
            }
            default -> {
                return DocaError.UNEXPECTED;
            }
        }
        if (k == -1) {
            return DocaError.NOT_SUPPORTED; // local memory not registered on this RDMA device
        }
        if (k == -2) {
            return DocaError.INVALID_VALUE; // more buffers than the QP's SGEs
        }
        if (t.kind != RdmaTask.K_SEND && t.kind != RdmaTask.K_SEND_IMM) {
            rkey = t.rMap.verbsRemoteKey();
            if (rkey == -1) {
                return DocaError.NOT_SUPPORTED; // the peer's map was not registered on an RDMA device
            }
        }
        // the immediate is stored big-endian (network order) by SendWr; the receiver's WC has it the same way
        wr.wrId(((long) index << 32) | slot).numSge(k).opcode(opcode).flags(VerbsConstants.IBV_SEND_SIGNALED)
                .immData(t.immediate);
        if (opcode == VerbsConstants.IBV_WR_ATOMIC_CMP_AND_SWP
                || opcode == VerbsConstants.IBV_WR_ATOMIC_FETCH_AND_ADD) {
            wr.atomic(t.rAddr, rkey, t.operand, t.swap);
        } else if (opcode != VerbsConstants.IBV_WR_SEND && opcode != VerbsConstants.IBV_WR_SEND_WITH_IMM) {
            wr.rdma(t.rAddr, rkey);
        }
        int rc = qp.post(wr);
        if (rc == 0) {
            return DocaError.SUCCESS;
        }
        return rc == VerbsConstants.ENOMEM ? DocaError.AGAIN : DocaError.DRIVER; // ENOMEM: send queue full
    }

    /** The slot's registered result cell as the only SGE. */
    private int cell(int slot, SendWr wr) {
        wr.sge(0, scratch.address() + slot * 8L, 8, scratchLkey);
        return 1;
    }

    /** A send-queue completion for slot {@code slot} (from {@link VerbsTransport#poll()}). */
    void onCompletion(int slot, int status, int vendorErr) {
        if (slot == cap) {
            // The goodbye write is done (or failed: the peer is gone anyway): now flush what is left.
            if (goodbyePending) {
                goodbyePending = false;
                moveToErr();
            }
            return;
        }
        if (slot < 0 || slot >= cap) {
            return;
        }
        RdmaTask t = ring[slot];
        if (t == null || t.done) {
            return;
        }
        posted--;
        if (status == VerbsConstants.IBV_WC_SUCCESS) {
            switch (t.kind) {
                case RdmaTask.K_READ -> {
                    VerbsTransport.appendList(t.local, t.len);
                    t.resultLen = t.len;
                }
                case RdmaTask.K_SE_GET -> t.resultLen = 8;
                default -> {
                }
            }
        } else {
            t.result = VerbsErrors.map(status, closeReason);
            if (VerbsErrors.fatal(status)) {
                broken(VerbsErrors.connectionReason(status), "work completion " + Verbs.wcStatusString(status)
                        + " (vendor_err 0x" + Integer.toHexString(vendorErr) + ")");
            }
        }
        t.done = true;
    }

    @Override
    int work() {
        int n = 0;
        if (connected && !closed) {
            if (ctrl.get(JAVA_LONG, 0) != 0) {
                broken(DocaError.CONNECTION_RESET, "closed by peer (its control word was written)");
            } else if (peerProc != null && (++livenessPolls & LIVENESS_POLL_MASK) == 0) {
                // The clock is read every 64th pass, not every pass: where the clocksource has no vDSO path (hpet in
                // an emulated guest) one read costs ~10 µs, more than the rest of an idle pass.
                long now = System.nanoTime();
                if (now - lastLivenessNanos > 100_000_000L) {
                    lastLivenessNanos = now;
                    if (!peerProc.isAlive()) {
                        peerGone = true; // nobody to say goodbye to
                        broken(DocaError.CONNECTION_RESET, "pid gone: peer process " + peerProc.pid() + " is gone");
                    }
                }
            }
        }
        if (goodbyePending && System.nanoTime() - goodbyeDeadline > 0) {
            goodbyePending = false; // unacknowledged: the peer is gone or stalled; do not hold the stop longer
            moveToErr();
        }
        while (head < tail && n < COMPLETION_BUDGET) {
            int slot = (int) (head % cap);
            RdmaTask t = ring[slot];
            if (!t.done) {
                if (!closed || posted > 0) {
                    break;
                }
                // Closed and nothing left in the device: whatever is still here completes with the reason.
                t.result = closeReason;
                t.done = true;
            }
            ring[slot] = null;
            head++;
            finish(t, slot);
            n++;
            if (released || vt.released) {
                return n;
            }
        }
        return n;
    }

    private void finish(RdmaTask t, int slot) {
        DocaError r = t.result;
        if (r == DocaError.SUCCESS) {
            switch (t.kind) {
                case RdmaTask.K_WRITE, RdmaTask.K_WRITE_IMM -> t.remote.appendData(t.len);
                case RdmaTask.K_CAS, RdmaTask.K_FADD, RdmaTask.K_SE_ADD, RdmaTask.K_SE_GET ->
                        ShmEndpoint.putResult(t.local, scratch.get(JAVA_LONG, slot * 8L));
                default -> {
                }
            }
        }
        rdma.done(t, r);
    }

    @Override
    boolean hasPendingWork() {
        if (head == tail) {
            return false;
        }
        RdmaTask t = ring[(int) (head % cap)];
        return t != null && (t.done || closed && posted == 0 && !goodbyePending);
    }

    /** The connection failed (a completion error): the QP is in error; the context learns of it. */
    void broken(DocaError reason, String why) {
        if (!closed) {
            brokenWhy = why;
            close(reason);
            rdma.connectionBroken(conn, reason, why);
        }
    }

    String brokenWhy() {
        return brokenWhy;
    }

    @Override
    void close(DocaError reason) {
        if (closed) {
            return;
        }
        closed = true;
        closeReason = reason;
        if (released) {
            return;
        }
        if (connected && !peerGone && ctrl.get(JAVA_LONG, 0) == 0 && postGoodbye()) {
            // ERR once the peer has it (or after 1 s): it then sees the stop at once, not at its next request.
            goodbyePending = true;
            goodbyeDeadline = System.nanoTime() + 1_000_000_000L;
            return;
        }
        moveToErr();
    }

    /** RDMA WRITE of 1 into the peer's control word; false if it cannot be posted (QP already in error). */
    private boolean postGoodbye() {
        SendWr wr = wrSlot[cap];
        wr.wrId(((long) index << 32) | cap).sge(0, ctrl.address() + 8, 8, ctrlMr.lkey()).numSge(1)
                .opcode(VerbsConstants.IBV_WR_RDMA_WRITE).flags(VerbsConstants.IBV_SEND_SIGNALED)
                .rdma(peerCtrlAddr, peerCtrlRkey);
        return qp.post(wr) == 0;
    }

    /** QP → ERR: every posted request comes back through the CQ flushed ({@code IBV_WC_WR_FLUSH_ERR}), in order. */
    private void moveToErr() {
        if (released) {
            return;
        }
        int rc = qp.toError();
        if (rc != 0) {
            LOG.log(System.Logger.Level.WARNING, "QP 0x" + Integer.toHexString(qpn) + " → ERR: errno " + rc);
            posted = 0; // nothing will come back: complete what is held with the reason
        }
    }

    boolean isConnected() {
        return connected;
    }

    @Override
    boolean isDrained() {
        return closed && head == tail && !goodbyePending;
    }

    @Override
    void release() {
        if (released) {
            return;
        }
        released = true;
        // Each step on its own: a failed ibv_destroy_qp must not leave the result cells and the control word
        // registered while their memory is freed (the device, or a peer's write, would then land in whatever
        // the allocator hands out next). Memory still registered after a failure is leaked, not freed.
        boolean freeable = quietly("ibv_destroy_qp", qp::close);
        freeable &= quietly("ibv_dereg_mr of the atomic result cells", scratchMr::close);
        freeable &= quietly("ibv_dereg_mr of the control word", ctrlMr::close);
        vt.unregister(index, this);
        if (!freeable) {
            KEPT.add(arena); // still registered: never let the collector free it
        }
    }

    /**
     * Arenas of endpoints whose result cells or control word could not be deregistered: kept for the process's life.
     */
    private static final java.util.Queue<Arena> KEPT = new java.util.concurrent.ConcurrentLinkedQueue<>();

    private static boolean quietly(String what, Runnable step) {
        try {
            step.run();
            return true;
        } catch (VerbsException e) {
            LOG.log(System.Logger.Level.WARNING, what + ": " + e.getMessage() + " (its memory is kept, not freed)");
            return false;
        }
    }

    @Override
    long maxSleepNanos() {
        return vt.maxSleepNanos(); // the engine sleeps on the completion channel (its handle watches the fd)
    }
}
