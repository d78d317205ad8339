package io.jdoca.rdma;

import static io.jdoca.rdma.wire.ShmRingDescriptor.DEFAULT_SLOT_COUNT;
import static io.jdoca.rdma.wire.ShmRingDescriptor.DEFAULT_SLOT_SIZE;
import static io.jdoca.rdma.wire.ShmRingDescriptor.FLAG_FIRST;
import static io.jdoca.rdma.wire.ShmRingDescriptor.FLAG_LAST;
import static io.jdoca.rdma.wire.ShmRingDescriptor.MAGIC;
import static io.jdoca.rdma.wire.ShmRingDescriptor.OFF_HEAD;
import static io.jdoca.rdma.wire.ShmRingDescriptor.OFF_MAGIC;
import static io.jdoca.rdma.wire.ShmRingDescriptor.OFF_OWNER_CLOSED;
import static io.jdoca.rdma.wire.ShmRingDescriptor.OFF_OWNER_HEARTBEAT;
import static io.jdoca.rdma.wire.ShmRingDescriptor.OFF_PEER_CLOSED;
import static io.jdoca.rdma.wire.ShmRingDescriptor.OFF_PEER_PID;
import static io.jdoca.rdma.wire.ShmRingDescriptor.OFF_SLOT_COUNT;
import static io.jdoca.rdma.wire.ShmRingDescriptor.OFF_SLOT_SIZE;
import static io.jdoca.rdma.wire.ShmRingDescriptor.OFF_TAIL;
import static io.jdoca.rdma.wire.ShmRingDescriptor.OP_SEND;
import static io.jdoca.rdma.wire.ShmRingDescriptor.OP_SEND_IMM;
import static io.jdoca.rdma.wire.ShmRingDescriptor.OP_WRITE_IMM;
import static io.jdoca.rdma.wire.ShmRingDescriptor.SLOTS;
import static io.jdoca.rdma.wire.ShmRingDescriptor.SLOT_DATA;
import static io.jdoca.rdma.wire.ShmRingDescriptor.SLOT_FLAGS;
import static io.jdoca.rdma.wire.ShmRingDescriptor.SLOT_FRAG;
import static io.jdoca.rdma.wire.ShmRingDescriptor.SLOT_IMM;
import static io.jdoca.rdma.wire.ShmRingDescriptor.SLOT_OPCODE;
import static io.jdoca.rdma.wire.ShmRingDescriptor.SLOT_SEQ;
import static io.jdoca.rdma.wire.ShmRingDescriptor.SLOT_TOTAL;
import static io.jdoca.rdma.wire.ShmRingDescriptor.regionSize;

import io.jdoca.core.DocaError;
import io.jdoca.core.PeerLiveness;
import io.jdoca.core.exec.TaskQueue;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The shared-memory transport of one connection. One-sided operations are executed by this side's
 * CPU directly on the peer's shared-memory maps (the peer's CPU does nothing, as with a NIC); sends
 * go into the peer's inbound ring ({@link io.jdoca.rdma.wire.ShmRingDescriptor}) and complete once
 * the peer has consumed them into a posted receive. The engine thread polls the inbound ring, so
 * {@link #maxSleepNanos()} is bounded. Peer death is detected through the peer's pid and closed
 * flags within {@link #LIVENESS_PERIOD_NANOS}.
 *
 * <p>Engine thread only.
 */
final class ShmEndpoint extends RdmaEndpoint {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    static final long LIVENESS_PERIOD_NANOS = 100_000_000L;
    /**
     * The peer's engine counts as stalled (paused, starved: not refusing) when its poll counter
     * ({@code OFF_OWNER_HEARTBEAT} of its ring) has not moved for this long; the RNR wait does not
     * run meanwhile. A running engine polls every few ms at most (bounded sleeps).
     */
    static final long PEER_STALL_NANOS = 100_000_000L;
    /** Most RNR wait one check may count: a check that comes late (this side stalled) saw nothing in between. */
    static final long RNR_CREDIT_NANOS = 10_000_000L;
    /** Engine sleep bound while traffic is recent, and once the connection has been quiet for {@link #QUIET_NANOS}. */
    private static final long POLL_SLEEP_NANOS = 100_000L;
    private static final long QUIET_POLL_SLEEP_NANOS = 1_000_000L;
    private static final long QUIET_NANOS = 20_000_000L;
    private static final int RECV_BUDGET = 64;
    private static final int COMPLETION_BUDGET = 256;

    private final MemorySegment in;
    private final SharedRegion outRegion;
    private final MemorySegment out;
    private final int inSlots;
    private final int inSlotSize;
    private final int outSlots;
    private final int outSlotSize;
    private final ProcessHandle peerProc;
    private final TaskQueue execQueue = new TaskQueue();
    private final TaskQueue ackQueue = new TaskQueue();
    private final int maxInflight;
    private int inflight;
    private long outTail;
    private long peerHeadCache;
    private long inHead;
    /** RNR wait observed since the peer's head last moved (see {@link #rnrExpired}), and when last checked. */
    private long rnrWaitNanos;
    private long rnrCheckNanos;
    /** This side's poll counter, published in its inbound ring for the peer's RNR check. */
    private long polls;
    private long peerPollsSeen;
    private long peerPollsNanos;
    private long lastLivenessNanos;
    private long lastTrafficNanos;
    private long seq;
    private RdmaTaskReceive curRecv;
    private DocaError curStatus;
    private boolean closed;
    private boolean released;
    private DocaError closeReason;

    /** Creates this side's inbound ring at export time. */
    static SharedRegion createInbound() {
        SharedRegion r = SharedMemory.allocate(regionSize(DEFAULT_SLOT_COUNT, DEFAULT_SLOT_SIZE));
        MemorySegment s = r.segment();
        s.set(ValueLayout.JAVA_INT, OFF_MAGIC, MAGIC);
        s.set(ValueLayout.JAVA_INT, OFF_SLOT_COUNT, DEFAULT_SLOT_COUNT);
        s.set(ValueLayout.JAVA_INT, OFF_SLOT_SIZE, DEFAULT_SLOT_SIZE);
        return r;
    }

    ShmEndpoint(Rdma rdma, RdmaConnection conn, int sendQueueSize) {
        super(rdma, conn);
        this.in = conn.inbound.segment();
        this.inSlots = in.get(ValueLayout.JAVA_INT, OFF_SLOT_COUNT);
        this.inSlotSize = in.get(ValueLayout.JAVA_INT, OFF_SLOT_SIZE);
        this.inHead = (long) LONG.getVolatile(in, OFF_HEAD);
        String ring = conn.peer.shmRegion();
        String peerName = "rdma peer pid " + conn.peer.pid();
        SharedRegion probe = SharedMemory.mapGranted(ring, conn.peer.nonce(), conn.peer.ringCap0(),
                conn.peer.ringCap1(),
                0, SLOTS, peerName);
        int slots;
        int slotSize;
        try {
            MemorySegment p = probe.segment();
            if (p.get(ValueLayout.JAVA_INT, OFF_MAGIC) != MAGIC) {
                throw new IllegalArgumentException("not a jdoca RDMA ring: " + ring);
            }
            slots = p.get(ValueLayout.JAVA_INT, OFF_SLOT_COUNT);
            slotSize = p.get(ValueLayout.JAVA_INT, OFF_SLOT_SIZE);
            if (slots <= 0 || slots > 1 << 20 || slotSize < 64 || slotSize > 1 << 20) {
                throw new IllegalArgumentException("bad ring geometry in " + ring);
            }
        } finally {
            probe.close();
        }
        this.outSlots = slots;
        this.outSlotSize = slotSize;
        this.outRegion = SharedMemory.mapGranted(ring, conn.peer.nonce(), conn.peer.ringCap0(), conn.peer.ringCap1(), 0,
                regionSize(slots, slotSize), peerName);
        this.out = outRegion.segment();
        this.outTail = (long) LONG.getVolatile(out, OFF_TAIL);
        this.peerHeadCache = (long) LONG.getVolatile(out, OFF_HEAD);
        this.peerProc = ProcessHandle.of(conn.peer.pid()).orElse(null);
        this.maxInflight = sendQueueSize;
        // Attach: tell the peer this side is here (its connection becomes ESTABLISHED when it sees this).
        LONG.setRelease(out, OFF_PEER_PID, ProcessHandle.current().pid());
        this.lastLivenessNanos = System.nanoTime();
        this.rnrCheckNanos = lastLivenessNanos;
        this.peerPollsNanos = lastLivenessNanos;
        this.lastTrafficNanos = lastLivenessNanos;
    }

    boolean peerAttached() {
        if (released) {
            return false;
        }
        return (long) LONG.getAcquire(in, OFF_PEER_PID) != 0;
    }

    @Override
    DocaError submit(RdmaTask t) {
        if (closed) {
            return DocaError.NOT_CONNECTED;
        }
        if (inflight >= maxInflight) {
            return DocaError.AGAIN;
        }
        inflight++;
        t.seq = ++seq;
        execQueue.add(t);
        pump();
        return DocaError.SUCCESS;
    }

    /** Executes queued tasks in order until one cannot proceed (ring full). */
    private void pump() {
        RdmaTask t;
        while ((t = (RdmaTask) execQueue.peek()) != null) {
            if (!execute(t)) {
                return;
            }
            execQueue.poll();
            ackQueue.add(t);
        }
    }

    private boolean execute(RdmaTask t) {
        if (t.result != DocaError.SUCCESS) {
            t.done = true;
            return true;
        }
        switch (t.kind) {
            case RdmaTask.K_SEND -> {
                return produce(t, OP_SEND);
            }
            case RdmaTask.K_SEND_IMM -> {
                return produce(t, OP_SEND_IMM);
            }
            case RdmaTask.K_WRITE_IMM -> {
                if (t.sentBytes == 0 && !t.done) {
                    MemorySegment rs = t.rMap.segment();
                    if (rs == null) {
                        t.result = DocaError.NOT_SUPPORTED;
                        t.done = true;
                        return true;
                    }
                    BufCopy.gather(t.local, 0, rs, t.rAddr - t.rMap.baseAddress(), t.len);
                }
                return produce(t, OP_WRITE_IMM);
            }
            default -> {
                MemorySegment rs = t.rMap.segment();
                if (rs == null) {
                    // The peer's map is not in shared memory: only the TCP transport can reach it.
                    t.result = DocaError.NOT_SUPPORTED;
                } else {
                    oneSided(t, rs, t.rAddr - t.rMap.baseAddress());
                }
                t.done = true;
                return true;
            }
        }
    }

    private void oneSided(RdmaTask t, MemorySegment rs, long off) {
        Buf l = t.local;
        switch (t.kind) {
            case RdmaTask.K_WRITE -> BufCopy.gather(l, 0, rs, off, t.len);
            case RdmaTask.K_READ, RdmaTask.K_SE_GET -> {
                BufCopy.scatterAppend(rs, off, l, t.len);
                t.resultLen = t.len;
            }
            case RdmaTask.K_CAS -> {
                long old = (long) LONG.compareAndExchange(rs, off, t.operand, t.swap);
                putResult(l, old);
            }
            case RdmaTask.K_FADD, RdmaTask.K_SE_ADD -> putResult(l, (long) LONG.getAndAdd(rs, off, t.operand));
            case RdmaTask.K_SE_SET -> LONG.setVolatile(rs, off, l.segment().get(ValueLayout.JAVA_LONG_UNALIGNED,
                    l.dataOffset()));
            default -> t.result = DocaError.UNEXPECTED;
        }
    }

    static void putResult(Buf l, long v) {
        l.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, l.tailOffset(), v);
        l.appendData(8);
    }

    /** Places the message's remaining fragments in the peer's ring; false if the ring filled first. */
    private boolean produce(RdmaTask t, int op) {
        long total = op == OP_WRITE_IMM ? 0 : t.len;
        int cap = outSlotSize - (int) SLOT_DATA;
        do {
            if (outTail - peerHeadCache >= outSlots) {
                peerHeadCache = (long) LONG.getAcquire(out, OFF_HEAD);
                if (outTail - peerHeadCache >= outSlots) {
                    return false;
                }
            }
            long frag = Math.min(cap, total - t.sentBytes);
            long s = SLOTS + (outTail % outSlots) * outSlotSize;
            int flags = (t.sentBytes == 0 ? FLAG_FIRST : 0) | (t.sentBytes + frag == total ? FLAG_LAST : 0);
            out.set(ValueLayout.JAVA_BYTE, s + SLOT_OPCODE, (byte) op);
            out.set(ValueLayout.JAVA_BYTE, s + SLOT_FLAGS, (byte) flags);
            out.set(ValueLayout.JAVA_INT, s + SLOT_IMM, t.immediate);
            out.set(ValueLayout.JAVA_INT, s + SLOT_TOTAL, (int) (op == OP_WRITE_IMM ? t.len : total));
            out.set(ValueLayout.JAVA_INT, s + SLOT_FRAG, (int) frag);
            out.set(ValueLayout.JAVA_LONG, s + SLOT_SEQ, t.seq);
            if (frag > 0) {
                BufCopy.gather(t.local, t.sentBytes, out, s + SLOT_DATA, frag);
            }
            t.sentBytes += frag;
            if (outTail == peerHeadCache) {
                headMoved(System.nanoTime());
            }
            outTail++;
            LONG.setRelease(out, OFF_TAIL, outTail);
        } while (t.sentBytes < total);
        // Placed; completion waits until the peer's head passes endSlot (it consumed the message).
        t.endSlot = outTail;
        t.done = false;
        return true;
    }

    @Override
    int work() {
        int n = 0;
        if (!closed) {
            LONG.setOpaque(in, OFF_OWNER_HEARTBEAT, ++polls);
            long now = System.nanoTime();
            if (now - lastLivenessNanos > LIVENESS_PERIOD_NANOS) {
                lastLivenessNanos = now;
                if ((int) INT.getAcquire(in, OFF_PEER_CLOSED) != 0 || (int) INT.getAcquire(out,
                        OFF_OWNER_CLOSED) != 0) {
                    broken(DocaError.CONNECTION_RESET, PeerLiveness.Rule.CLOSED.label()
                            + ": peer closed the connection");
                } else if (peerProc == null || !peerProc.isAlive()) {
                    broken(DocaError.CONNECTION_RESET, PeerLiveness.Rule.PID_GONE.label() + ": peer process "
                            + conn.peer.pid() + " is gone");
                }
            }
        }
        if (!closed) {
            pump();
            n += consume();
        }
        if (n > 0 || !ackQueue.isEmpty()) {
            lastTrafficNanos = System.nanoTime();
        }
        if (released) {
            return n;
        }
        long peerHead = (long) LONG.getAcquire(out, OFF_HEAD);
        if (peerHead != peerHeadCache) {
            peerHeadCache = peerHead;
            headMoved(System.nanoTime());
        }
        RdmaTask t;
        // Bounded: a callback that resubmits would otherwise keep this loop going forever.
        while (n < COMPLETION_BUDGET && (t = (RdmaTask) ackQueue.peek()) != null) {
            if (!t.done) {
                if (closed) {
                    t.result = closeReason;
                } else if (peerHead >= t.endSlot) {
                    t.done = true;
                } else {
                    if (outTail > peerHead && rnrExpired(System.nanoTime())) {
                        t.result = DocaError.TIME_OUT;
                        ackQueue.poll();
                        finish(t);
                        n++;
                        broken(DocaError.CONNECTION_RESET, "receiver not ready: the peer posted no receive task within "
                                + rdma.rnrTimeoutNanos() / 1_000_000 + " ms (RNR retries exceeded)");
                    }
                    break;
                }
            }
            ackQueue.poll();
            finish(t);
            n++;
            if (released) {
                return n;
            }
        }
        if (closed) {
            while ((t = (RdmaTask) ackQueue.poll()) != null) {
                if (!t.done) {
                    t.result = closeReason;
                }
                finish(t);
                n++;
            }
            while ((t = (RdmaTask) execQueue.poll()) != null) {
                t.result = closeReason;
                finish(t);
                n++;
            }
            if (curRecv != null && !released) {
                RdmaTaskReceive r = curRecv;
                curRecv = null;
                rdma.done(r, closeReason);
                n++;
            }
        }
        return n;
    }

    private void finish(RdmaTask t) {
        inflight--;
        DocaError r = t.result;
        if (r == DocaError.SUCCESS && (t.kind == RdmaTask.K_WRITE || t.kind == RdmaTask.K_WRITE_IMM)) {
            t.remote.appendData(t.len);
        }
        rdma.done(t, r);
    }

    /** Moves inbound messages into posted receives; a message without a receive waits in the ring. */
    private int consume() {
        int n = 0;
        long tail = (long) LONG.getAcquire(in, OFF_TAIL);
        while (inHead < tail && n < RECV_BUDGET) {
            long s = SLOTS + (inHead % inSlots) * inSlotSize;
            int flags = in.get(ValueLayout.JAVA_BYTE, s + SLOT_FLAGS);
            long frag = Integer.toUnsignedLong(in.get(ValueLayout.JAVA_INT, s + SLOT_FRAG));
            long total = Integer.toUnsignedLong(in.get(ValueLayout.JAVA_INT, s + SLOT_TOTAL));
            int op = in.get(ValueLayout.JAVA_BYTE, s + SLOT_OPCODE);
            if ((flags & FLAG_FIRST) != 0) {
                RdmaTaskReceive r = rdma.pollPostedRecv();
                if (r == null) {
                    break;
                }
                curRecv = r;
                curStatus = r.result;
                long bytes = op == OP_WRITE_IMM ? 0 : total;
                if (curStatus == DocaError.SUCCESS && (r.local == null || !BufCopy.writableList(r.local))) {
                    curStatus = DocaError.NOT_PERMITTED;
                } else if (curStatus == DocaError.SUCCESS && bytes > r.local.listTailroomLen()) {
                    curStatus = DocaError.INVALID_VALUE;
                }
            }
            RdmaTaskReceive r = curRecv;
            if (r == null || frag > inSlotSize - SLOT_DATA) {
                // A fragment without its first part, or a corrupt one: the ring is unusable.
                broken(DocaError.IO_FAILED, "corrupt shared-memory ring");
                return n;
            }
            if (frag > 0 && curStatus == DocaError.SUCCESS) {
                BufCopy.scatterAppend(in, s + SLOT_DATA, r.local, frag);
            }
            inHead++;
            LONG.setRelease(in, OFF_HEAD, inHead);
            if ((flags & FLAG_LAST) != 0) {
                curRecv = null;
                r.resultLen = total;
                r.immediate = in.get(ValueLayout.JAVA_INT, s + SLOT_IMM);
                r.opcode = op == OP_SEND ? RdmaOpcode.SEND : op == OP_SEND_IMM
                        ? RdmaOpcode.SEND_WITH_IMM : RdmaOpcode.WRITE_WITH_IMM;
                r.conn = conn;
                rdma.done(r, curStatus);
                n++;
            }
        }
        return n;
    }

    /**
     * RNR: the peer's head has not moved for the RNR time while its engine was running and this
     * side was watching. Time the peer's engine did not poll at all (a GC pause, a starved or
     * stopped process) does not count, nor time this side did not look (each check adds at most
     * {@link #RNR_CREDIT_NANOS}): a stalled peer is not a peer without receives (issue 12).
     */
    private boolean rnrExpired(long now) {
        long gap = Math.min(Math.max(0, now - rnrCheckNanos), RNR_CREDIT_NANOS);
        rnrCheckNanos = now;
        long p = (long) LONG.getOpaque(out, OFF_OWNER_HEARTBEAT);
        if (p != peerPollsSeen) {
            peerPollsSeen = p;
            peerPollsNanos = now;
        }
        // Counted only in small steps seen by this side (its own stalls are not the peer's refusal)
        // and only while the peer's engine polls.
        if (now - peerPollsNanos <= PEER_STALL_NANOS) {
            rnrWaitNanos += gap;
        }
        return rnrWaitNanos > rdma.rnrTimeoutNanos();
    }

    private void headMoved(long now) {
        rnrWaitNanos = 0;
        rnrCheckNanos = now;
    }

    private void broken(DocaError reason, String why) {
        if (!closed) {
            close(reason);
            rdma.connectionBroken(conn, reason, why);
        }
    }

    @Override
    boolean hasPendingWork() {
        if (closed) {
            return !execQueue.isEmpty() || !ackQueue.isEmpty() || curRecv != null;
        }
        RdmaTask h = (RdmaTask) ackQueue.peek();
        return !execQueue.isEmpty() || h != null && (h.done || (long) LONG.getAcquire(out, OFF_HEAD) >= h.endSlot)
                || inHead < (long) LONG.getAcquire(in, OFF_TAIL) && !rdma.hasPostedRecvs();
    }

    @Override
    void close(DocaError reason) {
        if (closed) {
            return;
        }
        closed = true;
        closeReason = reason;
        INT.setRelease(out, OFF_PEER_CLOSED, 1);
        INT.setRelease(in, OFF_OWNER_CLOSED, 1);
    }

    @Override
    boolean isDrained() {
        return closed && execQueue.isEmpty() && ackQueue.isEmpty() && curRecv == null;
    }

    @Override
    void release() {
        // May run inside a completion callback of work(): work() checks this flag after each completion.
        released = true;
        outRegion.close();
    }

    @Override
    long maxSleepNanos() {
        // A quiet connection is polled less often (idle CPU); the first message after a pause waits ≤ 1 ms.
        return System.nanoTime() - lastTrafficNanos > QUIET_NANOS ? QUIET_POLL_SLEEP_NANOS : POLL_SLEEP_NANOS;
    }
}
