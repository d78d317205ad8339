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
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The TCP transport of one connection: one non-blocking socket whose only reader and only writer is
 * the context's {@link TcpTransportAgent} (the NIC of this transport), run by the engine's progress
 * (the default) or by a thread of its own ({@link TcpTransportAgent.Threading}). The engine side
 * never touches the socket: it hands submitted tasks to the agent through an SPSC ring ({@link #submit},
 * rung like a doorbell: once per duty cycle for tasks submitted from completion callbacks) and
 * takes completions back from another ({@link #work()}). There is no lock, no hand-over of the
 * receive side between threads, and the engine never waits on a full socket.
 *
 * <p><b>Sending</b> (agent): request frames ({@link TcpFrame}) and responses are appended to an
 * outgoing buffer (payloads up to {@link #COALESCE} bytes copied behind their header, so a frame is
 * one write and wakes the peer once) and leave together in one write; a larger payload streams
 * straight from registered or exported memory behind its header. Bytes the socket does not take now
 * stay pending (the agent then waits for writability in its selector); what cannot be queued waits
 * in the submission ring, and the receive side pauses before a frame whose response would not fit.
 * Acknowledgements of messages (SEND, WRITE_IMM) wait up to {@link #ACK_DELAY_NANOS} for a request
 * of the local application to ride along with (an echo's acknowledgement and the echo leave in one
 * write).
 *
 * <p><b>Receiving</b> (agent): a resumable parser serves the peer's one-sided requests against this
 * process's exported maps (whether or not the application polls when the agent has its own thread,
 * as a NIC does), fills posted
 * receives and completes this side's tasks; completions go to the engine through the completion
 * ring and wake it.
 *
 * <p>Liveness ({@link PeerLiveness}): a killed peer is seen at once, by the reader (EOF, RST). The
 * agent's keepalive deadline queues a heartbeat on connections that sent nothing for
 * {@link #HEARTBEAT_NANOS}; it declares the peer dead only after {@link PeerLiveness#timeoutNanos()}
 * of silence counted by a {@link SilenceMeter} (this process's own stalls are not the peer's
 * silence) and only if no byte from the peer is waiting unread in the socket (a slow reader here is
 * not a dead peer there).
 *
 * <p>Threads: {@link #submit}, {@link #work()}, {@link #afterWork()}, {@link #beforeWait()},
 * {@link #close} and the other {@link RdmaEndpoint} methods on the engine thread; {@link #attach},
 * {@link #ioService}, {@link #keepalive} and everything under them on the agent's thread (the engine
 * thread itself when the engine runs the agent). Both sides are allocation-free on the data path.
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
    /** The outgoing buffer: room for two whole coalesced frames, so one always fits once the other left. */
    private static final int OUT_BATCH = Math.max(32 * 1024, 2 * (TcpFrame.SIZE + COALESCE));
    /** Room a request or a dispatch-time response may need in the outgoing buffer. */
    private static final int FRAME_ROOM = TcpFrame.SIZE + COALESCE;
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
    /** Longer than this without an engine tick (and not asleep), the engine is paused: RNR time does not run. */
    static final long ENGINE_PAUSE_NANOS = 100_000_000L;
    /** Most RNR wait one check may count (a late check saw nothing in between). */
    static final long RNR_CREDIT_NANOS = 10_000_000L;
    /** Longest a message's acknowledgement waits for a request of the local application to ride with. */
    static final long ACK_DELAY_NANOS = 20_000L;
    private static final int ACK_BATCH = 16;
    /** While a frame waits for a posted receive, the agent re-checks at least this often (a posted receive also wakes it). */
    static final long RNR_RECHECK_NANOS = 1_000_000L;
    /** {@link #ioService} result: the connection has ended; the agent drops it. */
    static final long IO_DONE = -1;

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
    /** Engine → agent: submitted tasks, in order; the agent takes them up to {@link #doorbell}. */
    private final SpscRing submitted;
    /** Agent → engine: finished tasks and filled receives. */
    private final SpscRing completions;
    /** Most tasks of this connection in flight (submitted, not yet completed on the engine). */
    private final int depth;
    // ---- engine-thread side
    private long nextSeq;
    private int inflight;
    /** Tasks published into {@link #submitted} so far. */
    private long published;
    /** Tasks were published during the duty cycle: the doorbell rings in {@link #afterWork()}. */
    private boolean doorbellOwed;
    private DocaError closeReason;
    private boolean flushed;
    /** The context's transport agent, which serves this socket (null: not started). */
    private TcpTransportAgent agent;
    // ---- engine → agent
    /** Tasks the agent may take ({@link #published} as of the last ring); written by the engine only. */
    private volatile long doorbell;
    private volatile boolean closing;
    private final AtomicLong engineTicks = new AtomicLong();
    private volatile boolean engineSleeping;
    // ---- agent → engine
    private volatile boolean ioExited;
    private volatile DocaError broken;
    private volatile String brokenWhy;
    // ---- agent thread: sending
    private final SpscRing outstanding;
    private long taken;
    private final MemorySegment txHdrSeg = MemorySegment.ofBuffer(ByteBuffer.allocateDirect(TcpFrame.SIZE));
    private final TcpFrame tx = new TcpFrame();
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
    // ---- agent thread: receiving
    private final ByteBuffer rxHdr;
    private final MemorySegment rxHdrSeg;
    private final ByteBuffer rxBuf = ByteBuffer.allocateDirect(RX_BUFFER);
    private final MemorySegment rxSeg = MemorySegment.ofBuffer(rxBuf);
    private int rPos;
    private int rLim;
    private final TcpFrame rx = new TcpFrame();
    /** Header scratch for responses. */
    private final MemorySegment respSeg = MemorySegment.ofBuffer(ByteBuffer.allocateDirect(TcpFrame.SIZE));
    private final TcpFrame resp = new TcpFrame();
    /** Views of registered memory: slot 0 for receiving, slot 1 for streaming payloads out. */
    private final SegmentViews ioViews = new SegmentViews(2);
    private int rxState = RX_HEADER;
    /** A pump stopped on its budget with input left. */
    private boolean rxMore;
    /** A pump stopped because the response of the next frame does not fit in the outgoing buffer yet. */
    private boolean rxPaused;
    /** The selector reported the socket readable (or writable) and the agent has not drained it since. */
    private boolean readable = true;
    private boolean writable;
    /** Completions were handed to the engine during this look: wake it once. */
    private boolean handedOver;
    private long pumpBytes;
    // the frame in progress
    private int fOp;
    private long fSeq;
    private long fLen;
    private int fImm;
    private DocaError fSt;
    private int after;
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
    /** This socket's key in the agent's selector, and the interest set last given to it. */
    private SelectionKey key;
    private int interest;
    private long lastRxNanos = System.nanoTime();
    private long lastTxNanos = System.nanoTime();
    /** Silence timeout of this connection, fixed when it is made ({@link PeerLiveness#timeoutNanos()}). */
    private final long deadNanos = PeerLiveness.timeoutNanos();
    /** The peer's silence as the keepalive saw it. */
    private SilenceMeter silence;

    TcpEndpoint(Rdma rdma, RdmaConnection conn, SocketChannel ch, int sendQueueSize, int recvQueueSize, int maxList) {
        super(rdma, conn);
        this.ch = ch;
        this.submitted = new SpscRing(sendQueueSize);
        this.outstanding = new SpscRing(submitted.capacity());
        this.depth = submitted.capacity();
        this.completions = new SpscRing(depth + recvQueueSize + 2);
        this.tx.wrap(txHdrSeg);
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
     * context's transport {@code agent}, its only reader and writer from now on.
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
        if (closing || ioExited) {
            return DocaError.NOT_CONNECTED;
        }
        if (inflight >= depth) {
            return DocaError.AGAIN;
        }
        t.seq = nextSeq++;
        submitted.offer(t); // never full: at most depth tasks are in flight
        inflight++;
        published++;
        if (rdma.inWork()) {
            // Submitted from a completion callback: the doorbell rings at the end of the duty cycle,
            // so the requests a burst of completions re-arms leave in one system call.
            doorbellOwed = true;
        } else {
            TcpTransportAgent a = agent;
            if (a != null && a.runsOnThisThread() && key != null) {
                sendNow();
            } else {
                ring();
            }
        }
        return DocaError.SUCCESS;
    }

    /**
     * INVOKER, on the engine thread, which is then also the agent's: the request leaves in this
     * call, as it would from a NIC's doorbell, instead of at the next engine pass (one pass less per
     * message on the requester's side). What the socket does not take stays pending for the agent.
     */
    private void sendNow() {
        doorbellOwed = false;
        doorbell = published;
        if (broken == null) {
            try {
                send(System.nanoTime());
            } catch (IOException | RuntimeException e) {
                if (!closing) {
                    markBroken(DocaError.CONNECTION_RESET, lostBecause(e));
                }
            }
        }
        if (taken != doorbell || txBlocked || broken != null) {
            agent.wake(); // the rest (or the write interest, or the verdict) at the next pass
        }
    }

    /** Lets the agent take every published task, and wakes it if it sleeps. */
    private void ring() {
        doorbellOwed = false;
        doorbell = published;
        TcpTransportAgent a = agent;
        if (a != null) {
            a.wake();
        }
    }

    @Override
    int work() {
        engineTicks.lazySet(engineTicks.getPlain() + 1);
        if (engineSleeping) {
            engineSleeping = false;
        }
        int n = drainCompletions();
        DocaError b = broken;
        if (b != null && !closing) {
            close(b);
            rdma.connectionBroken(conn, b, brokenWhy);
        }
        if (closing && ioExited && !flushed) {
            n += drainCompletions();
            // The agent let the socket go: tasks it never took complete here (the ring's consumer
            // is this thread from now on).
            Object o;
            while ((o = submitted.poll()) != null) {
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
        if (t.kind != RdmaTask.K_RECV) {
            inflight--;
        }
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
        return !completions.isEmpty() || doorbellOwed || (broken != null && !closing) || (closing && ioExited && !flushed);
    }

    @Override
    void afterWork() {
        if (doorbellOwed) {
            ring();
        }
    }

    /** The engine goes to sleep: the doorbell rings if it still owes it, and the RNR clock notes the sleep. */
    void beforeWait() {
        if (doorbellOwed) {
            ring();
        }
        if (!engineSleeping) {
            engineSleeping = true;
        }
    }

    @Override
    void close(DocaError reason) {
        if (closing) {
            return;
        }
        closeReason = reason;
        closing = true;
        TcpTransportAgent a = agent;
        if (a == null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // nothing else to do with it
            }
            ioExited = true;
        } else {
            // The agent owns the socket: it says goodbye, closes it and hands back every task it held.
            a.wake();
        }
    }

    @Override
    boolean isDrained() {
        return closing && ioExited && flushed && completions.isEmpty();
    }

    @Override
    void release() {
        // Direct buffers are freed by their cleaners; the agent closed the socket when it let it go.
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
            interest = SelectionKey.OP_READ;
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

    /** Agent thread, from the selector: what the socket is ready for. */
    void ready(int readyOps) {
        if ((readyOps & SelectionKey.OP_READ) != 0) {
            readable = true;
        }
        if ((readyOps & SelectionKey.OP_WRITE) != 0) {
            writable = true;
        }
    }

    /** The agent serving this connection (tests), null before {@link #startIo}. */
    TcpTransportAgent agent() {
        return agent;
    }

    /** Agent thread: the next look reads the socket (if reading) without the selector's word; what it holds decides. */
    void assumeReadable() {
        if ((interest & SelectionKey.OP_READ) != 0) {
            readable = true;
        }
    }

    /**
     * Agent thread: whether the next look may read the socket without the selector's word: between
     * frames (the next message's latency is at stake) with room to write. Not mid-payload, where
     * reading at every look would take a large transfer in slivers, nor with a full socket, whose
     * room is the selector's to report (either costs 64 KiB transfers ~10 %: docs/performance/rdma.md).
     */
    boolean directPollable() {
        return rxState == RX_HEADER && !txBlocked;
    }

    /** Agent thread: whether this connection waits for the application to post a receive. */
    boolean awaitingRecv() {
        return rxState == RX_AWAIT_RECV;
    }

    /**
     * Agent thread: one look at this connection: takes the submitted tasks the doorbell allows,
     * writes what is pending, reads and serves what the socket holds, and writes the responses
     * (message acknowledgements may wait a little for a request to ride with). Returns
     * {@link #IO_DONE} once the connection has ended (everything it held handed back to the
     * engine), 0 when it did something or has more to do at once, else the longest the agent may
     * sleep before looking again ({@code Long.MAX_VALUE}: until the socket or the engine wakes it).
     */
    long ioService(long now) {
        if (closing || broken != null) {
            finishIo();
            return IO_DONE;
        }
        long work = 0;
        try {
            work += send(now);
            if (readable || rxMore || rxPaused || rxState == RX_AWAIT_RECV) {
                work += pump();
            }
            if (pendingOut() && (!txBlocked || writable) && flushDue(now)) {
                work += flush(now);
            }
        } catch (IOException | RuntimeException e) {
            if (!closing) {
                markBroken(DocaError.CONNECTION_RESET, lostBecause(e));
            }
            return 0;
        }
        if (handedOver) {
            handedOver = false;
            rdma.pe().notifyWork();
        }
        boolean more = rxMore || (rxPaused && !txBlocked) || (taken != doorbell && !txBlocked);
        setInterest((rxPaused || rxState == RX_AWAIT_RECV ? 0 : SelectionKey.OP_READ)
                | (txBlocked ? SelectionKey.OP_WRITE : 0));
        if (work > 0 || more) {
            return 0;
        }
        long sleep = Long.MAX_VALUE;
        if (pendingOut() && !txBlocked) {
            sleep = Math.max(1, acksOwedSince + ACK_DELAY_NANOS - now);
        }
        if (rxState == RX_AWAIT_RECV) {
            sleep = Math.min(sleep, RNR_RECHECK_NANOS);
        }
        return sleep;
    }

    private void setInterest(int ops) {
        if (ops != interest && key != null) {
            interest = ops;
            key.interestOps(ops); // an epoll_ctl: only when the socket fills or a receive is awaited
        }
    }

    /** Agent thread: the connection ended: says goodbye if closed in order, closes the socket, hands back every task. */
    private void finishIo() {
        if (ioExited) {
            return;
        }
        if (closing && closeReason == DocaError.SHUTDOWN && broken == null) {
            sayGoodbye();
        }
        detach();
        try {
            ch.close();
        } catch (IOException ignored) {
            // gone either way
        }
        DocaError reason = closeReason != null ? closeReason : broken;
        if (reason == null) {
            reason = DocaError.CONNECTION_RESET;
        }
        abandonRx();
        Object o;
        while ((o = outstanding.poll()) != null) {
            RdmaTask t = (RdmaTask) o;
            t.result = reason;
            completions.offer(t);
        }
        while ((o = submitted.poll()) != null) {
            RdmaTask t = (RdmaTask) o;
            t.result = reason;
            completions.offer(t);
        }
        ioExited = true;
        rdma.pe().notifyWork();
    }

    /**
     * An orderly close: the pending frames (a frame must not be cut) and a disconnect frame, best
     * effort and bounded (the socket closes right after either way; queued acknowledgements are
     * dropped with it, the peer's tasks end with the connection anyway).
     */
    private void sayGoodbye() {
        try {
            long giveUp = System.nanoTime() + 10_000_000L;
            if (canQueue(TcpFrame.SIZE)) {
                resp.init(TcpFrame.OP_DISCONNECT);
                MemorySegment.copy(respSeg, 0, outSeg, outLen, TcpFrame.SIZE);
                outLen += TcpFrame.SIZE;
            }
            while (pendingOut() && System.nanoTime() - giveUp < 0) {
                if (flush(System.nanoTime()) == 0) {
                    LockSupport.parkNanos(10_000); // control path (an orderly close, at most 10 ms), never a data-path wait
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // closing anyway
        }
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

    // ================================================================== sending (agent thread)

    private boolean pendingOut() {
        return outStart < outLen || bigLeft > 0;
    }

    /**
     * Whether {@code need} more bytes can be queued behind the pending ones now: not while a large
     * payload streams (its bytes come first), and only with room in the outgoing buffer.
     */
    private boolean canQueue(int need) {
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

    /** The pending bytes must leave now: something urgent, enough acknowledgements, or the oldest waited long enough. */
    private boolean flushDue(long now) {
        return urgent || bigLeft > 0 || acksOwed >= ACK_BATCH || now - acksOwedSince >= ACK_DELAY_NANOS || engineSleeping;
    }

    /** Takes the submitted tasks the doorbell allows and writes what is due; returns the tasks and bytes moved. */
    private long send(long now) throws IOException {
        long n = takeSubmitted();
        if (pendingOut() && (!txBlocked || writable) && flushDue(now)) {
            n += flush(now);
        }
        return n;
    }

    /** Takes the submitted tasks the doorbell allows, while their frames fit; returns how many. */
    private int takeSubmitted() {
        long d = doorbell;
        int n = 0;
        while (taken != d && canQueue(FRAME_ROOM)) {
            RdmaTask t = (RdmaTask) submitted.poll();
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
        MemorySegment.copy(txHdrSeg, 0, outSeg, outLen, TcpFrame.SIZE);
        outLen += TcpFrame.SIZE;
        urgent = true;
        if (payload != null && t.len > 0) {
            if (t.len <= COALESCE) {
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
    private int flush(long now) throws IOException {
        writable = false;
        int n = 0;
        if (outStart < outLen) {
            out.limit(outLen);
            out.position(outStart);
            int w = ch.write(out);
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
            long len;
            if (bigSeg != null) {
                len = bigLeft;
                v = ioViews.view(bigSeg, 1, bigOff, len);
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
                len = Math.min(avail, bigLeft);
                v = ioViews.view(b.segment(), 1, b.dataOffset() + bigBufOff, len);
            }
            int w = ch.write(v);
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

    // ================================================================== keepalive (agent thread)

    /**
     * Agent thread, at every keepalive tick: the liveness verdict (a dead peer's connection is
     * closed, which the next look ends), else a heartbeat when nothing was sent for
     * {@link #HEARTBEAT_NANOS}. Never waits: with bytes still pending, the peer has proof we live.
     */
    void keepalive(long now) {
        if (closing || ioExited) {
            return;
        }
        String dead = silenceVerdict(now);
        if (dead != null) {
            declareDead(dead);
        } else if (now - lastTxNanos > HEARTBEAT_NANOS && !pendingOut() && canQueue(TcpFrame.SIZE)) {
            resp.init(TcpFrame.OP_HEARTBEAT);
            MemorySegment.copy(respSeg, 0, outSeg, outLen, TcpFrame.SIZE);
            outLen += TcpFrame.SIZE;
            urgent = true;
            try {
                flush(now);
            } catch (IOException | RuntimeException e) {
                markBroken(DocaError.CONNECTION_RESET, lostBecause(e));
            }
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
        if (rLim > rPos) {
            return true;
        }
        try (Selector probe = Selector.open()) {
            // The socket is registered with the agent's selector; a second, temporary registration is allowed.
            ch.register(probe, SelectionKey.OP_READ);
            return probe.selectNow() > 0;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private void declareDead(String why) {
        markBroken(DocaError.CONNECTION_RESET, why);
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

    // ================================================================== receiving (agent thread)

    /**
     * Handles every whole frame available without blocking, within a budget, pausing before a frame
     * whose response does not fit in the outgoing buffer yet. Returns frames handled plus payload
     * bytes moved (the agent's work count).
     */
    private long pump() throws IOException {
        pumpBytes = 0;
        boolean more = false;
        rxPaused = false;
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
                        readable = false;
                        break loop;
                    }
                    if (!canQueue(responseRoom(TcpFrame.opcodeAt(rxSeg, rPos)))) {
                        rxPaused = true;
                        break loop;
                    }
                    MemorySegment.copy(rxSeg, rPos, rxHdrSeg, 0, TcpFrame.SIZE);
                    rPos += TcpFrame.SIZE;
                    frames++;
                    dispatch();
                }
                case RX_PAYLOAD -> {
                    if (!fillSink()) {
                        readable = false;
                        break loop;
                    }
                    if (!canQueue(TcpFrame.SIZE)) {
                        rxPaused = true;
                        break loop;
                    }
                    completeFrame();
                }
                default -> {
                    if (!canQueue(TcpFrame.SIZE)) {
                        rxPaused = true;
                        break loop;
                    }
                    if (!claimRecv()) {
                        break loop;
                    }
                }
            }
        }
        rxMore = more;
        return frames + pumpBytes;
    }

    /** Room the response queued when a frame of opcode {@code op} is dispatched needs (0: none at dispatch). */
    private static int responseRoom(int op) {
        return switch (op) {
            case TcpFrame.OP_READ_REQ -> FRAME_ROOM;
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
            acknowledgeMessage(fSeq, fSt.code());
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
                acknowledgeMessage(fSeq, fSt.code());
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
        handedOver = true;
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
    // rate limit of the refusal log line: agent thread only
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

    /** A one-sided operation's response: it leaves at once (the requester waits for it). */
    private void respond(int op, long seq, int status, long len, MemoryMap m, long off) {
        resp.init(op).seq(seq).status(status).length(len);
        queueResponse(len, m, off);
    }

    /**
     * A message's acknowledgement (SEND, WRITE_IMM): the local application was just handed the
     * message and often answers at once, so the acknowledgement waits up to {@link #ACK_DELAY_NANOS}
     * (or {@link #ACK_BATCH} of them) for that answer to ride with (delayed acknowledgement).
     */
    private void acknowledgeMessage(long seq, int status) {
        resp.init(TcpFrame.OP_ACK).seq(seq).status(status).length(0);
        boolean wasUrgent = urgent;
        queueResponse(0, null, 0);
        urgent = wasUrgent;
        if (acksOwed++ == 0) {
            acksOwedSince = System.nanoTime();
        }
    }

    /**
     * Queues the response in {@link #resp} with {@code len} payload bytes at {@code off} of
     * {@code m}'s memory (none when {@code m} is null); the caller checked the room
     * ({@link #responseRoom}). Payloads above {@link #COALESCE} stream straight from the exported
     * memory behind the header.
     */
    private void queueResponse(long len, MemoryMap m, long off) {
        MemorySegment.copy(respSeg, 0, outSeg, outLen, TcpFrame.SIZE);
        outLen += TcpFrame.SIZE;
        urgent = true;
        if (m != null && len > 0) {
            if (len <= COALESCE) {
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
}
