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
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

/**
 * The TCP transport of one connection: one socket, one I/O thread. The engine thread writes request
 * frames ({@link TcpFrame}) straight from the registered memory (cached direct views; payloads up
 * to {@link #COALESCE} bytes are copied behind the header to save a system call) and records the task in an outstanding ring; the I/O thread reads every frame,
 * services the peer's requests against this process's exported maps (like a NIC: the application
 * is not involved), matches responses to outstanding tasks, reads payloads straight into their
 * buffers and hands completed tasks back through a lock-free ring, waking the engine.
 *
 * <p>Frames never interleave on the socket: writers take a frame-writer exclusion (see
 * {@link #lockFrames()}). Liveness: a keepalive
 * thread sends a heartbeat every {@link #HEARTBEAT_NANOS} on idle connections and closes a socket
 * that received nothing for {@link #DEAD_NANOS}; a killed peer is seen at once (EOF / reset).
 */
final class TcpEndpoint extends RdmaEndpoint {
    private static final System.Logger LOG = System.getLogger(TcpEndpoint.class.getName());
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    static final long HEARTBEAT_NANOS = 200_000_000L;
    static final long DEAD_NANOS = 3_000_000_000L;
    private static final int SOCKET_BUFFER = 4 << 20;
    /**
     * Payloads up to this size are copied behind the header and sent in one write: a copy of a few
     * KiB costs less than a second system call. Larger payloads go straight from registered memory.
     */
    static final int COALESCE = 4096;
    private static final int RX_BUFFER = 64 * 1024;
    private static final CopyOnWriteArrayList<TcpEndpoint> LIVE = new CopyOnWriteArrayList<>();
    private static volatile Thread keepalive;

    private final SocketChannel ch;
    private final SpscRing outstanding;
    private final SpscRing completions;
    // ---- engine-thread side
    private final ByteBuffer txHdr;
    private final MemorySegment txSeg;
    private final TcpFrame tx = new TcpFrame();
    private final SegmentViews txViews;
    private long nextSeq;
    private boolean closing;
    private DocaError closeReason;
    private boolean flushed;
    // ---- I/O-thread side
    private final ByteBuffer rxHdr;
    private final MemorySegment rxHdrSeg;
    /**
     * Read-ahead: one read may bring several frames (acknowledgements, small messages), saving a
     * system call per frame. Payload bytes that arrived with their header are copied out of it; the
     * rest of a payload is read straight into its destination.
     */
    private final ByteBuffer rxBuf = ByteBuffer.allocateDirect(RX_BUFFER);
    private final MemorySegment rxSeg = MemorySegment.ofBuffer(rxBuf);
    private int rPos;
    private int rLim;
    private final TcpFrame rx = new TcpFrame();
    private final ByteBuffer respHdr;
    private final MemorySegment respSeg;
    private final TcpFrame resp = new TcpFrame();
    private final SegmentViews ioViews = new SegmentViews(2);
    private final ByteBuffer drain;
    private RdmaTaskReceive ioHeldRecv;
    private Thread io;
    // ---- shared
    private volatile boolean ioExited;
    private volatile DocaError broken;
    private volatile String brokenWhy;
    private volatile long lastRxNanos = System.nanoTime();
    private volatile long lastTxNanos = System.nanoTime();
    /** Frame-writer exclusion: a frame is several write calls (see {@link #lockFrames()}). */
    private final java.util.concurrent.atomic.AtomicInteger frameLock = new java.util.concurrent.atomic.AtomicInteger();

    TcpEndpoint(Rdma rdma, RdmaConnection conn, SocketChannel ch, int sendQueueSize, int recvQueueSize, int maxList) {
        super(rdma, conn);
        this.ch = ch;
        this.outstanding = new SpscRing(sendQueueSize);
        this.completions = new SpscRing(outstanding.capacity() + recvQueueSize + 2);
        this.txHdr = ByteBuffer.allocateDirect(TcpFrame.SIZE + COALESCE);
        this.txSeg = MemorySegment.ofBuffer(txHdr);
        this.tx.wrap(txSeg.asSlice(0, TcpFrame.SIZE));
        this.txViews = new SegmentViews(1);
        this.rxHdr = ByteBuffer.allocateDirect(TcpFrame.SIZE);
        this.rxHdrSeg = MemorySegment.ofBuffer(rxHdr);
        this.rx.wrap(rxHdrSeg);
        this.respHdr = ByteBuffer.allocateDirect(TcpFrame.SIZE + COALESCE);
        this.respSeg = MemorySegment.ofBuffer(respHdr);
        this.resp.wrap(respSeg.asSlice(0, TcpFrame.SIZE));
        this.drain = ByteBuffer.allocateDirect(64 * 1024);
    }

    static void configure(SocketChannel ch) throws IOException {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
        ch.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
        ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
    }

    void startIo() {
        io = Thread.ofPlatform().daemon().name("jdoca-rdma-io-" + conn.id).start(this::ioLoop);
        LIVE.add(this);
        ensureKeepalive();
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
                            .mapId(t.rMapId).addr(t.rAddr).length(t.len);
                    payload = t.local;
                }
                case RdmaTask.K_READ, RdmaTask.K_SE_GET -> f.init(TcpFrame.OP_READ_REQ).mapId(t.rMapId).addr(t.rAddr)
                        .length(t.len);
                case RdmaTask.K_CAS -> f.init(TcpFrame.OP_CAS).mapId(t.rMapId).addr(t.rAddr).operand(t.operand).swap(t.swap);
                case RdmaTask.K_FADD, RdmaTask.K_SE_ADD -> f.init(TcpFrame.OP_FADD).mapId(t.rMapId).addr(t.rAddr)
                        .operand(t.operand);
                case RdmaTask.K_SE_SET -> f.init(TcpFrame.OP_SET).mapId(t.rMapId).addr(t.rAddr)
                        .operand(t.local.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, t.local.dataOffset()));
                default -> f.init(TcpFrame.OP_NOP).status(DocaError.UNEXPECTED.code());
            }
        }
        f.seq(t.seq);
        lockFrames();
        try {
            txHdr.clear();
            if (payload == null) {
                txHdr.limit(TcpFrame.SIZE);
                writeFully(txHdr);
            } else if (t.len <= COALESCE) {
                BufCopy.gather(payload, 0, txSeg, TcpFrame.SIZE, t.len);
                txHdr.limit(TcpFrame.SIZE + (int) t.len);
                writeFully(txHdr);
            } else {
                txHdr.limit(TcpFrame.SIZE);
                writeFully(txHdr);
                for (Buf b = payload; b != null; b = b.next()) {
                    if (b.dataLen() > 0) {
                        writeFully(txViews.view(b.segment(), 0, b.dataOffset(), b.dataLen()));
                    }
                }
            }
        } finally {
            unlockFrames();
        }
    }

    /**
     * Takes the frame-writer exclusion. The engine thread (requests), the I/O thread (responses)
     * and the keepalive share the socket's sending side, and a frame may be a header write plus
     * payload writes (single-buffer writes: NIO's gathering writes allocate per call for
     * memory-segment buffers). Held only around the system calls; spins, then yields, never parks.
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

    private void writeFully(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
        lastTxNanos = System.nanoTime();
    }

    @Override
    int work() {
        int n = 0;
        Object o;
        while ((o = completions.poll()) != null) {
            n += finish((RdmaTask) o);
        }
        DocaError b = broken;
        if (b != null && !closing) {
            close(b);
            rdma.connectionBroken(conn, b, brokenWhy);
        }
        if (closing && ioExited && !flushed) {
            while ((o = completions.poll()) != null) {
                n += finish((RdmaTask) o);
            }
            while ((o = outstanding.poll()) != null) {
                RdmaTask t = (RdmaTask) o;
                t.result = closeReason;
                n += finish(t);
            }
            flushed = true;
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
        return !completions.isEmpty() || (broken != null && !closing) || (closing && ioExited && !flushed);
    }

    @Override
    void close(DocaError reason) {
        if (closing) {
            return;
        }
        closing = true;
        closeReason = reason;
        LIVE.remove(this);
        if (reason == DocaError.SHUTDOWN && broken == null) {
            if (frameLock.compareAndSet(0, 1)) {
                try {
                    tx.init(TcpFrame.OP_DISCONNECT);
                    txHdr.clear().limit(TcpFrame.SIZE);
                    ch.write(txHdr);
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
            // the I/O thread sees the close either way
        }
        if (io == null) {
            ioExited = true;
        }
    }

    @Override
    boolean isDrained() {
        return closing && ioExited && flushed && completions.isEmpty();
    }

    @Override
    void release() {
        // Direct buffers are freed by their cleaners; nothing else to release.
    }

    @Override
    long maxSleepNanos() {
        // The I/O thread wakes the engine on every completion; poll now and then for the keepalive's verdict.
        return 50_000_000L;
    }

    private void markBroken(DocaError reason, String why) {
        if (broken == null) {
            brokenWhy = why;
            broken = reason;
        }
        rdma.pe().notifyWork();
    }

    // ================================================================== I/O thread

    private void ioLoop() {
        try {
            for (;;) {
                fill(TcpFrame.SIZE);
                MemorySegment.copy(rxSeg, rPos, rxHdrSeg, 0, TcpFrame.SIZE);
                rPos += TcpFrame.SIZE;
                lastRxNanos = System.nanoTime();
                dispatch();
            }
        } catch (IOException | RuntimeException e) {
            if (!closing) {
                markBroken(DocaError.CONNECTION_RESET, e instanceof EOFException ? "peer closed the connection"
                        : "connection lost: " + e);
            }
        } finally {
            RdmaTaskReceive r = ioHeldRecv;
            if (r != null) {
                ioHeldRecv = null;
                r.result = DocaError.CONNECTION_RESET;
                completions.offer(r);
            }
            ioExited = true;
            rdma.pe().notifyWork();
        }
    }

    private void readFully(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new EOFException();
            }
        }
    }

    /** Makes at least {@code need} (≤ RX_BUFFER) bytes available in the read-ahead buffer. */
    private void fill(int need) throws IOException {
        if (rLim - rPos >= need) {
            return;
        }
        if (RX_BUFFER - rPos < need) {
            int avail = rLim - rPos;
            MemorySegment.copy(rxSeg, rPos, rxSeg, 0, avail);
            rPos = 0;
            rLim = avail;
        }
        while (rLim - rPos < need) {
            rxBuf.limit(RX_BUFFER).position(rLim);
            int n = ch.read(rxBuf);
            if (n < 0) {
                throw new EOFException();
            }
            rLim += n;
        }
    }

    /** Reads exactly {@code n} payload bytes to {@code [off, off+n)} of {@code seg}: buffered ones by copy, the rest directly. */
    private void readPayload(MemorySegment seg, long off, long n) throws IOException {
        long take = Math.min(n, rLim - rPos);
        if (take > 0) {
            MemorySegment.copy(rxSeg, rPos, seg, off, take);
            rPos += (int) take;
        }
        if (n > take) {
            readFully(ioViews.view(seg, 0, off + take, n - take));
        }
    }

    private void drain(long n) throws IOException {
        long take = Math.min(n, rLim - rPos);
        rPos += (int) take;
        n -= take;
        while (n > 0) {
            drain.clear();
            drain.limit((int) Math.min(drain.capacity(), n));
            readFully(drain);
            n -= drain.limit();
        }
    }

    private void dispatch() throws IOException {
        TcpFrame f = rx;
        int op = f.opcode();
        switch (op) {
            case TcpFrame.OP_ACK, TcpFrame.OP_READ_RESP, TcpFrame.OP_ATOMIC_RESP -> onResponse(f, op);
            case TcpFrame.OP_SEND, TcpFrame.OP_SEND_IMM -> onSend(f, op);
            case TcpFrame.OP_WRITE, TcpFrame.OP_WRITE_IMM -> onWrite(f, op);
            case TcpFrame.OP_READ_REQ -> onRead(f);
            case TcpFrame.OP_CAS, TcpFrame.OP_FADD, TcpFrame.OP_SET -> onAtomic(f, op);
            case TcpFrame.OP_NOP -> respond(TcpFrame.OP_ACK, f.seq(), f.status(), 0, null, 0);
            case TcpFrame.OP_HEARTBEAT, TcpFrame.OP_HELLO -> {
            }
            case TcpFrame.OP_DISCONNECT -> throw new EOFException();
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
            if (r != DocaError.SUCCESS || len != t.len) {
                drain(len);
                if (r == DocaError.SUCCESS) {
                    r = DocaError.IO_FAILED;
                }
            } else {
                readInto(t.local, len);
                t.resultLen = len;
            }
        } else if (op == TcpFrame.OP_ATOMIC_RESP && r == DocaError.SUCCESS && t.kind != RdmaTask.K_SE_SET) {
            ShmEndpoint.putResult(t.local, f.mapId());
        }
        t.result = r;
        completions.offer(t);
        rdma.pe().notifyWork();
    }

    /** Reads {@code n} payload bytes straight into the list's tailrooms (appending). */
    private void readInto(Buf list, long n) throws IOException {
        for (Buf b = list; b != null && n > 0; b = b.next()) {
            long room = b.tailroomLen();
            if (room == 0) {
                continue;
            }
            long c = Math.min(room, n);
            readPayload(b.segment(), b.tailOffset(), c);
            b.appendData(c);
            n -= c;
        }
        if (n > 0) {
            drain(n);
        }
    }

    /** RC receive-not-ready handling: waits (bounded) for the application to post a receive. */
    private RdmaTaskReceive awaitRecv() {
        RdmaTaskReceive r = rdma.pollPostedRecv();
        if (r != null) {
            return r;
        }
        long deadline = System.nanoTime() + rdma.rnrTimeoutNanos();
        int spins = 0;
        while ((r = rdma.pollPostedRecv()) == null) {
            if (closing || System.nanoTime() - deadline > 0) {
                return null;
            }
            if (++spins < 100) {
                Thread.onSpinWait();
            } else if (spins < 200) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(50_000);
            }
        }
        return r;
    }

    private void onSend(TcpFrame f, int op) throws IOException {
        long seq = f.seq();
        long len = f.length();
        int imm = f.immediate();
        RdmaTaskReceive r = awaitRecv();
        if (r == null) {
            drain(len);
            respond(TcpFrame.OP_ACK, seq, DocaError.TIME_OUT.code(), 0, null, 0);
            return;
        }
        ioHeldRecv = r;
        DocaError st = r.result;
        if (st == DocaError.SUCCESS && !BufCopy.writableList(r.local)) {
            st = DocaError.NOT_PERMITTED;
        } else if (st == DocaError.SUCCESS && len > r.local.listTailroomLen()) {
            st = DocaError.INVALID_VALUE;
        }
        if (st == DocaError.SUCCESS) {
            readInto(r.local, len);
        } else {
            drain(len);
        }
        deliverRecv(r, st, op == TcpFrame.OP_SEND ? RdmaOpcode.SEND : RdmaOpcode.SEND_WITH_IMM, imm, len);
        respond(TcpFrame.OP_ACK, seq, st.code(), 0, null, 0);
    }

    private void deliverRecv(RdmaTaskReceive r, DocaError st, RdmaOpcode opc, int imm, long len) {
        r.result = st;
        r.opcode = opc;
        r.immediate = imm;
        r.resultLen = len;
        r.conn = conn;
        ioHeldRecv = null;
        completions.offer(r);
        rdma.pe().notifyWork();
    }

    /** The responder's own checks, against this process's exported map, before touching memory. */
    private DocaError check(MemoryMap m, long addr, long len, int flag) {
        if (m == null || !m.isStarted() || m.segment() == null) {
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

    private void onWrite(TcpFrame f, int op) throws IOException {
        long seq = f.seq();
        long len = f.length();
        long addr = f.addr();
        int imm = f.immediate();
        MemoryMap m = MemoryMap.findExported(f.mapId());
        DocaError st = check(m, addr, len, AccessFlags.RDMA_WRITE);
        if (st == DocaError.SUCCESS) {
            long off = addr - m.baseAddress();
            if (len > 0) {
                readPayload(m.segment(), off, len);
            }
        } else {
            drain(len);
        }
        if (op == TcpFrame.OP_WRITE_IMM && st == DocaError.SUCCESS) {
            RdmaTaskReceive r = awaitRecv();
            if (r == null) {
                st = DocaError.TIME_OUT;
            } else {
                ioHeldRecv = r;
                deliverRecv(r, r.result, RdmaOpcode.WRITE_WITH_IMM, imm, len);
            }
        }
        respond(TcpFrame.OP_ACK, seq, st.code(), 0, null, 0);
    }

    private void onRead(TcpFrame f) throws IOException {
        long seq = f.seq();
        long len = f.length();
        long addr = f.addr();
        MemoryMap m = MemoryMap.findExported(f.mapId());
        DocaError st = check(m, addr, len, AccessFlags.RDMA_READ);
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
        DocaError st = check(m, addr, 8, op == TcpFrame.OP_SET ? AccessFlags.RDMA_WRITE : AccessFlags.RDMA_ATOMIC);
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
        lockFrames();
        try {
            respHdr.clear().limit(TcpFrame.SIZE);
            writeFully(respHdr);
        } finally {
            unlockFrames();
        }
    }

    private void respond(int op, long seq, int status, long len, MemoryMap m, long off) throws IOException {
        resp.init(op).seq(seq).status(status).length(len);
        lockFrames();
        try {
            respHdr.clear();
            if (m == null || len == 0) {
                respHdr.limit(TcpFrame.SIZE);
                writeFully(respHdr);
            } else if (len <= COALESCE) {
                MemorySegment.copy(m.segment(), off, respSeg, TcpFrame.SIZE, len);
                respHdr.limit(TcpFrame.SIZE + (int) len);
                writeFully(respHdr);
            } else {
                respHdr.limit(TcpFrame.SIZE);
                writeFully(respHdr);
                writeFully(ioViews.view(m.segment(), 1, off, len));
            }
        } finally {
            unlockFrames();
        }
    }

    // ================================================================== keepalive

    private static synchronized void ensureKeepalive() {
        if (keepalive == null) {
            keepalive = Thread.ofPlatform().daemon().name("jdoca-rdma-keepalive").start(TcpEndpoint::keepaliveLoop);
        }
    }

    private static void keepaliveLoop() {
        ByteBuffer hb = ByteBuffer.allocateDirect(TcpFrame.SIZE);
        new TcpFrame().wrap(MemorySegment.ofBuffer(hb)).init(TcpFrame.OP_HEARTBEAT);
        for (;;) {
            LockSupport.parkNanos(HEARTBEAT_NANOS / 2);
            long now = System.nanoTime();
            for (TcpEndpoint e : LIVE) {
                if (e.closing || e.ioExited) {
                    LIVE.remove(e);
                    continue;
                }
                if (now - e.lastRxNanos > DEAD_NANOS) {
                    e.markBroken(DocaError.CONNECTION_RESET, "no traffic from the peer for " + DEAD_NANOS / 1_000_000 + " ms");
                    try {
                        e.ch.close();
                    } catch (IOException ignored) {
                        // the I/O thread ends either way
                    }
                    continue;
                }
                if (now - e.lastTxNanos > HEARTBEAT_NANOS && e.frameLock.compareAndSet(0, 1)) {
                    try {
                        hb.clear();
                        e.ch.write(hb);
                        e.lastTxNanos = now;
                    } catch (IOException | RuntimeException ex) {
                        LOG.log(System.Logger.Level.DEBUG, "heartbeat failed: " + ex);
                    } finally {
                        e.unlockFrames();
                    }
                }
            }
        }
    }
}
