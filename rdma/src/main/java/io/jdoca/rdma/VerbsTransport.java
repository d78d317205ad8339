package io.jdoca.rdma;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jdoca.core.DocaError;
import io.jdoca.core.dev.DevInfo;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.verbs.ContextOps;
import io.jdoca.verbs.Libc;
import io.jdoca.verbs.Verbs;
import io.jdoca.verbs.VerbsConstants;
import io.jdoca.verbs.VerbsDeviceContext;
import io.jdoca.verbs.VerbsLayouts;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The context-wide half of the verbs transport ({@link RdmaTransportType#VERBS}) of one started {@link Rdma}:
 * one completion queue (send and receive completions of every connection) with its completion channel, one
 * shared receive queue (DOCA's receive tasks belong to the context, not to a connection: whichever connection
 * a message arrives on consumes the next posted receive, and the completion names the connection by its QP
 * number), and the per-connection {@link VerbsEndpoint}s. Everything native is allocated at start: the
 * {@code ibv_wc} batch, one {@code ibv_recv_wr} + SGE array per receive slot; {@link #poll()} and
 * {@link #postRecv} allocate nothing.
 *
 * <p><b>Notification mode</b>: the CQ is armed ({@code ibv_req_notify_cq}) in {@link #beforeWait()}, which then
 * polls once more so a completion that raced the arm is kept, not lost; a daemon thread sleeps in
 * {@code poll(2)} on the completion channel's fd, takes and acknowledges the event and wakes the progress
 * engine. An idle engine therefore sleeps until the device completes something (design option 1 of
 * docs/RDMA-VERBS.md).
 *
 * <p>Threads: engine thread only, except the waker thread, which touches only the channel, the CQ's event
 * acknowledgement and {@link ProgressEngine#notifyWork()}.
 */
final class VerbsTransport {
    private static final System.Logger LOG = System.getLogger(VerbsTransport.class.getName());
    /** Connections per context: the one CQ is sized for this many full send queues. */
    static final int MAX_CONNECTIONS = 16;
    static final int WC_BATCH = 32;
    static final long RECV_BIT = 1L << 63;
    private static final long WC_SIZE = VerbsLayouts.IBV_WC.byteSize();
    private static final long RWR_SIZE = VerbsLayouts.IBV_RECV_WR.byteSize();
    static final long SGE_SIZE = VerbsLayouts.IBV_SGE.byteSize();
    private static final long PFD_FD = VerbsLayouts.offset(VerbsLayouts.POLLFD, "fd");
    private static final long PFD_EVENTS = VerbsLayouts.offset(VerbsLayouts.POLLFD, "events");
    private static final long PFD_REVENTS = VerbsLayouts.offset(VerbsLayouts.POLLFD, "revents");

    final Rdma rdma;
    final DevInfo devInfo;
    final VerbsDeviceContext dev;
    final ContextOps ops;
    final int sendQueueSize;
    final int maxSendSge;
    private final int maxRecvSge;
    /** GC-managed (freed once the transport is unreachable), for the reason given at {@code VerbsEndpoint.arena}. */
    private final Arena arena = Arena.ofAuto();
    final MemorySegment channel;
    final MemorySegment cq;
    final MemorySegment srq;
    private final MemorySegment wcs;
    /** Completions {@link #beforeWait()} polled after arming; {@link #poll()} handles them first. */
    private int stashed;
    /** The bad-WR out cell of every post (engine thread only). */
    final MemorySegment badWr;

    private final RdmaTaskReceive[] recvSlots;
    private final MemorySegment[] recvWr;
    private final MemorySegment recvSges;
    private final int[] freeRecv;
    private int freeTop;
    /** Receives refused before posting (memory not registered on this device), completed in order by {@link #poll()}. */
    private final RdmaTask[] refused;
    private int refusedHead;
    private int refusedTail;

    final VerbsEndpoint[] eps = new VerbsEndpoint[MAX_CONNECTIONS];
    private volatile boolean stopWaker;
    private final Thread waker;
    boolean released;

    VerbsTransport(Rdma rdma, DevInfo devInfo, int sendQueueSize, int recvQueueSize, int maxSendSge, int maxRecvSge) {
        this.rdma = rdma;
        this.devInfo = devInfo;
        this.dev = devInfo.verbsContext();
        this.ops = dev.ops();
        if (!ops.hasSrq()) {
            throw new io.jdoca.verbs.VerbsException("ibv_post_srq_recv", dev.name() + " has no shared receive queues");
        }
        this.sendQueueSize = Math.min(sendQueueSize, dev.maxQpWr());
        this.maxSendSge = Math.min(Math.max(1, maxSendSge), dev.maxSge());
        this.maxRecvSge = Math.min(Math.max(1, maxRecvSge), dev.maxSge());
        int cqe = Math.min(dev.maxCqe(), this.sendQueueSize * MAX_CONNECTIONS + recvQueueSize + WC_BATCH);
        MemorySegment ch = null;
        MemorySegment q = null;
        MemorySegment s = null;
        try {
            ch = Verbs.createCompChannel(dev.context());
            q = Verbs.createCq(dev.context(), cqe, ch, 0);
            s = Verbs.createSrq(dev.pd(), recvQueueSize, this.maxRecvSge);
        } catch (RuntimeException e) {
            destroy(s, q, ch);
            throw e;
        }
        channel = ch;
        cq = q;
        srq = s;
        wcs = arena.allocate(VerbsLayouts.IBV_WC, WC_BATCH);
        badWr = arena.allocate(ADDRESS);
        recvSlots = new RdmaTaskReceive[recvQueueSize];
        recvWr = new MemorySegment[recvQueueSize];
        recvSges = arena.allocate(SGE_SIZE * this.maxRecvSge * recvQueueSize, 8);
        MemorySegment wrs = arena.allocate(RWR_SIZE * recvQueueSize, 8);
        freeRecv = new int[recvQueueSize];
        for (int i = 0; i < recvQueueSize; i++) {
            recvWr[i] = wrs.asSlice(i * RWR_SIZE, RWR_SIZE);
            recvWr[i].set(ADDRESS, VerbsLayouts.RWR_SG_LIST, recvSges.asSlice(i * SGE_SIZE * this.maxRecvSge));
            recvWr[i].set(ADDRESS, VerbsLayouts.RWR_NEXT, MemorySegment.NULL);
            freeRecv[i] = recvQueueSize - 1 - i;
        }
        freeTop = recvQueueSize;
        refused = new RdmaTask[recvQueueSize + 1];
        ops.reqNotifyCq(cq, false);
        // Named jdoca-rdma-io-* so the allocation tests count what it allocates (nothing per wake-up).
        waker = Thread.ofPlatform().daemon().name("jdoca-rdma-io-verbs-cq-" + dev.name()).start(this::wakerLoop);
    }

    /** Sleeps on the completion channel; wakes the engine on each CQ event. Allocation-free per wake-up. */
    private void wakerLoop() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment pfd = a.allocate(VerbsLayouts.POLLFD);
            MemorySegment cqCell = a.allocate(ADDRESS);
            MemorySegment ctxCell = a.allocate(ADDRESS);
            pfd.set(JAVA_INT, PFD_FD, Verbs.compChannelFd(channel));
            pfd.set(JAVA_SHORT, PFD_EVENTS, (short) VerbsConstants.POLLIN);
            while (!stopWaker) {
                pfd.set(JAVA_SHORT, PFD_REVENTS, (short) 0);
                // Bounded so a stop is seen within 200 ms; an idle engine still costs nothing per completion.
                if (Libc.poll(pfd, 1, 200) > 0 && !stopWaker) {
                    if (Verbs.getCqEvent(channel, cqCell, ctxCell) == 0) {
                        Verbs.ackCqEvents(cq, 1);
                    }
                    ProgressEngine pe = rdma.pe();
                    if (pe != null) {
                        pe.notifyWork();
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "verbs completion-channel waker stopped: " + e);
        }
    }

    /** A free endpoint index, or -1 when the context has {@link #MAX_CONNECTIONS} connections. */
    int register(VerbsEndpoint ep) {
        for (int i = 0; i < eps.length; i++) {
            if (eps[i] == null) {
                eps[i] = ep;
                return i;
            }
        }
        return -1;
    }

    void unregister(int index, VerbsEndpoint ep) {
        if (index >= 0 && eps[index] == ep) {
            eps[index] = null;
        }
    }

    private VerbsEndpoint byQpn(int qpn) {
        for (int i = 0; i < eps.length; i++) {
            VerbsEndpoint e = eps[i];
            if (e != null && e.qpn == qpn) {
                return e;
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ receives (shared receive queue)

    /**
     * Posts a receive task to the SRQ: its SGEs are the list's tailrooms (the message is appended). AGAIN when
     * every receive slot is in use. Allocation-free.
     */
    DocaError postRecv(RdmaTaskReceive r) {
        if (released) {
            return DocaError.BAD_STATE;
        }
        if (freeTop == 0) {
            return DocaError.AGAIN;
        }
        int slot = freeRecv[freeTop - 1];
        long sg = (long) slot * maxRecvSge * SGE_SIZE;
        int k = 0;
        DocaError refuse = null;
        if (!BufCopy.writableList(r.local)) {
            refuse = DocaError.NOT_PERMITTED;
        } else {
            for (Buf b = r.local; b != null; b = b.next()) {
                long room = b.tailroomLen();
                if (room == 0) {
                    continue;
                }
                MemoryMap m = b.mmap();
                int lkey = m.verbsLkey(devInfo);
                if (lkey == -1) {
                    refuse = DocaError.NOT_SUPPORTED; // memory not registered on this device
                    break;
                }
                if (k == maxRecvSge) {
                    return DocaError.INVALID_VALUE;
                }
                long at = sg + k * SGE_SIZE;
                recvSges.set(JAVA_LONG, at + VerbsLayouts.SGE_ADDR, b.data() + b.dataLen());
                recvSges.set(JAVA_INT, at + VerbsLayouts.SGE_LENGTH, (int) Math.min(room, Integer.MAX_VALUE));
                recvSges.set(JAVA_INT, at + VerbsLayouts.SGE_LKEY, lkey);
                k++;
            }
        }
        if (refuse != null) {
            if (refusedTail - refusedHead >= refused.length) {
                return DocaError.AGAIN;
            }
            r.result = refuse;
            refused[refusedTail++ % refused.length] = r;
            return DocaError.SUCCESS;
        }
        MemorySegment wr = recvWr[slot];
        wr.set(JAVA_LONG, VerbsLayouts.RWR_WR_ID, RECV_BIT | slot);
        wr.set(JAVA_INT, VerbsLayouts.RWR_NUM_SGE, k);
        int rc = ops.postSrqRecv(srq, wr, badWr);
        if (rc != 0) {
            return rc == 12 /* ENOMEM */ ? DocaError.AGAIN : DocaError.DRIVER;
        }
        freeTop--;
        recvSlots[slot] = r;
        return DocaError.SUCCESS;
    }

    /** Completes every receive still posted with {@code reason} (the context stops); returns how many. */
    int flushRecvs(DocaError reason) {
        int n = 0;
        for (int i = 0; i < recvSlots.length && !released; i++) {
            RdmaTaskReceive r = recvSlots[i];
            if (r != null) {
                recvSlots[i] = null;
                freeRecv[freeTop++] = i;
                rdma.done(r, reason);
                n++;
            }
        }
        return n;
    }

    boolean hasPostedRecvs() {
        return freeTop < recvSlots.length;
    }

    // ------------------------------------------------------------------ completions

    /** Drains up to {@link #WC_BATCH} completions; returns the completions delivered here (receives, refusals). */
    int poll() {
        int delivered = 0;
        while (refusedHead != refusedTail && !released) {
            RdmaTask t = refused[refusedHead % refused.length];
            refused[refusedHead++ % refused.length] = null;
            rdma.done(t, t.result);
            delivered++;
        }
        if (released) {
            return delivered;
        }
        int n = stashed;
        stashed = 0;
        if (n == 0) {
            n = ops.pollCq(cq, WC_BATCH, wcs);
        }
        if (n < 0) {
            LOG.log(System.Logger.Level.WARNING, "ibv_poll_cq failed (" + n + "): the context's connections are lost");
            for (VerbsEndpoint e : eps) {
                if (e != null) {
                    e.broken(DocaError.DRIVER, "ibv_poll_cq failed");
                }
            }
            return delivered;
        }
        for (int i = 0; i < n && !released; i++) {
            long w = i * WC_SIZE;
            long wrId = wcs.get(JAVA_LONG, w + VerbsLayouts.WC_WR_ID);
            int status = wcs.get(JAVA_INT, w + VerbsLayouts.WC_STATUS);
            if ((wrId & RECV_BIT) != 0) {
                delivered += onRecv((int) wrId, status, w);
            } else {
                VerbsEndpoint e = eps[(int) (wrId >>> 32) & (MAX_CONNECTIONS - 1)];
                if (e != null) {
                    e.onCompletion((int) wrId, status, wcs.get(JAVA_INT, w + VerbsLayouts.WC_VENDOR_ERR));
                }
            }
        }
        return delivered;
    }

    private int onRecv(int slot, int status, long w) {
        if (slot < 0 || slot >= recvSlots.length) {
            return 0;
        }
        RdmaTaskReceive r = recvSlots[slot];
        if (r == null) {
            return 0; // flushed at stop already
        }
        recvSlots[slot] = null;
        freeRecv[freeTop++] = slot;
        VerbsEndpoint ep = byQpn(wcs.get(JAVA_INT, w + VerbsLayouts.WC_QP_NUM));
        r.conn = ep == null ? null : ep.conn;
        if (status == VerbsConstants.IBV_WC_SUCCESS) {
            int op = wcs.get(JAVA_INT, w + VerbsLayouts.WC_OPCODE);
            int flags = wcs.get(JAVA_INT, w + VerbsLayouts.WC_WC_FLAGS);
            long len = Integer.toUnsignedLong(wcs.get(JAVA_INT, w + VerbsLayouts.WC_BYTE_LEN));
            boolean imm = (flags & VerbsConstants.IBV_WC_WITH_IMM) != 0;
            r.resultLen = len;
            if (op == VerbsConstants.IBV_WC_RECV_RDMA_WITH_IMM) {
                r.opcode = RdmaOpcode.WRITE_WITH_IMM; // the data went to the written buffer, not the receive's
            } else {
                r.opcode = imm ? RdmaOpcode.SEND_WITH_IMM : RdmaOpcode.SEND;
                appendList(r.local, len);
            }
            // imm_data is big-endian on the wire and in the WC; the sender stored it the same way.
            r.immediate = imm ? Integer.reverseBytes(wcs.get(JAVA_INT, w + VerbsLayouts.WC_IMM_DATA)) : 0;
            rdma.done(r, DocaError.SUCCESS);
        } else {
            LOG.log(System.Logger.Level.WARNING, "receive completed with " + Verbs.wcStatusString(status) + " (" + status + ")");
            rdma.done(r, VerbsErrors.mapRecv(status, DocaError.CONNECTION_RESET));
            if (VerbsErrors.fatal(status) && ep != null && !released) {
                // The QP that received it is in error now (an RC responder error ends the connection).
                ep.broken(DocaError.CONNECTION_RESET, "receive completed with " + Verbs.wcStatusString(status));
            }
        }
        return 1;
    }

    /** Grows the list's data sections by {@code n} bytes, in order (what the device scattered into the tailrooms). */
    static void appendList(Buf list, long n) {
        for (Buf b = list; b != null && n > 0; b = b.next()) {
            long c = Math.min(b.tailroomLen(), n);
            if (c > 0) {
                b.appendData(c);
                n -= c;
            }
        }
    }

    boolean hasPendingWork() {
        return stashed > 0 || refusedHead != refusedTail;
    }

    /**
     * Arms the CQ before the engine sleeps, then polls once more: a completion that arrived between the last
     * poll and the arm raises no event, so it is kept for the next {@link #poll()} and the engine is told not
     * to sleep.
     */
    void beforeWait() {
        if (released || stashed > 0) {
            return;
        }
        ops.reqNotifyCq(cq, false);
        int n = ops.pollCq(cq, WC_BATCH, wcs);
        if (n > 0) {
            stashed = n;
            ProgressEngine pe = rdma.pe();
            if (pe != null) {
                pe.notifyWork();
            }
        }
    }

    /** Destroys everything once the context is idle: endpoints' QPs, then the SRQ, CQ and channel. */
    void release() {
        if (released) {
            return;
        }
        released = true;
        stopWaker = true;
        try {
            waker.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (VerbsEndpoint e : eps) {
            if (e != null) {
                e.release();
            }
        }
        if (waker.isAlive()) {
            // It may still be inside ibv_get_cq_event on this channel: destroying the CQ and the channel under it
            // would hand it freed memory. Leak them (and the arena its loop does not use) rather than crash.
            LOG.log(System.Logger.Level.WARNING, "verbs completion-channel waker did not stop within 5 s: the CQ, SRQ "
                    + "and channel of " + dev.name() + " are left allocated");
            return;
        }
        destroy(srq, cq, channel);
    }

    private static void destroy(MemorySegment srq, MemorySegment cq, MemorySegment channel) {
        try {
            if (srq != null) {
                Verbs.destroySrq(srq);
            }
            if (cq != null) {
                Verbs.destroyCq(cq);
            }
            if (channel != null) {
                Verbs.destroyCompChannel(channel);
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "verbs transport release: " + e.getMessage());
        }
    }
}
