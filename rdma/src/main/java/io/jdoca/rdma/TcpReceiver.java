package io.jdoca.rdma;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.rdma.wire.TcpFrame;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * The reading side of one tcp connection, on the transport agent's thread: a resumable parser ({@link RxState})
 * that serves the peer's one-sided requests against this process's exported maps (whether or not the application
 * polls, as a NIC does), fills posted receives, and completes this side's tasks from their responses; completions go
 * to the engine through the link's completion ring. Responses are queued on the {@link TcpSender}; a frame whose
 * response would not fit there yet pauses the parser ({@link #paused()}).
 *
 * <p>Threads: the agent's only. Allocation-free (a refused request logs, rate-limited).
 */
final class TcpReceiver {
    private static final System.Logger LOG = System.getLogger(TcpReceiver.class.getName());
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final int RX_BUFFER = 64 * 1024;
    /**
     * Most bytes one read-ahead asks for. One read brings many small frames (acknowledgements,
     * small messages); a large payload beyond it is read straight into its destination rather than
     * copied out of the read-ahead buffer.
     */
    private static final int READ_AHEAD = 16 * 1024;
    /** Payload remainders at least this long are read straight into their destination. */
    private static final int DIRECT_MIN = 2048;
    /** Frames and payload bytes one pump handles before returning, so one busy connection cannot starve the others. */
    private static final int PUMP_FRAMES = 256;
    private static final long PUMP_BYTES = 4L << 20;
    /** Refused one-sided requests are logged at most this often per connection. */
    private static final long DENIED_LOG_NANOS = 1_000_000_000L;

    /** Where the parser is: before a header, inside a payload, or holding a message until a receive is posted. */
    enum RxState {
        HEADER, PAYLOAD, AWAIT_RECV;

        boolean canTransitionTo(RxState next) {
            return switch (this) {
                case HEADER -> next == PAYLOAD || next == AWAIT_RECV;
                case PAYLOAD -> next == HEADER || next == AWAIT_RECV;
                case AWAIT_RECV -> next == PAYLOAD || next == HEADER;
            };
        }
    }

    /** What completes a frame once its payload is in. */
    private enum After { RESPONSE, SEND, WRITE, NAK }

    /** Why a one-sided request was refused (for the log). */
    private enum Denied { UNKNOWN_MAP, CAPABILITY }

    private final TcpLink link;
    private final TcpSender tx;
    private final SegmentViews ioViews;
    private final ByteBuffer rxHdr = ByteBuffer.allocateDirect(TcpFrame.SIZE);
    private final MemorySegment rxHdrSeg = MemorySegment.ofBuffer(rxHdr);
    private final ByteBuffer rxBuf = ByteBuffer.allocateDirect(RX_BUFFER);
    private final MemorySegment rxSeg = MemorySegment.ofBuffer(rxBuf);
    private int rPos;
    private int rLim;
    private final TcpFrame rx = new TcpFrame();
    private RxState state = RxState.HEADER;
    /** A pump stopped on its budget with input left. */
    private boolean more;
    /** A pump stopped because the response of the next frame does not fit in the outgoing buffer yet. */
    private boolean paused;
    /** The selector reported the socket readable and the agent has not drained it since. */
    boolean readable = true;
    /** Completions were handed to the engine during this look: wake it once. */
    boolean handedOver;
    private long pumpBytes;
    long lastRxNanos = System.nanoTime();
    // the frame in progress
    private int fOp;
    private long fSeq;
    private long fLen;
    private int fImm;
    private DocaError fSt;
    private After after;
    /** Waiting for a posted receive: the wait counted, the last check, the engine tick seen and when it moved. */
    private long rnrWaitNanos;
    private long rnrCheckNanos;
    private long rnrTicks;
    private long rnrTicksNanos;
    private RdmaTask pTask;
    private RdmaTaskReceive pRecv;
    // its payload sink: a buffer list (pBuf), one segment range (pSeg), or nothing (drain)
    private Buf pBuf;
    private MemorySegment pSeg;
    private long pOff;
    private long pLeft;
    // rate limit of the refusal log line
    private long deniedLoggedAt = System.nanoTime() - DENIED_LOG_NANOS;
    private long deniedSince;

    TcpReceiver(TcpLink link, TcpSender tx, SegmentViews ioViews) {
        this.link = link;
        this.tx = tx;
        this.ioViews = ioViews;
        this.rx.wrap(rxHdrSeg);
    }

    RxState state() {
        return state;
    }

    private void move(RxState next) {
        if (state != next) {
            if (!state.canTransitionTo(next)) {
                throw new IllegalStateException("tcp receive state " + state + " → " + next); // a bug here
            }
            state = next;
        }
    }

    boolean more() {
        return more;
    }

    boolean paused() {
        return paused;
    }

    /** Bytes read from the socket and not parsed yet. */
    boolean buffered() {
        return rLim > rPos;
    }

    /** Whether the next look has something to do without the selector's word. */
    boolean wantsLook() {
        return readable || more || paused || state == RxState.AWAIT_RECV;
    }

    /**
     * Handles every whole frame available without blocking, within a budget, pausing before a frame
     * whose response does not fit in the outgoing buffer yet. Returns frames handled plus payload
     * bytes moved (the agent's work count).
     */
    long pump() throws IOException {
        pumpBytes = 0;
        boolean budget = false;
        paused = false;
        int frames = 0;
        loop:
        while (true) {
            switch (state) {
                case HEADER -> {
                    if (frames >= PUMP_FRAMES || pumpBytes >= PUMP_BYTES) {
                        budget = true;
                        break loop;
                    }
                    if (!haveHeader()) {
                        readable = false;
                        break loop;
                    }
                    if (!tx.canQueue(responseRoom(TcpFrame.opcodeAt(rxSeg, rPos)))) {
                        paused = true;
                        break loop;
                    }
                    MemorySegment.copy(rxSeg, rPos, rxHdrSeg, 0, TcpFrame.SIZE);
                    rPos += TcpFrame.SIZE;
                    frames++;
                    dispatch();
                }
                case PAYLOAD -> {
                    if (!fillSink()) {
                        readable = false;
                        break loop;
                    }
                    if (!tx.canQueue(TcpFrame.SIZE)) {
                        paused = true;
                        break loop;
                    }
                    completeFrame();
                }
                case AWAIT_RECV -> {
                    if (!tx.canQueue(TcpFrame.SIZE)) {
                        paused = true;
                        break loop;
                    }
                    if (!claimRecv()) {
                        break loop;
                    }
                }
            }
        }
        more = budget;
        return frames + pumpBytes;
    }

    /** Room the response queued when a frame of opcode {@code op} is dispatched needs (0: none at dispatch). */
    private static int responseRoom(int op) {
        return switch (op) {
            case TcpFrame.OP_READ_REQ -> TcpSender.FRAME_ROOM;
            case TcpFrame.OP_CAS, TcpFrame.OP_FADD, TcpFrame.OP_SET, TcpFrame.OP_NOP -> TcpFrame.SIZE;
            default -> 0;
        };
    }

    /** Reads what the socket has (up to {@link #READ_AHEAD}) behind the buffered bytes; returns bytes read. */
    private int readAhead() throws IOException {
        if (rPos == rLim) {
            rPos = 0;
            rLim = 0;
        } else if (RX_BUFFER - rLim < READ_AHEAD) {
            int avail = rLim - rPos;
            MemorySegment.copy(rxSeg, rPos, rxSeg, 0, avail);
            rPos = 0;
            rLim = avail;
        }
        rxBuf.limit(Math.min(RX_BUFFER, rLim + READ_AHEAD)).position(rLim);
        int n = link.ch.read(rxBuf);
        if (n < 0) {
            throw new EOFException();
        }
        if (n > 0) {
            rLim += n;
            pumpBytes += n;
            lastRxNanos = System.nanoTime();
        }
        return n;
    }

    private boolean haveHeader() throws IOException {
        while (rLim - rPos < TcpFrame.SIZE) {
            if (readAhead() == 0) {
                return false;
            }
        }
        return true;
    }

    /** Moves payload bytes into the sink until it is full (true) or the socket has no more now (false). */
    private boolean fillSink() throws IOException {
        while (pLeft > 0) {
            long moved;
            if (pBuf != null) {
                Buf b = pBuf;
                long room = b.tailroomLen();
                if (room == 0) {
                    pBuf = b.next();
                    continue;
                }
                moved = copyIn(b.segment(), b.tailOffset(), Math.min(room, pLeft));
                b.appendData(moved);
            } else if (pSeg != null) {
                moved = copyIn(pSeg, pOff, pLeft);
                pOff += moved;
            } else {
                moved = discard(pLeft);
            }
            if (moved == 0) {
                return false;
            }
            pLeft -= moved;
        }
        return true;
    }

    /** Copies buffered bytes to {@code [off, off+n)} of {@code seg}, then reads more (straight in when long). */
    private long copyIn(MemorySegment seg, long off, long n) throws IOException {
        long buffered = rLim - rPos;
        if (buffered == 0) {
            if (n >= DIRECT_MIN) {
                int r = link.ch.read(ioViews.view(seg, 0, off, n));
                if (r < 0) {
                    throw new EOFException();
                }
                if (r > 0) {
                    pumpBytes += r;
                    lastRxNanos = System.nanoTime();
                }
                return r;
            }
            if (readAhead() == 0) {
                return 0;
            }
            buffered = rLim - rPos;
        }
        long take = Math.min(n, buffered);
        MemorySegment.copy(rxSeg, rPos, seg, off, take);
        rPos += (int) take;
        return take;
    }

    private long discard(long n) throws IOException {
        if (rLim == rPos && readAhead() == 0) {
            return 0;
        }
        long take = Math.min(n, rLim - rPos);
        rPos += (int) take;
        return take;
    }

    private void sinkList(Buf list, long len) {
        pBuf = list;
        pSeg = null;
        pLeft = len;
        move(RxState.PAYLOAD);
    }

    private void sinkRange(MemorySegment seg, long off, long len) {
        pBuf = null;
        pSeg = seg;
        pOff = off;
        pLeft = len;
        move(RxState.PAYLOAD);
    }

    private void sinkDrain(long len) {
        pBuf = null;
        pSeg = null;
        pLeft = len;
        move(RxState.PAYLOAD);
    }

    private void dispatch() throws IOException {
        TcpFrame f = rx;
        int op = f.opcode();
        fOp = op;
        fSeq = f.seq();
        switch (op) {
            case TcpFrame.OP_ACK, TcpFrame.OP_READ_RESP, TcpFrame.OP_ATOMIC_RESP -> onResponse(f, op);
            case TcpFrame.OP_SEND, TcpFrame.OP_SEND_IMM -> {
                fLen = f.length();
                fImm = f.immediate();
                after = After.SEND;
                rnrStart();
                move(RxState.AWAIT_RECV);
            }
            case TcpFrame.OP_WRITE, TcpFrame.OP_WRITE_IMM -> onWrite(f);
            case TcpFrame.OP_READ_REQ -> onRead(f);
            case TcpFrame.OP_CAS, TcpFrame.OP_FADD, TcpFrame.OP_SET -> onAtomic(f, op);
            case TcpFrame.OP_NOP -> tx.respond(TcpFrame.OP_ACK, f.seq(), f.status(), 0, null, 0);
            case TcpFrame.OP_HEARTBEAT, TcpFrame.OP_HELLO -> {
            }
            case TcpFrame.OP_DISCONNECT -> throw new EOFException(TcpLink.DISCONNECT);
            default -> throw new IOException("protocol error: unknown opcode " + op);
        }
    }

    private void onResponse(TcpFrame f, int op) throws IOException {
        RdmaTask t = (RdmaTask) tx.outstanding.poll();
        if (t == null || t.seq != f.seq()) {
            throw new IOException("protocol error: response " + f.seq() + " does not match a request");
        }
        int status = f.status();
        DocaError r = t.result == DocaError.SUCCESS ? DocaError.fromCode(status) : t.result;
        long len = op == TcpFrame.OP_READ_RESP ? f.length() : 0;
        if (op == TcpFrame.OP_READ_RESP && len > 0) {
            pTask = t;
            after = After.RESPONSE;
            if (r != DocaError.SUCCESS || len != t.len) {
                fSt = r == DocaError.SUCCESS ? DocaError.IO_FAILED : r;
                sinkDrain(len);
            } else {
                fSt = DocaError.SUCCESS;
                t.resultLen = len;
                sinkList(t.local, len);
            }
            return;
        }
        if (op == TcpFrame.OP_ATOMIC_RESP && r == DocaError.SUCCESS && t.kind != RdmaTask.K_SE_SET) {
            ShmEndpoint.putResult(t.local, f.mapId());
        }
        t.result = r;
        handOver(t);
    }

    /** A frame needs a posted receive: the RNR wait starts. */
    private void rnrStart() {
        rnrWaitNanos = 0;
        rnrCheckNanos = System.nanoTime();
    }

    /** RC receive-not-ready handling: waits, without blocking, for the application to post a receive. */
    private boolean claimRecv() {
        Rdma rdma = link.rdma;
        RdmaTaskReceive r = rdma.pollPostedRecv();
        if (r == null) {
            long now = System.nanoTime();
            long gap = Math.min(Math.max(0, now - rnrCheckNanos), TcpEndpoint.RNR_CREDIT_NANOS);
            rnrCheckNanos = now;
            long ticks = link.engineTicks.get();
            if (ticks != rnrTicks || link.engineSleeping) {
                rnrTicks = ticks;
                rnrTicksNanos = now;
            }
            // The RNR time runs only while the engine (the only thread that posts receives) runs, in
            // small steps this side saw: a GC pause or a starved process is not a receiver without
            // receives (issue 12).
            if (now - rnrTicksNanos <= TcpEndpoint.ENGINE_PAUSE_NANOS) {
                rnrWaitNanos += gap;
            }
            if (rnrWaitNanos <= rdma.rnrTimeoutNanos() && !link.closing()) {
                return false;
            }
            // Retries exhausted: the payload (a send's) is dropped and the requester told.
            if (after == After.SEND) {
                after = After.NAK;
                sinkDrain(fLen);
            } else {
                tx.respond(TcpFrame.OP_ACK, fSeq, DocaError.TIME_OUT.code(), 0, null, 0);
                move(RxState.HEADER);
            }
            return true;
        }
        if (after == After.SEND) {
            pRecv = r;
            DocaError st = r.result;
            if (st == DocaError.SUCCESS && !BufCopy.writableList(r.local)) {
                st = DocaError.NOT_PERMITTED;
            } else if (st == DocaError.SUCCESS && fLen > r.local.listTailroomLen()) {
                st = DocaError.INVALID_VALUE;
            }
            fSt = st;
            if (st == DocaError.SUCCESS) {
                sinkList(r.local, fLen);
            } else {
                sinkDrain(fLen);
            }
        } else {
            // WRITE_IMM: the data is in place; the receive only reports it.
            deliverRecv(r, r.result, RdmaOpcode.WRITE_WITH_IMM, fImm, fLen);
            tx.acknowledgeMessage(fSeq, fSt.code());
            move(RxState.HEADER);
        }
        return true;
    }

    /** The frame's payload is all in: complete what it was for. */
    private void completeFrame() {
        move(RxState.HEADER);
        pBuf = null;
        pSeg = null;
        switch (after) {
            case RESPONSE -> {
                RdmaTask t = pTask;
                pTask = null;
                t.result = fSt;
                handOver(t);
            }
            case SEND -> {
                deliverRecv(pRecv, fSt, fOp == TcpFrame.OP_SEND ? RdmaOpcode.SEND : RdmaOpcode.SEND_WITH_IMM, fImm,
                        fLen);
                tx.acknowledgeMessage(fSeq, fSt.code());
            }
            case WRITE -> {
                if (fOp == TcpFrame.OP_WRITE_IMM && fSt == DocaError.SUCCESS) {
                    rnrStart();
                    move(RxState.AWAIT_RECV);
                } else {
                    tx.respond(TcpFrame.OP_ACK, fSeq, fSt.code(), 0, null, 0);
                }
            }
            case NAK -> tx.respond(TcpFrame.OP_ACK, fSeq, DocaError.TIME_OUT.code(), 0, null, 0);
        }
    }

    private void handOver(RdmaTask t) {
        link.completions.offer(t);
        handedOver = true;
    }

    private void deliverRecv(RdmaTaskReceive r, DocaError st, RdmaOpcode opc, int imm, long len) {
        r.result = st;
        r.opcode = opc;
        r.immediate = imm;
        r.resultLen = len;
        r.conn = link.conn;
        pRecv = null;
        handOver(r);
    }

    /** Completes what was held mid-frame (a receive being filled, a read response being read): the link ended. */
    void abandon() {
        RdmaTaskReceive r = pRecv;
        if (r != null) {
            pRecv = null;
            r.result = DocaError.CONNECTION_RESET;
            link.completions.offer(r);
        }
        RdmaTask t = pTask;
        if (t != null) {
            pTask = null;
            t.result = DocaError.CONNECTION_RESET;
            link.completions.offer(t);
        }
    }

    /**
     * A one-sided request named a map that is not exported here or presented the wrong capability:
     * NOT_PERMITTED goes back to the requester. Logs at most once per {@link #DENIED_LOG_NANOS}
     * (with the count since the last line), so a hostile peer cannot flood the log; allocates only
     * when it logs.
     */
    private DocaError denied(Denied why, long mapId) {
        deniedSince++;
        long now = System.nanoTime();
        if (now - deniedLoggedAt >= DENIED_LOG_NANOS) {
            deniedLoggedAt = now;
            LOG.log(System.Logger.Level.WARNING, "rdma connection " + link.conn.id + ": refused a one-sided request "
                    + "from " + peerName() + " for map " + Long.toHexString(mapId) + ": "
                    + (why == Denied.UNKNOWN_MAP ? "no such exported map" : "wrong capability") + " ("
                    + deniedSince + " refused since the last report)");
            deniedSince = 0;
        }
        return DocaError.NOT_PERMITTED;
    }

    private String peerName() {
        try {
            return String.valueOf(link.ch.getRemoteAddress());
        } catch (IOException | RuntimeException e) {
            return "an unknown peer";
        }
    }

    /**
     * The responder's own checks, against this process's exported map, before touching memory: the
     * map is exported (and not stopped since), the request presents its capability (constant-time
     * compare), the map and this context grant the access, and the range lies inside the map. A
     * wrong map id or capability is NOT_PERMITTED and logged (rate-limited) naming the peer.
     */
    private DocaError check(MemoryMap m, TcpFrame f, long addr, long len, int flag) {
        if (m == null || !m.capabilityMatches(f.cap0(), f.cap1())) {
            return denied(m == null ? Denied.UNKNOWN_MAP : Denied.CAPABILITY, f.mapId());
        }
        if (!m.isStarted() || m.segment() == null) {
            return DocaError.NOT_PERMITTED;
        }
        if ((m.permissions() & flag) == 0 || (link.rdma.permissions() & flag) == 0) {
            return DocaError.NOT_PERMITTED;
        }
        if (!m.contains(addr, len)) {
            return DocaError.INVALID_VALUE;
        }
        return DocaError.SUCCESS;
    }

    private void onWrite(TcpFrame f) {
        long len = f.length();
        long addr = f.addr();
        fLen = len;
        fImm = f.immediate();
        after = After.WRITE;
        MemoryMap m = MemoryMap.findExported(f.mapId());
        DocaError st = check(m, f, addr, len, AccessFlags.RDMA_WRITE);
        fSt = st;
        if (st == DocaError.SUCCESS) {
            sinkRange(m.segment(), addr - m.baseAddress(), len);
        } else {
            sinkDrain(len);
        }
    }

    private void onRead(TcpFrame f) {
        long seq = f.seq();
        long len = f.length();
        long addr = f.addr();
        MemoryMap m = MemoryMap.findExported(f.mapId());
        DocaError st = check(m, f, addr, len, AccessFlags.RDMA_READ);
        if (st == DocaError.SUCCESS) {
            tx.respond(TcpFrame.OP_READ_RESP, seq, 0, len, m, addr - m.baseAddress());
        } else {
            tx.respond(TcpFrame.OP_READ_RESP, seq, st.code(), 0, null, 0);
        }
    }

    private void onAtomic(TcpFrame f, int op) {
        long addr = f.addr();
        MemoryMap m = MemoryMap.findExported(f.mapId());
        DocaError st = check(m, f, addr, 8, op == TcpFrame.OP_SET ? AccessFlags.RDMA_WRITE : AccessFlags.RDMA_ATOMIC);
        if (st == DocaError.SUCCESS && (addr & 7) != 0) {
            st = DocaError.INVALID_VALUE;
        }
        long old = 0;
        if (st == DocaError.SUCCESS) {
            MemorySegment s = m.segment();
            long off = addr - m.baseAddress();
            old = switch (op) {
                case TcpFrame.OP_CAS -> (long) LONG.compareAndExchange(s, off, f.operand(), f.swap());
                case TcpFrame.OP_FADD -> (long) LONG.getAndAdd(s, off, f.operand());
                default -> (long) LONG.getAndSet(s, off, f.operand());
            };
        }
        tx.respondAtomic(f.seq(), st.code(), old);
    }
}
