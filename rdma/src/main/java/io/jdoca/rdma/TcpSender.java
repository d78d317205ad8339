package io.jdoca.rdma;

import io.jdoca.core.DocaError;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.ring.SpscRing;
import io.jdoca.rdma.wire.TcpFrame;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;

/**
 * The writing side of one tcp connection, on the transport agent's thread: request frames ({@link TcpFrame}) of
 * the tasks the engine submitted, and the responses the {@link TcpReceiver} queues, appended to one outgoing
 * buffer (payloads up to {@link TcpEndpoint#COALESCE} bytes copied behind their header, so a frame is one write
 * and wakes the peer once) that leaves in one write; a larger payload streams straight from registered or exported
 * memory behind its header. Bytes the socket does not take now stay pending ({@link #txBlocked()}: the agent then
 * waits for writability); what cannot be queued waits in the submission ring. Acknowledgements of messages (SEND,
 * WRITE_IMM) wait up to {@link TcpEndpoint#ACK_DELAY_NANOS} for a request of the local application to ride along.
 *
 * <p>Threads: the agent's only. Allocation-free.
 */
final class TcpSender {
    /** The outgoing buffer: room for two whole coalesced frames, so one always fits once the other left. */
    static final int OUT_BATCH = Math.max(32 * 1024, 2 * (TcpFrame.SIZE + TcpEndpoint.COALESCE));
    /** Room a request or a dispatch-time response may need in the outgoing buffer. */
    static final int FRAME_ROOM = TcpFrame.SIZE + TcpEndpoint.COALESCE;
    private static final int ACK_BATCH = 16;

    private final TcpLink link;
    private final SegmentViews ioViews;
    /** Requests written and not yet answered, in order (the receiver matches responses against it). */
    final SpscRing outstanding;
    private long taken;
    private final MemorySegment txHdrSeg = MemorySegment.ofBuffer(ByteBuffer.allocateDirect(TcpFrame.SIZE));
    private final TcpFrame tx = new TcpFrame();
    /** Header scratch for responses. */
    private final MemorySegment respSeg = MemorySegment.ofBuffer(ByteBuffer.allocateDirect(TcpFrame.SIZE));
    private final TcpFrame resp = new TcpFrame();
    /** Outgoing bytes: {@code [outStart, outLen)} is still to be written, in order. */
    private final ByteBuffer out = ByteBuffer.allocateDirect(OUT_BATCH);
    private final MemorySegment outSeg = MemorySegment.ofBuffer(out);
    private int outStart;
    private int outLen;
    /** The pending bytes hold something that must leave now (a request, a one-sided response). */
    private boolean urgent;
    /** Message acknowledgements pending without anything urgent, since when. */
    private int acksOwed;
    private long acksOwedSince;
    /** A payload streaming behind the pending bytes: a buffer list ({@link #bigBuf}) or a segment range. */
    private long bigLeft;
    private Buf bigBuf;
    private long bigBufOff;
    private MemorySegment bigSeg;
    private long bigOff;
    /** The socket took less than was pending: wait for writability. */
    private boolean txBlocked;
    /** The selector reported the socket writable since the last flush. */
    boolean writable;
    long lastTxNanos = System.nanoTime();

    TcpSender(TcpLink link, SegmentViews ioViews) {
        this.link = link;
        this.ioViews = ioViews;
        this.outstanding = new SpscRing(link.submitted.capacity());
        this.tx.wrap(txHdrSeg);
        this.resp.wrap(respSeg);
    }

    boolean txBlocked() {
        return txBlocked;
    }

    /** The doorbell allows tasks this side has not taken yet. */
    boolean untaken() {
        return taken != link.doorbell;
    }

    boolean pendingOut() {
        return outStart < outLen || bigLeft > 0;
    }

    /** When the oldest owed acknowledgement must leave at the latest. */
    long acksDueAt() {
        return acksOwedSince + TcpEndpoint.ACK_DELAY_NANOS;
    }

    /**
     * Whether {@code need} more bytes can be queued behind the pending ones now: not while a large
     * payload streams (its bytes come first), and only with room in the outgoing buffer.
     */
    boolean canQueue(int need) {
        if (bigLeft > 0) {
            return false;
        }
        if (OUT_BATCH - outLen >= need) {
            return true;
        }
        if (outStart > 0) {
            int left = outLen - outStart;
            MemorySegment.copy(outSeg, outStart, outSeg, 0, left);
            outStart = 0;
            outLen = left;
        }
        return OUT_BATCH - outLen >= need;
    }

    /**
     * The pending bytes must leave now: something urgent, enough acknowledgements, or the oldest waited long enough.
     */
    boolean flushDue(long now) {
        return urgent || bigLeft > 0 || acksOwed >= ACK_BATCH || now - acksOwedSince >= TcpEndpoint.ACK_DELAY_NANOS
                || link.engineSleeping;
    }

    /** Takes the submitted tasks the doorbell allows and writes what is due; returns the tasks and bytes moved. */
    long send(long now) throws IOException {
        long n = takeSubmitted();
        if (pendingOut() && (!txBlocked || writable) && flushDue(now)) {
            n += flush(now);
        }
        return n;
    }

    /** Takes the submitted tasks the doorbell allows, while their frames fit; returns how many. */
    private int takeSubmitted() {
        long d = link.doorbell;
        int n = 0;
        while (taken != d && canQueue(FRAME_ROOM)) {
            RdmaTask t = (RdmaTask) link.submitted.poll();
            if (t == null) {
                break;
            }
            taken++;
            outstanding.offer(t); // never full: at most depth tasks are in flight
            encode(t);
            n++;
        }
        return n;
    }

    /** Queues the request frame of {@code t} (a large payload streams behind it). */
    private void encode(RdmaTask t) {
        TcpFrame f = tx;
        Buf payload = null;
        if (t.result != DocaError.SUCCESS) {
            // A local failure travels as a NOP, so it completes in order with the others.
            f.init(TcpFrame.OP_NOP).status(t.result.code());
        } else {
            switch (t.kind) {
                case RdmaTask.K_SEND, RdmaTask.K_SEND_IMM -> {
                    f.init(t.kind == RdmaTask.K_SEND ? TcpFrame.OP_SEND : TcpFrame.OP_SEND_IMM).immediate(t.immediate)
                            .length(t.len);
                    payload = t.local;
                }
                case RdmaTask.K_WRITE, RdmaTask.K_WRITE_IMM -> {
                    f.init(t.kind == RdmaTask.K_WRITE ? TcpFrame.OP_WRITE : TcpFrame.OP_WRITE_IMM)
                            .immediate(t.immediate).mapId(t.rMapId).addr(t.rAddr).length(t.len).cap(t.rCap0, t.rCap1);
                    payload = t.local;
                }
                case RdmaTask.K_READ, RdmaTask.K_SE_GET -> f.init(TcpFrame.OP_READ_REQ).mapId(t.rMapId).addr(t.rAddr)
                        .length(t.len).cap(t.rCap0, t.rCap1);
                case RdmaTask.K_CAS -> f.init(TcpFrame.OP_CAS).mapId(t.rMapId).addr(t.rAddr).operand(t.operand)
                        .swap(t.swap).cap(t.rCap0, t.rCap1);
                case RdmaTask.K_FADD, RdmaTask.K_SE_ADD -> f.init(TcpFrame.OP_FADD).mapId(t.rMapId).addr(t.rAddr)
                        .operand(t.operand).cap(t.rCap0, t.rCap1);
                case RdmaTask.K_SE_SET -> f.init(TcpFrame.OP_SET).mapId(t.rMapId).addr(t.rAddr)
                        .operand(t.local.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, t.local.dataOffset()))
                        .cap(t.rCap0, t.rCap1);
                default -> f.init(TcpFrame.OP_NOP).status(DocaError.UNEXPECTED.code());
            }
        }
        f.seq(t.seq);
        MemorySegment.copy(txHdrSeg, 0, outSeg, outLen, TcpFrame.SIZE);
        outLen += TcpFrame.SIZE;
        urgent = true;
        if (payload != null && t.len > 0) {
            if (t.len <= TcpEndpoint.COALESCE) {
                BufCopy.gather(payload, 0, outSeg, outLen, t.len);
                outLen += (int) t.len;
            } else {
                // Straight from registered memory behind its header. Not one gathering write: NIO
                // allocates a scope releaser per segment-backed buffer on every gathering call.
                bigBuf = payload;
                bigBufOff = 0;
                bigSeg = null;
                bigLeft = t.len;
            }
        }
    }

    /** Writes what is pending without waiting; returns the bytes written. */
    int flush(long now) throws IOException {
        writable = false;
        int n = 0;
        if (outStart < outLen) {
            out.limit(outLen);
            out.position(outStart);
            int w = link.ch.write(out);
            n += w;
            outStart += w;
            if (outStart < outLen) {
                txBlocked = true;
                if (n > 0) {
                    lastTxNanos = now;
                }
                return n;
            }
            outStart = 0;
            outLen = 0;
            urgent = false;
            acksOwed = 0;
        }
        while (bigLeft > 0) {
            ByteBuffer v;
            if (bigSeg != null) {
                v = ioViews.view(bigSeg, 1, bigOff, bigLeft);
            } else {
                Buf b = bigBuf;
                if (b == null) {
                    throw new IOException("payload list shorter than its length");
                }
                long avail = b.dataLen() - bigBufOff;
                if (avail <= 0) {
                    bigBuf = b.next();
                    bigBufOff = 0;
                    continue;
                }
                v = ioViews.view(b.segment(), 1, b.dataOffset() + bigBufOff, Math.min(avail, bigLeft));
            }
            int w = link.ch.write(v);
            if (w == 0) {
                txBlocked = true;
                if (n > 0) {
                    lastTxNanos = now;
                }
                return n;
            }
            n += w;
            bigLeft -= w;
            if (bigSeg != null) {
                bigOff += w;
            } else {
                bigBufOff += w;
            }
        }
        bigBuf = null;
        bigSeg = null;
        txBlocked = false;
        if (n > 0) {
            lastTxNanos = now;
        }
        return n;
    }

    // ------------------------------------------------------------------ responses (queued by the receiver)

    /** A one-sided operation's response: it leaves at once (the requester waits for it). */
    void respond(int op, long seq, int status, long len, MemoryMap m, long off) {
        resp.init(op).seq(seq).status(status).length(len);
        queueResponse(len, m, off);
    }

    /** An atomic's response carrying the old value. */
    void respondAtomic(long seq, int status, long old) {
        resp.init(TcpFrame.OP_ATOMIC_RESP).seq(seq).status(status).mapId(old);
        queueResponse(0, null, 0);
    }

    /**
     * A message's acknowledgement (SEND, WRITE_IMM): the local application was just handed the
     * message and often answers at once, so the acknowledgement waits up to
     * {@link TcpEndpoint#ACK_DELAY_NANOS} (or {@link #ACK_BATCH} of them) for that answer to ride with.
     */
    void acknowledgeMessage(long seq, int status) {
        resp.init(TcpFrame.OP_ACK).seq(seq).status(status).length(0);
        boolean wasUrgent = urgent;
        queueResponse(0, null, 0);
        urgent = wasUrgent;
        if (acksOwed++ == 0) {
            acksOwedSince = System.nanoTime();
        }
    }

    /**
     * Queues the response in {@link #resp} with {@code len} payload bytes at {@code off} of {@code m}'s memory
     * (none when {@code m} is null); the caller checked the room. Payloads above {@link TcpEndpoint#COALESCE}
     * stream straight from the exported memory behind the header.
     */
    private void queueResponse(long len, MemoryMap m, long off) {
        MemorySegment.copy(respSeg, 0, outSeg, outLen, TcpFrame.SIZE);
        outLen += TcpFrame.SIZE;
        urgent = true;
        if (m != null && len > 0) {
            if (len <= TcpEndpoint.COALESCE) {
                MemorySegment.copy(m.segment(), off, outSeg, outLen, len);
                outLen += (int) len;
            } else {
                bigBuf = null;
                bigSeg = m.segment();
                bigOff = off;
                bigLeft = len;
            }
        }
    }

    // ------------------------------------------------------------------ keepalive and goodbye

    /** A heartbeat when nothing was sent for {@link TcpEndpoint#HEARTBEAT_NANOS} and nothing waits to leave. */
    void heartbeatIfIdle(long now) throws IOException {
        if (now - lastTxNanos > TcpEndpoint.HEARTBEAT_NANOS && !pendingOut() && canQueue(TcpFrame.SIZE)) {
            resp.init(TcpFrame.OP_HEARTBEAT);
            MemorySegment.copy(respSeg, 0, outSeg, outLen, TcpFrame.SIZE);
            outLen += TcpFrame.SIZE;
            urgent = true;
            flush(now);
        }
    }

    /**
     * An orderly close: the pending frames (a frame must not be cut) and a disconnect frame, best
     * effort and bounded (the socket closes right after either way; queued acknowledgements are
     * dropped with it, the peer's tasks end with the connection anyway).
     */
    void sayGoodbye() {
        try {
            long giveUp = System.nanoTime() + 10_000_000L;
            if (canQueue(TcpFrame.SIZE)) {
                resp.init(TcpFrame.OP_DISCONNECT);
                MemorySegment.copy(respSeg, 0, outSeg, outLen, TcpFrame.SIZE);
                outLen += TcpFrame.SIZE;
            }
            while (pendingOut() && System.nanoTime() - giveUp < 0) {
                if (flush(System.nanoTime()) == 0) {
                    LockSupport.parkNanos(10_000); // control path (an orderly close, at most 10 ms), not the data path
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // closing anyway
        }
    }
}
