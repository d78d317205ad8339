package io.jdoca.rdma;

import io.jdoca.core.DocaError;
import io.jdoca.core.dev.DevInfo;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.verbs.CompletionChannel;
import io.jdoca.verbs.CompletionQueue;
import io.jdoca.verbs.RecvWr;
import io.jdoca.verbs.SharedReceiveQueue;
import io.jdoca.verbs.Verbs;
import io.jdoca.verbs.VerbsConstants;
import io.jdoca.verbs.VerbsDeviceContext;
import io.jdoca.verbs.VerbsException;
import io.jdoca.verbs.WorkCompletions;

/**
 * The context-wide half of the verbs transport ({@link RdmaTransportType#VERBS}) of one started {@link Rdma}:
 * one completion queue (send and receive completions of every connection) on a completion channel, one shared
 * receive queue (DOCA's receive tasks belong to the context, not to a connection: whichever connection a message
 * arrives on consumes the next posted receive, and the completion names the connection by its QP number), and the
 * per-connection {@link VerbsEndpoint}s, all objects of the {@code verbs} layer. Everything native is allocated at
 * start: the completion flyweight, one receive request per slot; {@link #poll()} and {@link #postRecv} allocate
 * nothing.
 *
 * <p><b>Notification mode</b>: no thread of its own. The completion channel's fd is an event source of the
 * context's progress engine ({@link ProgressEngine#addEventSource}): the CQ is armed in {@link #beforeWait()},
 * which then polls once more so a completion that raced the arm is kept, not lost; an idle engine sleeps on its
 * notification handle (an {@code epoll} set holding the channel's fd) until the device completes something, and
 * {@link #onReady()} takes and acknowledges the channel's events on the engine thread. Where the engine has no
 * handle (no epoll) the sleep is bounded instead ({@link #maxSleepNanos()}).
 *
 * <p>Threads: engine thread only.
 */
final class VerbsTransport implements ProgressEngine.EventSource {
    private static final System.Logger LOG = System.getLogger(VerbsTransport.class.getName());
    /** Connections per context: the one CQ is sized for this many full send queues. */
    static final int MAX_CONNECTIONS = 16;
    static final int WC_BATCH = 32;
    static final long RECV_BIT = 1L << 63;
    /** The engine's sleep bound when the channel cannot be watched (no notification handle). */
    private static final long UNWATCHED_SLEEP_NANOS = 1_000_000L;

    final Rdma rdma;
    final DevInfo devInfo;
    final VerbsDeviceContext dev;
    final int sendQueueSize;
    final int maxSendSge;
    private final int maxRecvSge;
    /** The context's GID index ({@link Rdma#setGidIndex}, else the device's) and that GID. */
    final int gidIndex;
    final byte[] gid;
    final CompletionChannel channel;
    final CompletionQueue cq;
    final SharedReceiveQueue srq;
    private final WorkCompletions wc = new WorkCompletions(WC_BATCH);
    /** Completions {@link #beforeWait()} polled after arming; {@link #poll()} handles them first. */
    private int stashed;
    private final ProgressEngine pe;
    private final boolean watched;

    private final RdmaTaskReceive[] recvSlots;
    private final RecvWr[] recvWr;
    private final int[] freeRecv;
    private int freeTop;
    /**
     * Receives refused before posting (memory not registered on this device), completed in order by {@link #poll()}.
     */
    private final RdmaTask[] refused;
    private int refusedHead;
    private int refusedTail;

    final VerbsEndpoint[] eps = new VerbsEndpoint[MAX_CONNECTIONS];
    boolean released;

    VerbsTransport(Rdma rdma, DevInfo devInfo, int sendQueueSize, int recvQueueSize, int maxSendSge, int maxRecvSge) {
        this.rdma = rdma;
        this.devInfo = devInfo;
        this.dev = devInfo.verbsContext();
        if (!dev.ops().hasSrq()) {
            throw new VerbsException("ibv_post_srq_recv", dev.name() + " has no shared receive queues");
        }
        this.gidIndex = rdma.gidIndex < 0 ? dev.gidIndex() : rdma.gidIndex;
        this.gid = dev.gid(gidIndex);
        this.sendQueueSize = Math.min(sendQueueSize, dev.maxQpWr());
        this.maxSendSge = Math.min(Math.max(1, maxSendSge), dev.maxSge());
        this.maxRecvSge = Math.min(Math.max(1, maxRecvSge), dev.maxSge());
        int cqe = Math.min(dev.maxCqe(), this.sendQueueSize * MAX_CONNECTIONS + recvQueueSize + WC_BATCH);
        CompletionChannel ch = null;
        CompletionQueue q = null;
        SharedReceiveQueue s = null;
        try {
            ch = dev.verbs().createCompletionChannel();
            q = dev.verbs().createCq(cqe, ch, 0);
            s = dev.protectionDomain().createSrq(recvQueueSize, this.maxRecvSge);
        } catch (RuntimeException e) {
            destroy(s, q, ch);
            throw e;
        }
        channel = ch;
        cq = q;
        srq = s;
        recvSlots = new RdmaTaskReceive[recvQueueSize];
        recvWr = RecvWr.array(recvQueueSize, this.maxRecvSge);
        freeRecv = new int[recvQueueSize];
        for (int i = 0; i < recvQueueSize; i++) {
            freeRecv[i] = recvQueueSize - 1 - i;
        }
        freeTop = recvQueueSize;
        refused = new RdmaTask[recvQueueSize + 1];
        pe = rdma.pe();
        watched = pe != null && pe.addEventSource(this) == DocaError.SUCCESS;
        cq.arm();
    }

    @Override
    public int fd() {
        return channel.fd();
    }

    /** The channel fired (engine thread, from the handle): take and acknowledge its events; the poll follows. */
    @Override
    public void onReady() {
        if (!released) {
            channel.drain();
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
        RecvWr wr = recvWr[slot];
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
                wr.sge(k++, b.data() + b.dataLen(), (int) Math.min(room, Integer.MAX_VALUE), lkey);
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
        wr.wrId(RECV_BIT | slot).numSge(k);
        int rc = srq.post(wr);
        if (rc != 0) {
            return rc == VerbsConstants.ENOMEM ? DocaError.AGAIN : DocaError.DRIVER;
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
            n = cq.poll(wc);
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
            long wrId = wc.wrId(i);
            int status = wc.status(i);
            if ((wrId & RECV_BIT) != 0) {
                delivered += onRecv((int) wrId, status, i);
            } else {
                VerbsEndpoint e = eps[(int) (wrId >>> 32) & (MAX_CONNECTIONS - 1)];
                if (e != null) {
                    e.onCompletion((int) wrId, status, wc.vendorErr(i));
                }
            }
        }
        return delivered;
    }

    private int onRecv(int slot, int status, int i) {
        if (slot < 0 || slot >= recvSlots.length) {
            return 0;
        }
        RdmaTaskReceive r = recvSlots[slot];
        if (r == null) {
            return 0; // flushed at stop already
        }
        recvSlots[slot] = null;
        freeRecv[freeTop++] = slot;
        VerbsEndpoint ep = byQpn(wc.qpNum(i));
        r.conn = ep == null ? null : ep.conn;
        if (status == VerbsConstants.IBV_WC_SUCCESS) {
            long len = Integer.toUnsignedLong(wc.byteLen(i));
            boolean imm = wc.withImm(i);
            r.resultLen = len;
            if (wc.opcode(i) == VerbsConstants.IBV_WC_RECV_RDMA_WITH_IMM) {
                r.opcode = RdmaOpcode.WRITE_WITH_IMM; // the data went to the written buffer, not the receive's
            } else {
                r.opcode = imm ? RdmaOpcode.SEND_WITH_IMM : RdmaOpcode.SEND;
                appendList(r.local, len);
            }
            r.immediate = imm ? wc.immData(i) : 0;
            rdma.done(r, DocaError.SUCCESS);
        } else {
            LOG.log(System.Logger.Level.WARNING, "receive completed with " + Verbs.wcStatusString(status)
                    + " (" + status + ")");
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

    /** How long the engine may sleep: unbounded when the channel is watched by its handle. */
    long maxSleepNanos() {
        return watched ? Long.MAX_VALUE : UNWATCHED_SLEEP_NANOS;
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
        cq.arm();
        int n = cq.poll(wc);
        if (n > 0) {
            stashed = n;
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
        if (watched) {
            pe.removeEventSource(this);
        }
        for (VerbsEndpoint e : eps) {
            if (e != null) {
                e.release();
            }
        }
        channel.drain(); // every event acknowledged: the CQ can be destroyed
        destroy(srq, cq, channel);
    }

    private static void destroy(SharedReceiveQueue srq, CompletionQueue cq, CompletionChannel channel) {
        try {
            if (srq != null) {
                srq.close();
            }
            if (cq != null) {
                cq.close();
            }
            if (channel != null) {
                channel.close();
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "verbs transport release: " + e.getMessage());
        }
    }
}
