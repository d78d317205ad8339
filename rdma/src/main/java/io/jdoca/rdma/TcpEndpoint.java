package io.jdoca.rdma;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.PeerLiveness;
import io.jdoca.core.SilenceMeter;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.ring.SpscRing;
import io.jdoca.rdma.wire.TcpFrame;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The TCP transport of one connection: one non-blocking socket, serviced by whichever thread is at
 * hand. The engine thread writes request frames ({@link TcpFrame}) straight from registered memory
 * (cached direct views; payloads up to {@link #COALESCE} bytes are copied behind the header so that
 * a frame is one write and wakes the peer once) and records the task in an outstanding ring.
 *
 * <p><b>Receiving.</b> While the application polls, the engine thread reads the socket itself in
 * {@link #work()}: responses complete their tasks and the peer's requests are serviced against
 * this process's exported maps on that thread, with no hand-off (a round trip crosses no thread
 * boundary, which is what keeps it near a raw socket ping-pong on two cores). When the engine
 * sleeps in notification mode ({@link #beforeWait()}) or stops polling for
 * {@link #ENGINE_STALL_NANOS}, the context's {@link TcpTransportAgent} (one thread and one selector
 * for every socket of the context) takes over, so one-sided operations are still served like a NIC would without the application, and completions
 * wake the engine. Exactly one thread at a time owns the receive side ({@link #rxOwner}, a
 * try-acquire flag that never waits); the receive parser is a resumable state machine, so
 * ownership can move between frames or in the middle of a payload.
 *
 * <p>Frames never interleave on the socket: writers take a frame-writer exclusion (see
 * {@link #lockFrames()}). Liveness ({@link PeerLiveness}): a killed peer is seen at once, by the
 * reader (EOF, RST). The agent's keepalive deadline sends a heartbeat every {@link #HEARTBEAT_NANOS} on idle
 * connections, only when the frame-writer exclusion is free and never waiting on a full socket, so
 * it neither blocks the engine nor is needed while data flows (any frame is traffic); it declares
 * the peer dead only after {@link PeerLiveness#timeoutNanos()} of silence counted by a
 * {@link SilenceMeter} (this process's own stalls are not the peer's silence) and only if no byte
 * from the peer is waiting unread in the socket (a slow reader here is not a dead peer there).
 */
final class TcpEndpoint extends RdmaEndpoint {
    private static final System.Logger LOG = System.getLogger(TcpEndpoint.class.getName());
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    static final long HEARTBEAT_NANOS = 200_000_000L;
    /** Most silence one keepalive tick may count (it ticks every {@code HEARTBEAT_NANOS / 2}). */
    static final long SILENCE_CREDIT_NANOS = 2 * HEARTBEAT_NANOS;
    private static final int SOCKET_BUFFER = 4 << 20;
    /**
     * Payloads up to this size are copied behind the header and leave in one write. A header sent
     * alone wakes the peer's reader for 64 bytes and the payload wakes it again: measured on
     * loopback, copying up to 64 KiB to avoid that doubles 64 KiB write and read throughput (0.55-0.64x
     * of a raw socket stream with two writes, 1.3-1.4x with one). One write without the copy would be
     * a gathering write, and NIO allocates a scope releaser per call for segment-backed buffers.
     * Larger payloads go straight from registered memory after their header.
     */
    static final int COALESCE = Integer.getInteger("jdoca.rdma.tcp.coalesce", 64 * 1024);
    private static final int RX_BUFFER = 64 * 1024;
    private static final int OUT_BATCH = Math.max(32 * 1024, 2 * (TcpFrame.SIZE + COALESCE));
    /**
     * Most bytes one read-ahead asks for. One read brings many small frames (acknowledgements,
     * small messages); a large payload beyond it is read straight into its destination rather than
     * copied out of the read-ahead buffer.
     */
    private static final int READ_AHEAD = 16 * 1024;
    /** Payload remainders at least this long are read straight into their destination. */
    private static final int DIRECT_MIN = 2048;
    /** Frames and payload bytes one pump handles before returning, so one busy connection cannot starve the engine. */
    private static final int PUMP_FRAMES = 256;
    private static final long PUMP_BYTES = 4L << 20;
    /** The transport agent takes the receive side over when the engine has not polled for this long. */
    static final long ENGINE_STALL_NANOS = 1_000_000L;
    /** Longer than this without an engine tick (and not asleep), the engine is paused: RNR time does not run. */
    static final long ENGINE_PAUSE_NANOS = 100_000_000L;
    /** Most RNR wait one check may count (checks come every 50 us while waiting; a late one saw nothing in between). */
    static final long RNR_CREDIT_NANOS = 10_000_000L;
    /** Longest an acknowledgement queued by the engine's pump waits for a request to ride with. */
    static final long ACK_DELAY_NANOS = 20_000L;
    private static final int ACK_BATCH = 16;
    /** While a send waits for a posted receive, the transport agent re-checks this often. */
    private static final long RNR_RECHECK_NANOS = 50_000L;
    /** {@link #ioService} result: the connection has ended; the agent drops it. */
    static final long IO_DONE = -1;
    /** While the engine holds the receive side, the agent looks again after this long. */
    private static final long RX_BUSY_RECHECK_NANOS = 20_000L;

    // receive parser states
    private static final int RX_HEADER = 0;
    private static final int RX_PAYLOAD = 1;
    private static final int RX_AWAIT_RECV = 2;
    // what completes a frame once its payload is in
    private static final int AFTER_RESPONSE = 0;
    private static final int AFTER_SEND = 1;
    private static final int AFTER_WRITE = 2;
    private static final int AFTER_NAK = 3;

    private final SocketChannel ch;
    private final SpscRing outstanding;
    private final SpscRing completions;
    // ---- engine-thread side
    private final ByteBuffer txHdr;
    private final MemorySegment txSeg;
    private final TcpFrame tx = new TcpFrame();
    private final SegmentViews txViews;
    private final int txViewSlots;
    private long nextSeq;
    private volatile boolean closing;
    private DocaError closeReason;
    private boolean flushed;
    private final AtomicLong engineTicks = new AtomicLong();
    private volatile boolean engineSleeping;
    // ---- receive side: touched only by the thread holding rxOwner
    private final AtomicInteger rxOwner = new AtomicInteger();
    private final ByteBuffer rxHdr;
    private final MemorySegment rxHdrSeg;
    private final ByteBuffer rxBuf = ByteBuffer.allocateDirect(RX_BUFFER);
    private final MemorySegment rxSeg = MemorySegment.ofBuffer(rxBuf);
    private int rPos;
    private int rLim;
    private final TcpFrame rx = new TcpFrame();
    /** Header scratch for responses; the receive side's owner only. */
    private final MemorySegment respSeg = MemorySegment.ofBuffer(ByteBuffer.allocateDirect(TcpFrame.SIZE));
    /**
     * Outgoing batch (under the frame-writer exclusion): responses queue here and leave together at
     * the end of a pump or of the engine's duty cycle, or ride along with the engine's next request,
     * so a burst of acknowledgements costs one system call, and an echo's acknowledgement and the
     * echo itself leave in one.
     */
    private final ByteBuffer out = ByteBuffer.allocateDirect(OUT_BATCH);
    private final MemorySegment outSeg = MemorySegment.ofBuffer(out);
    private int outLen;
    /**
     * Engine thread: responses its own pump queued. They wait (delayed acknowledgement) for the
     * engine's next request to ride along with, at most {@link #ACK_DELAY_NANOS} or
     * {@link #ACK_BATCH} responses, and never across a sleep.
     */
    private boolean engineOwesFlush;
    /** Engine thread: requests submitted during the duty cycle wait in the batch for {@link #afterWork()}. */
    private boolean txHeld;
    private long owedSince;
    private int owedCount;
    private final TcpFrame resp = new TcpFrame();
    private final SegmentViews ioViews = new SegmentViews(2);
    private int rxState = RX_HEADER;
    /** Set when a pump stopped on its budget with input left: the engine must not sleep on it. */
    private volatile boolean rxMore;
    private boolean pumpOnIo;
    private long pumpBytes;
    // the frame in progress
    private int fOp;
    private long fSeq;
    private long fLen;
    private int fImm;
    private DocaError fSt;
    private int after;
    /** Receive side, waiting for a posted receive: the wait counted, the last check, the engine tick seen and when it moved. */
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
    /** The context's transport agent, which serves this socket while the engine does not (null: not started). */
    private TcpTransportAgent agent;
    /** Agent thread: this socket's key in the agent's selector (interest OP_READ, fixed). */
    private SelectionKey key;
    /**
     * The agent watches the socket for a sleeping engine: it will sleep in its selector, which wakes
     * it on input, rather than park (it parks, for at most {@link #ENGINE_STALL_NANOS}, while the
     * engine polls: the engine reads the socket itself then, and the interest need not change).
     */
    private volatile boolean ioWatching;
    /** Agent thread: the engine tick last seen and when it moved (engine-stall detection). */
    private long seenTicks = -1;
    private long seenTicksNanos;
    // ---- shared
    private volatile boolean ioExited;
    private volatile DocaError broken;
    private volatile String brokenWhy;
    private volatile long lastRxNanos = System.nanoTime();
    private volatile long lastTxNanos = System.nanoTime();
    /** Silence timeout of this connection, fixed when it is made ({@link PeerLiveness#timeoutNanos()}). */
    private final long deadNanos = PeerLiveness.timeoutNanos();
    /** Agent thread only: the peer's silence as the keepalive saw it. */
    private SilenceMeter silence;
    /** Frame-writer exclusion: a frame is several write calls (see {@link #lockFrames()}). */
    private final AtomicInteger frameLock = new AtomicInteger();

    TcpEndpoint(Rdma rdma, RdmaConnection conn, SocketChannel ch, int sendQueueSize, int recvQueueSize, int maxList) {
        super(rdma, conn);
        this.ch = ch;
        this.outstanding = new SpscRing(sendQueueSize);
        this.completions = new SpscRing(outstanding.capacity() + recvQueueSize + 2);
        this.txHdr = ByteBuffer.allocateDirect(TcpFrame.SIZE + COALESCE);
        this.txSeg = MemorySegment.ofBuffer(txHdr);
        this.tx.wrap(txSeg.asSlice(0, TcpFrame.SIZE));
        this.txViews = new SegmentViews(Math.max(1, maxList));
        this.txViewSlots = Math.max(1, maxList);
        this.rxHdr = ByteBuffer.allocateDirect(TcpFrame.SIZE);
        this.rxHdrSeg = MemorySegment.ofBuffer(rxHdr);
        this.rx.wrap(rxHdrSeg);
        this.resp.wrap(respSeg);
    }

    static void configure(SocketChannel ch) throws IOException {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
        ch.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
        ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
    }

    /**
     * Control path, engine thread: switches the socket to non-blocking and hands it to the
     * context's transport {@code agent}, which serves it whenever the engine does not poll.
     */
    void startIo(TcpTransportAgent agent) {
        if (agent == null) {
            markBroken(DocaError.CONNECTION_RESET, "no tcp transport agent to serve the socket");
            ioExited = true;
            return;
        }
        try {
            ch.configureBlocking(false);
        } catch (IOException | RuntimeException e) {
            markBroken(DocaError.CONNECTION_RESET, "cannot set up the socket: " + e);
            ioExited = true;
            return;
        }
        this.agent = agent;
        if (!agent.add(this)) {
            this.agent = null;
            markBroken(DocaError.CONNECTION_RESET, "too many connections for the tcp transport agent");
            ioExited = true;
        }
    }

    // ================================================================== engine thread

    @Override
    DocaError submit(RdmaTask t) {
        if (closing) {
            return DocaError.NOT_CONNECTED;
        }
        t.seq = nextSeq++;
        // Recorded before the write: the response may arrive before write() returns.
        if (!outstanding.offer(t)) {
            nextSeq--;
            return DocaError.AGAIN;
        }
        try {
            transmit(t);
        } catch (IOException | RuntimeException e) {
            markBroken(DocaError.CONNECTION_RESET, "write failed: " + e.getMessage());
        }
        return DocaError.SUCCESS;
    }

    private void transmit(RdmaTask t) throws IOException {
        TcpFrame f = tx;
        Buf payload = null;
        if (t.result != DocaError.SUCCESS) {
            f.init(TcpFrame.OP_NOP).status(t.result.code());
        } else {
            switch (t.kind) {
                case RdmaTask.K_SEND, RdmaTask.K_SEND_IMM -> {
                    f.init(t.kind == RdmaTask.K_SEND ? TcpFrame.OP_SEND : TcpFrame.OP_SEND_IMM).immediate(t.immediate)
                            .length(t.len);
                    payload = t.local;
                }
                case RdmaTask.K_WRITE, RdmaTask.K_WRITE_IMM -> {
                    f.init(t.kind == RdmaTask.K_WRITE ? TcpFrame.OP_WRITE : TcpFrame.OP_WRITE_IMM).immediate(t.immediate)
                            .mapId(t.rMapId).addr(t.rAddr).length(t.len).cap(t.rCap0, t.rCap1);
                    payload = t.local;
                }
                case RdmaTask.K_READ, RdmaTask.K_SE_GET -> f.init(TcpFrame.OP_READ_REQ).mapId(t.rMapId).addr(t.rAddr)
                        .length(t.len).cap(t.rCap0, t.rCap1);
                case RdmaTask.K_CAS -> f.init(TcpFrame.OP_CAS).mapId(t.rMapId).addr(t.rAddr).operand(t.operand).swap(t.swap)
                        .cap(t.rCap0, t.rCap1);
                case RdmaTask.K_FADD, RdmaTask.K_SE_ADD -> f.init(TcpFrame.OP_FADD).mapId(t.rMapId).addr(t.rAddr)
                        .operand(t.operand).cap(t.rCap0, t.rCap1);
                case RdmaTask.K_SE_SET -> f.init(TcpFrame.OP_SET).mapId(t.rMapId).addr(t.rAddr)
                        .operand(t.local.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, t.local.dataOffset()))
                        .cap(t.rCap0, t.rCap1);
                default -> f.init(TcpFrame.OP_NOP).status(DocaError.UNEXPECTED.code());
            }
        }
        f.seq(t.seq);
        lockFrames();
        try {
            txHdr.clear();
            int small = TcpFrame.SIZE + (payload == null ? 0 : (int) Math.min(t.len, COALESCE + 1));
            boolean batch = payload == null || t.len <= COALESCE;
            if (batch && (outLen > 0 || rdma.inWork())) {
                // Joins the queued frames. Submitted from a completion callback (inWork), it waits
                // for the end of the duty cycle, so the requests a burst of completions re-arms and
                // the acknowledgements owed leave in one system call (a NIC's doorbell batching);
                // otherwise it leaves now, with whatever was queued.
                if (outLen + small > OUT_BATCH) {
                    flushOut();
                }
                if (payload != null) {
                    BufCopy.gather(payload, 0, txSeg, TcpFrame.SIZE, t.len);
                }
                MemorySegment.copy(txSeg, 0, outSeg, outLen, small);
                outLen += small;
                if (rdma.inWork()) {
                    txHeld = true;
                } else {
                    flushOut();
                    engineOwesFlush = false;
                }
                return;
            }
            flushOut();
            engineOwesFlush = false;
            txHeld = false;
            if (payload == null) {
                txHdr.limit(TcpFrame.SIZE);
                writeFully(txHdr);
            } else if (t.len <= COALESCE) {
                BufCopy.gather(payload, 0, txSeg, TcpFrame.SIZE, t.len);
                txHdr.limit(TcpFrame.SIZE + (int) t.len);
                writeFully(txHdr);
            } else {
                // Header, then the payload straight from registered memory. Not one gathering write:
                // NIO allocates a scope releaser per segment-backed buffer on every gathering call.
                txHdr.limit(TcpFrame.SIZE);
                writeFully(txHdr);
                int slot = 0;
                for (Buf b = payload; b != null; b = b.next()) {
                    if (b.dataLen() > 0) {
                        writeFully(txViews.view(b.segment(), slot++ % txViewSlots, b.dataOffset(), b.dataLen()));
                    }
                }
            }
        } finally {
            unlockFrames();
        }
    }

    /**
     * Takes the frame-writer exclusion. The engine thread (requests), the receive side's owner
     * (responses) and the keepalive share the socket's sending side, and a frame may take several
     * write calls. Held only around the system calls; spins, then yields, never parks.
     */
    private void lockFrames() {
        int spins = 0;
        while (!frameLock.compareAndSet(0, 1)) {
            if (++spins < 64) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }

    private void unlockFrames() {
        frameLock.set(0);
    }

    /** The socket is non-blocking: a full send buffer backs off (spin, yield, then short parks) until the peer reads. */
    private void writeFully(ByteBuffer b) throws IOException {
        int idle = 0;
        while (b.hasRemaining()) {
            if (ch.write(b) == 0) {
                backoff(++idle);
            } else {
                idle = 0;
            }
        }
        lastTxNanos = System.nanoTime();
    }

    private static void backoff(int idle) {
        if (idle < 64) {
            Thread.onSpinWait();
        } else if (idle < 128) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(20_000);
        }
    }

    @Override
    int work() {
        engineTicks.lazySet(engineTicks.getPlain() + 1);
        if (engineSleeping) {
            engineSleeping = false;
        }
        int n = drainCompletions();
        if (!closing && broken == null && agent != null && rxOwner.compareAndSet(0, 1)) {
            try {
                pump(false);
            } finally {
                rxOwner.set(0);
            }
            n += drainCompletions();
        }
        if (engineOwesFlush && (owedCount >= ACK_BATCH || System.nanoTime() - owedSince >= ACK_DELAY_NANOS)) {
            engineOwesFlush = false;
            flushResponses();
        }
        DocaError b = broken;
        if (b != null && !closing) {
            close(b);
            rdma.connectionBroken(conn, b, brokenWhy);
        }
        if (closing && ioExited && !flushed) {
            n += drainCompletions();
            Object o;
            while ((o = outstanding.poll()) != null) {
                RdmaTask t = (RdmaTask) o;
                t.result = closeReason;
                n += finish(t);
            }
            flushed = true;
        }
        return n;
    }

    private int drainCompletions() {
        int n = 0;
        Object o;
        while ((o = completions.poll()) != null) {
            n += finish((RdmaTask) o);
        }
        return n;
    }

    private int finish(RdmaTask t) {
        DocaError r = t.result;
        if (r == DocaError.SUCCESS && (t.kind == RdmaTask.K_WRITE || t.kind == RdmaTask.K_WRITE_IMM)) {
            t.remote.appendData(t.len);
        }
        rdma.done(t, r);
        if (r == DocaError.TIME_OUT && t.kind != RdmaTask.K_RECV && !closing) {
            markBroken(DocaError.CONNECTION_RESET, "receiver not ready: the peer posted no receive task within "
                    + rdma.rnrTimeoutNanos() / 1_000_000 + " ms (RNR retries exceeded)");
            close(DocaError.CONNECTION_RESET);
            rdma.connectionBroken(conn, DocaError.CONNECTION_RESET, brokenWhy);
        }
        return 1;
    }

    @Override
    boolean hasPendingWork() {
        return !completions.isEmpty() || rxMore || (broken != null && !closing) || (closing && ioExited && !flushed);
    }

    @Override
    void afterWork() {
        if (txHeld && !closing) {
            txHeld = false;
            engineOwesFlush = false;
            flushResponses();
        }
    }

    /** The engine goes to sleep: hand the receive side to the transport agent now rather than after a stall. */
    void beforeWait() {
        if ((engineOwesFlush || txHeld) && !closing) {
            engineOwesFlush = false;
            txHeld = false;
            flushResponses();
        }
        if (!engineSleeping) {
            engineSleeping = true;
            TcpTransportAgent a = agent;
            // Already watching the socket: nothing to hand over (and no wake-up per engine nap).
            if (a != null && !ioWatching) {
                a.wake();
            }
        }
    }

    @Override
    void close(DocaError reason) {
        if (closing) {
            return;
        }
        closing = true;
        closeReason = reason;
        if (reason == DocaError.SHUTDOWN && broken == null) {
            if (frameLock.compareAndSet(0, 1)) {
                try {
                    // Queued responses are dropped: the peer's tasks end with the connection anyway,
                    // and flushing could wait on a peer that no longer reads.
                    outLen = 0;
                    tx.init(TcpFrame.OP_DISCONNECT);
                    txHdr.clear().limit(TcpFrame.SIZE);
                    // Best effort and bounded: the socket closes right after either way.
                    for (int i = 0; i < 1000 && txHdr.hasRemaining(); i++) {
                        if (ch.write(txHdr) == 0) {
                            LockSupport.parkNanos(10_000);
                        }
                    }
                } catch (IOException | RuntimeException ignored) {
                    // closing anyway
                } finally {
                    unlockFrames();
                }
            }
        }
        try {
            ch.close();
        } catch (IOException ignored) {
            // the agent sees the close either way
        }
        TcpTransportAgent a = agent;
        if (a == null) {
            ioExited = true;
        } else {
            a.wake();
        }
    }

    @Override
    boolean isDrained() {
        return closing && ioExited && flushed && completions.isEmpty();
    }

    @Override
    void release() {
        // Direct buffers are freed by their cleaners; the agent cancelled the socket's key when it let it go.
    }

    @Override
    long maxSleepNanos() {
        // The agent wakes the engine on every completion; poll now and then for the keepalive's verdict.
        return 50_000_000L;
    }

    /** Why the connection broke (the liveness rule that fired), or null; tests and logs. */
    String brokenWhy() {
        return brokenWhy;
    }

    private void markBroken(DocaError reason, String why) {
        if (broken == null) {
            brokenWhy = why;
            broken = reason;
        }
        rdma.pe().notifyWork();
    }

    // ================================================================== transport agent

    /** Agent thread: registers the socket with the agent's selector; false if it cannot. */
    boolean attach(Selector selector, long now) {
        silence = new SilenceMeter(now, lastRxNanos, SILENCE_CREDIT_NANOS);
        try {
            key = ch.register(selector, SelectionKey.OP_READ, this);
            return true;
        } catch (IOException | RuntimeException e) {
            if (!closing) {
                markBroken(DocaError.CONNECTION_RESET, "cannot watch the socket: " + e);
            }
            finishIo();
            return false;
        }
    }

    /** Agent thread: the agent lets the socket go (its key leaves the selector). */
    void detach() {
        SelectionKey k = key;
        if (k != null) {
            k.cancel();
            key = null;
        }
    }

    /**
     * Agent thread: one look at this connection. While the engine polls (its tick moves and it is not
     * asleep) the engine reads the socket itself and the agent only watches the tick; when the engine
     * sleeps or has stalled for {@link #ENGINE_STALL_NANOS}, the agent takes the receive side (never
     * waiting for it), services what the socket holds and flushes the responses, then watches the
     * socket in its selector. Returns {@link #IO_DONE} once the connection has ended (what the
     * receive side held mid-frame is completed), 0 when there is more to do at once, else the longest
     * the agent may sleep before looking again (up to {@link #ENGINE_STALL_NANOS}: a park, which
     * input does not end; longer: in the selector).
     */
    long ioService(long now) {
        if (closing || broken != null) {
            finishIo();
            return IO_DONE;
        }
        if (!engineSleeping) {
            long t = engineTicks.get();
            if (t != seenTicks) {
                seenTicks = t;
                seenTicksNanos = now;
            }
            long since = now - seenTicksNanos;
            if (since < ENGINE_STALL_NANOS) {
                ioWatching = false;
                return ENGINE_STALL_NANOS - since;
            }
        }
        if (!rxOwner.compareAndSet(0, 1)) {
            return RX_BUSY_RECHECK_NANOS;
        }
        int state;
        boolean more;
        try {
            pump(true);
            flushResponses();
        } finally {
            state = rxState;
            more = rxMore;
            rxOwner.set(0);
        }
        if (more || closing || broken != null) {
            return 0;
        }
        if (state == RX_AWAIT_RECV) {
            return RNR_RECHECK_NANOS;
        }
        ioWatching = true;
        return Long.MAX_VALUE;
    }

    /** Agent thread: the connection ended; the receive side is taken for good and the engine told. */
    private void finishIo() {
        while (!rxOwner.compareAndSet(0, 1)) {
            Thread.onSpinWait();
        }
        abandonRx();
        ioExited = true;
        rdma.pe().notifyWork();
    }

    /** Completes what the receive side held mid-frame (a receive being filled, a read response being read). */
    private void abandonRx() {
        RdmaTaskReceive r = pRecv;
        if (r != null) {
            pRecv = null;
            r.result = DocaError.CONNECTION_RESET;
            completions.offer(r);
        }
        RdmaTask t = pTask;
        if (t != null) {
            pTask = null;
            t.result = DocaError.CONNECTION_RESET;
            completions.offer(t);
        }
    }

    // ================================================================== receive side (rxOwner held)

    /**
     * Handles every whole frame available without blocking, within a budget; a failure marks the
     * connection broken. {@code onIo}: called on the transport agent (completions must wake the engine).
     */
    private void pump(boolean onIo) {
        pumpOnIo = onIo;
        pumpBytes = 0;
        boolean more = false;
        try {
            int frames = 0;
            loop:
            while (true) {
                switch (rxState) {
                    case RX_HEADER -> {
                        if (frames >= PUMP_FRAMES || pumpBytes >= PUMP_BYTES) {
                            more = true;
                            break loop;
                        }
                        if (!haveHeader()) {
                            break loop;
                        }
                        MemorySegment.copy(rxSeg, rPos, rxHdrSeg, 0, TcpFrame.SIZE);
                        rPos += TcpFrame.SIZE;
                        frames++;
                        dispatch();
                    }
                    case RX_PAYLOAD -> {
                        if (!fillSink()) {
                            more = pumpBytes >= PUMP_BYTES;
                            break loop;
                        }
                        completeFrame();
                    }
                    default -> {
                        if (!claimRecv()) {
                            break loop;
                        }
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            more = false;
            if (!closing) {
                markBroken(DocaError.CONNECTION_RESET, lostBecause(e));
            }
        }
        rxMore = more;
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
        int n = ch.read(rxBuf);
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
                moved = move(b.segment(), b.tailOffset(), Math.min(room, pLeft));
                b.appendData(moved);
            } else if (pSeg != null) {
                moved = move(pSeg, pOff, pLeft);
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
    private long move(MemorySegment seg, long off, long n) throws IOException {
        long buffered = rLim - rPos;
        if (buffered == 0) {
            if (n >= DIRECT_MIN) {
                int r = ch.read(ioViews.view(seg, 0, off, n));
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
        rxState = RX_PAYLOAD;
    }

    private void sinkRange(MemorySegment seg, long off, long len) {
        pBuf = null;
        pSeg = seg;
        pOff = off;
        pLeft = len;
        rxState = RX_PAYLOAD;
    }

    private void sinkDrain(long len) {
        pBuf = null;
        pSeg = null;
        pLeft = len;
        rxState = RX_PAYLOAD;
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
                after = AFTER_SEND;
                rnrStart();
                rxState = RX_AWAIT_RECV;
            }
            case TcpFrame.OP_WRITE, TcpFrame.OP_WRITE_IMM -> onWrite(f);
            case TcpFrame.OP_READ_REQ -> onRead(f);
            case TcpFrame.OP_CAS, TcpFrame.OP_FADD, TcpFrame.OP_SET -> onAtomic(f, op);
            case TcpFrame.OP_NOP -> respond(TcpFrame.OP_ACK, f.seq(), f.status(), 0, null, 0);
            case TcpFrame.OP_HEARTBEAT, TcpFrame.OP_HELLO -> {
            }
            case TcpFrame.OP_DISCONNECT -> throw new EOFException(DISCONNECT);
            default -> throw new IOException("protocol error: unknown opcode " + op);
        }
    }

    private void onResponse(TcpFrame f, int op) throws IOException {
        RdmaTask t = (RdmaTask) outstanding.poll();
        if (t == null || t.seq != f.seq()) {
            throw new IOException("protocol error: response " + f.seq() + " does not match a request");
        }
        int status = f.status();
        DocaError r = t.result == DocaError.SUCCESS ? DocaError.fromCode(status) : t.result;
        long len = op == TcpFrame.OP_READ_RESP ? f.length() : 0;
        if (op == TcpFrame.OP_READ_RESP && len > 0) {
            pTask = t;
            after = AFTER_RESPONSE;
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
    private boolean claimRecv() throws IOException {
        RdmaTaskReceive r = rdma.pollPostedRecv();
        if (r == null) {
            long now = System.nanoTime();
            long gap = Math.min(Math.max(0, now - rnrCheckNanos), RNR_CREDIT_NANOS);
            rnrCheckNanos = now;
            long ticks = engineTicks.get();
            if (ticks != rnrTicks || engineSleeping) {
                rnrTicks = ticks;
                rnrTicksNanos = now;
            }
            // The RNR time runs only while the engine (the only thread that posts receives) runs, in
            // small steps this side saw: a GC pause or a starved process is not a receiver without
            // receives (issue 12).
            if (now - rnrTicksNanos <= ENGINE_PAUSE_NANOS) {
                rnrWaitNanos += gap;
            }
            if (rnrWaitNanos <= rdma.rnrTimeoutNanos() && !closing) {
                return false;
            }
            // Retries exhausted: the payload (a send's) is dropped and the requester told.
            if (after == AFTER_SEND) {
                after = AFTER_NAK;
                sinkDrain(fLen);
            } else {
                respond(TcpFrame.OP_ACK, fSeq, DocaError.TIME_OUT.code(), 0, null, 0);
                rxState = RX_HEADER;
            }
            return true;
        }
        if (after == AFTER_SEND) {
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
            respond(TcpFrame.OP_ACK, fSeq, fSt.code(), 0, null, 0);
            rxState = RX_HEADER;
        }
        return true;
    }

    /** The frame's payload is all in: complete what it was for. */
    private void completeFrame() throws IOException {
        rxState = RX_HEADER;
        pBuf = null;
        pSeg = null;
        switch (after) {
            case AFTER_RESPONSE -> {
                RdmaTask t = pTask;
                pTask = null;
                t.result = fSt;
                handOver(t);
            }
            case AFTER_SEND -> {
                RdmaTaskReceive r = pRecv;
                deliverRecv(r, fSt, fOp == TcpFrame.OP_SEND ? RdmaOpcode.SEND : RdmaOpcode.SEND_WITH_IMM, fImm, fLen);
                respond(TcpFrame.OP_ACK, fSeq, fSt.code(), 0, null, 0);
            }
            case AFTER_WRITE -> {
                if (fOp == TcpFrame.OP_WRITE_IMM && fSt == DocaError.SUCCESS) {
                    rnrStart();
                    rxState = RX_AWAIT_RECV;
                } else {
                    respond(TcpFrame.OP_ACK, fSeq, fSt.code(), 0, null, 0);
                }
            }
            default -> respond(TcpFrame.OP_ACK, fSeq, DocaError.TIME_OUT.code(), 0, null, 0);
        }
    }

    private void handOver(RdmaTask t) {
        completions.offer(t);
        if (pumpOnIo) {
            rdma.pe().notifyWork();
        }
    }

    private void deliverRecv(RdmaTaskReceive r, DocaError st, RdmaOpcode opc, int imm, long len) {
        r.result = st;
        r.opcode = opc;
        r.immediate = imm;
        r.resultLen = len;
        r.conn = conn;
        pRecv = null;
        handOver(r);
    }

    private static final int DENIED_UNKNOWN_MAP = 1;
    private static final int DENIED_CAPABILITY = 2;
    /** Refused one-sided requests are logged at most this often per connection. */
    private static final long DENIED_LOG_NANOS = 1_000_000_000L;
    // rate limit of the refusal log line: receive side's owner only
    private long deniedLoggedAt = System.nanoTime() - DENIED_LOG_NANOS;
    private long deniedSince;

    /**
     * A one-sided request named a map that is not exported here or presented the wrong capability:
     * NOT_PERMITTED goes back to the requester. Logs at most once per {@link #DENIED_LOG_NANOS}
     * (with the count since the last line), so a hostile peer cannot flood the log; allocates only
     * when it logs.
     */
    private DocaError denied(int why, long mapId) {
        deniedSince++;
        long now = System.nanoTime();
        if (now - deniedLoggedAt >= DENIED_LOG_NANOS) {
            deniedLoggedAt = now;
            LOG.log(System.Logger.Level.WARNING, "rdma connection " + conn.id + ": refused a one-sided request from "
                    + peerName() + " for map " + Long.toHexString(mapId) + ": "
                    + (why == DENIED_UNKNOWN_MAP ? "no such exported map" : "wrong capability") + " ("
                    + deniedSince + " refused since the last report)");
            deniedSince = 0;
        }
        return DocaError.NOT_PERMITTED;
    }

    private String peerName() {
        try {
            return String.valueOf(ch.getRemoteAddress());
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
            return denied(m == null ? DENIED_UNKNOWN_MAP : DENIED_CAPABILITY, f.mapId());
        }
        if (!m.isStarted() || m.segment() == null) {
            return DocaError.NOT_PERMITTED;
        }
        if ((m.permissions() & flag) == 0 || (rdma.permissions() & flag) == 0) {
            return DocaError.NOT_PERMITTED;
        }
        if (!m.contains(addr, len)) {
            return DocaError.INVALID_VALUE;
        }
        return DocaError.SUCCESS;
    }

    private void onWrite(TcpFrame f) throws IOException {
        long len = f.length();
        long addr = f.addr();
        fLen = len;
        fImm = f.immediate();
        after = AFTER_WRITE;
        MemoryMap m = MemoryMap.findExported(f.mapId());
        DocaError st = check(m, f, addr, len, AccessFlags.RDMA_WRITE);
        fSt = st;
        if (st == DocaError.SUCCESS) {
            sinkRange(m.segment(), addr - m.baseAddress(), len);
        } else {
            sinkDrain(len);
        }
    }

    private void onRead(TcpFrame f) throws IOException {
        long seq = f.seq();
        long len = f.length();
        long addr = f.addr();
        MemoryMap m = MemoryMap.findExported(f.mapId());
        DocaError st = check(m, f, addr, len, AccessFlags.RDMA_READ);
        if (st == DocaError.SUCCESS) {
            respond(TcpFrame.OP_READ_RESP, seq, 0, len, m, addr - m.baseAddress());
        } else {
            respond(TcpFrame.OP_READ_RESP, seq, st.code(), 0, null, 0);
        }
    }

    private void onAtomic(TcpFrame f, int op) throws IOException {
        long seq = f.seq();
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
        resp.init(TcpFrame.OP_ATOMIC_RESP).seq(seq).status(st.code()).mapId(old);
        queueResponse(0, null, 0);
    }

    private void respond(int op, long seq, int status, long len, MemoryMap m, long off) throws IOException {
        resp.init(op).seq(seq).status(status).length(len);
        queueResponse(len, m, off);
    }

    /**
     * Queues the response in {@link #resp} with {@code len} payload bytes at {@code off} of
     * {@code m}'s memory (none when {@code m} is null). Payloads above {@link #COALESCE} go out at
     * once, straight from the exported memory, behind the queued frames.
     */
    private void queueResponse(long len, MemoryMap m, long off) throws IOException {
        boolean inline = m == null || len <= COALESCE;
        int need = TcpFrame.SIZE + (m != null && inline ? (int) len : 0);
        lockFrames();
        try {
            if (outLen + need > OUT_BATCH) {
                flushOut();
            }
            MemorySegment.copy(respSeg, 0, outSeg, outLen, TcpFrame.SIZE);
            outLen += TcpFrame.SIZE;
            if (m != null && len > 0) {
                if (inline) {
                    MemorySegment.copy(m.segment(), off, outSeg, outLen, len);
                    outLen += (int) len;
                } else {
                    flushOut();
                    writeFully(ioViews.view(m.segment(), 1, off, len));
                }
            }
        } finally {
            unlockFrames();
        }
        if (!pumpOnIo) {
            if (engineOwesFlush) {
                owedCount++;
            } else {
                engineOwesFlush = true;
                owedSince = System.nanoTime();
                owedCount = 1;
            }
        }
    }

    /** Writes the queued frames; frame-writer exclusion held. */
    private void flushOut() throws IOException {
        if (outLen > 0) {
            out.clear().limit(outLen);
            outLen = 0;
            writeFully(out);
        }
    }

    private void flushResponses() {
        lockFrames();
        try {
            flushOut();
        } catch (IOException | RuntimeException e) {
            markBroken(DocaError.CONNECTION_RESET, "write failed: " + e.getMessage());
        } finally {
            unlockFrames();
        }
    }

    // ================================================================== keepalive

    /**
     * Agent thread, at every keepalive tick: the liveness verdict (a dead peer's connection is
     * closed, which the next look ends), else a heartbeat when nothing was sent for
     * {@link #HEARTBEAT_NANOS}.
     */
    void keepalive(ByteBuffer hb, long now) {
        if (closing || ioExited) {
            return;
        }
        String dead = silenceVerdict(now);
        if (dead != null) {
            declareDead(dead);
        } else if (now - lastTxNanos > HEARTBEAT_NANOS) {
            heartbeat(hb, now);
        }
    }

    /**
     * Agent thread: one liveness check at {@code now}; null while the peer counts as alive, else
     * the rule that fired. A peer is dead only when the silence counted by {@link #silence} passed
     * {@link #deadNanos} and none of its bytes wait unread in our socket (they would prove it alive
     * and this side slow). Package-private: tests drive it with a fake clock.
     */
    String silenceVerdict(long now) {
        SilenceMeter m = silence;
        if (m == null) {
            return null;
        }
        long silent = m.tick(now, lastRxNanos);
        if (silent <= deadNanos) {
            return null;
        }
        if (peerBytesWaiting()) {
            m.reset(now, lastRxNanos);
            return null;
        }
        return PeerLiveness.silentVerdict(silent, deadNanos);
    }

    /** Rare (a silence past the timeout): whether the socket holds input nobody has read yet. */
    private boolean peerBytesWaiting() {
        try (Selector probe = Selector.open()) {
            ch.register(probe, SelectionKey.OP_READ);
            return probe.selectNow() > 0;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private void declareDead(String why) {
        markBroken(DocaError.CONNECTION_RESET, why);
        try {
            ch.close();
        } catch (IOException ignored) {
            // the agent ends the connection either way
        }
    }

    /**
     * Agent thread: sends one heartbeat frame if the frame-writer exclusion is free. Never waits
     * on a full socket (a peer with our bytes unread has proof we live): it gives up unless part of
     * the frame left, and only that case (a frame must never be left half-written) waits, bounded
     * by the silence timeout.
     */
    private void heartbeat(ByteBuffer hb, long now) {
        if (!frameLock.compareAndSet(0, 1)) {
            return; // a writer is busy: its frames are traffic
        }
        try {
            hb.clear();
            if (ch.write(hb) == 0) {
                return;
            }
            long giveUp = now + deadNanos;
            while (hb.hasRemaining()) {
                if (ch.write(hb) == 0) {
                    if (System.nanoTime() - giveUp > 0) {
                        throw new IOException("peer has not read for " + deadNanos / 1_000_000 + " ms");
                    }
                    LockSupport.parkNanos(100_000L);
                }
            }
            lastTxNanos = now;
        } catch (IOException | RuntimeException ex) {
            LOG.log(System.Logger.Level.DEBUG, "heartbeat failed: " + ex);
            if (hb.position() > 0 && hb.hasRemaining()) {
                declareDead("heartbeat failed: " + ex.getMessage());
            }
        } finally {
            unlockFrames();
        }
    }

    /** Marks an orderly peer disconnect ({@link TcpFrame#OP_DISCONNECT}) apart from a bare EOF. */
    private static final String DISCONNECT = "disconnect frame";

    /** The rule a reader's failure fired, for the log (see {@link PeerLiveness.Rule}). */
    static String lostBecause(Throwable e) {
        if (e instanceof EOFException) {
            return DISCONNECT.equals(e.getMessage())
                    ? PeerLiveness.Rule.CLOSED.label() + ": the peer disconnected (disconnect frame)"
                    : PeerLiveness.Rule.EOF.label() + ": peer closed the connection";
        }
        String m = String.valueOf(e.getMessage());
        if (m.toLowerCase(java.util.Locale.ROOT).contains("reset")) {
            return PeerLiveness.Rule.RST.label() + ": connection reset by the peer (" + m + ")";
        }
        return "connection lost: " + e;
    }
}
