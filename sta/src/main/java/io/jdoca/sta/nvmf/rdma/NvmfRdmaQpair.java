package io.jdoca.sta.nvmf.rdma;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.mem.NativeMemory;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeCompletion;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.nvmf.NvmfCommandExecutor;
import io.jdoca.sta.nvmf.NvmfPollGroup;
import io.jdoca.sta.nvmf.NvmfQpair;
import io.jdoca.sta.nvmf.NvmfQpairState;
import io.jdoca.sta.nvmf.NvmfRequest;
import io.jdoca.sta.nvmf.NvmfRequestPool;
import io.jdoca.sta.nvmf.NvmfRequestState;
import io.jdoca.sta.nvmf.NvmfTransport;
import io.jdoca.sta.nvmf.NvmfTransportType;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.nio.channels.SelectableChannel;

/**
 * The NVMe/RDMA transport of one queue pair (NVMe RDMA Transport Specification 1.0; NVMe over
 * Fabrics 1.1 §7.3): command capsules arrive as SENDs into the {@link RdmaCapsuleRing}; a keyed
 * SGL names host memory, which the controller RDMA-READs (host-to-controller data) or
 * RDMA-WRITEs (controller-to-host data) through the command's registered data buffer; in-capsule
 * data (offset SGL) is used where it lies; every response capsule (the 16-byte CQE) is a SEND,
 * with Invalidate of the host's key when the descriptor's sub-type asked for it (0xF). Each command
 * takes one {@link NvmfRdmaRequest} (the generic request plus the keyed SGL, a data buffer and a
 * response buffer) and keeps it until its response SEND has completed locally; every work request
 * carries the request's index, so completions find it without a lookup. Commands go to the queue
 * pair's {@link NvmfCommandExecutor}; see {@link NvmfTransport} for the contract.
 *
 * <p>Everything is pre-allocated and registered at accept (queue depth from the connect private
 * data): capsule buffers, requests with their response buffers, and data buffers (fewer than
 * requests: memory registered per queue pair stays bounded; a capsule waits in the ring's backlog
 * when none is free). An I/O allocates nothing: posts and polls are FFM downcalls with status codes.
 *
 * <p>Not thread-safe: the owning IO engine's thread.
 */
public final class NvmfRdmaQpair implements NvmfTransport, RdmaCompletionSink {
    private static final System.Logger LOG = System.getLogger(NvmfRdmaQpair.class.getName());
    static final long KIND_SEND = 2L << 32;
    static final long KIND_READ = 3L << 32;
    static final long KIND_WRITE = 4L << 32;
    private static final int POLL_BATCH = 16;

    static final int RESP_SIZE = 16;

    private final NvmfQpair qp;
    private final NvmfPollGroup group;
    private final RdmaQueuePair rq;
    private final NativeMemory memory = new NativeMemory();
    private final int maxIo;
    private final int inCapsuleMax;
    private final RdmaCapsuleRing ring;
    private final NvmfRequestPool pool;
    /** One 16-byte response buffer per request, at {@code tag × 16}. */
    private final MemorySegment respArea;
    /**
     * {@link #dataBuffers} data buffers of {@link #maxIo} bytes, plus a scratch one (data the host gave no place for).
     */
    private final MemorySegment dataArea;
    private final int dataBuffers;
    private final int[] freeData;
    private int freeDataTop;
    private final NvmeCommand cmd = new NvmeCommand();
    private final SocketAddress remote;
    private final SocketAddress local;
    private final boolean useInvalidate;
    private int sendsInFlight;
    private boolean disconnected;
    /** Inside {@link RdmaQueuePair#poll}: a teardown there frees the buffers only after the poll returns. */
    private boolean polling;
    private boolean releasePending;
    /** Statistics (engine thread). */
    long capsules;
    long rdmaReads;
    long rdmaWrites;
    long invalidates;

    /**
     * @param depth       the host's send queue size (HSQSIZE + 1): commands it may have outstanding
     * @param inCapsuleMax largest in-capsule data (IOCCSZ × 16 − 64)
     * @param invalidate  answer a descriptor with sub-type 0xF with SEND with Invalidate
     */
    NvmfRdmaQpair(NvmfQpair qp, RdmaQueuePair rq, int depth, int maxIo, int inCapsuleMax,
                  SocketAddress remote, SocketAddress local, boolean invalidate) {
        this.qp = qp;
        this.group = qp.group();
        this.rq = rq;
        this.maxIo = maxIo;
        this.inCapsuleMax = inCapsuleMax;
        this.remote = remote;
        this.local = local;
        this.useInvalidate = invalidate;
        this.ring = new RdmaCapsuleRing(memory, depth + 1, NvmeCommand.SIZE + inCapsuleMax);
        // A request stays busy until its response SEND completes locally, while the host may
        // already reuse the command's slot: twice the depth covers every in-flight response.
        int requests = 2 * depth;
        this.pool = new NvmfRequestPool(requests, (p, tag) -> new NvmfRdmaRequest(p, tag, this));
        this.respArea = memory.allocate((long) requests * RESP_SIZE, 64);
        this.dataBuffers = Math.min(depth, 32);
        this.dataArea = memory.allocate((long) (dataBuffers + 1) * maxIo, 4096);
        this.freeData = new int[dataBuffers];
        for (int i = 0; i < dataBuffers; i++) {
            freeData[dataBuffers - 1 - i] = i;
        }
        this.freeDataTop = dataBuffers;
    }

    /** Registers the buffers and posts every receive (control path, before rdma_accept); throws on failure. */
    void start() {
        rq.register(ring.area, respArea, dataArea);
        int rc = ring.postAll(rq);
        if (rc != 0) {
            throw new DocaException(DocaError.DRIVER, "ibv_post_recv failed: errno " + rc);
        }
    }

    @Override
    public NvmfTransportType type() {
        return NvmfRdmaTransport.INSTANCE;
    }

    @Override
    public NvmfRequestPool requests() {
        return pool;
    }

    @Override
    public int inCapsuleDataSize() {
        return inCapsuleMax;
    }

    private NvmfCommandExecutor exec() {
        return qp.executor();
    }

    /** A request gave its data buffer back (from {@link NvmfRdmaRequest#clear}). */
    void freeData(int d) {
        freeData[freeDataTop++] = d;
    }

    /** Offset in {@link #dataArea} of {@code r}'s data buffer (the scratch buffer when it has none). */
    private long dataOffset(NvmfRdmaRequest r) {
        return (long) (r.data < 0 ? dataBuffers : r.data) * maxIo;
    }

    private static long respOffset(NvmfRequest r) {
        return (long) r.tag() * RESP_SIZE;
    }

    RdmaQueuePair queuePair() {
        return rq;
    }

    /** The controller's receive queue size for the accept's CRQSIZE: the host's send queue size. */
    int receiveQueueSize() {
        return ring.slots - 1;
    }

    /** Data buffers free now. */
    public int freeDataBuffers() {
        return freeDataTop;
    }

    /** Received capsules waiting for a request or a data buffer. */
    public int backlogCount() {
        return ring.backlogCount();
    }

    RdmaCapsuleRing ring() {
        return ring;
    }

    // ------------------------------------------------------------------ receiving

    @Override
    public int poll() {
        if (qp.closed()) {
            return 0;
        }
        int n = 0;
        while (ring.backlogged() && !qp.closed()) {
            if (!deliver(ring.peekSlot(), ring.peekLen())) {
                break;
            }
            ring.pop();
            n++;
        }
        for (int batch = 0; batch < 4 && !qp.closed(); batch++) {
            polling = true;
            int got;
            try {
                got = rq.poll(this, POLL_BATCH);
            } finally {
                polling = false;
            }
            if (releasePending) {
                memory.close(); // the queue pair is destroyed now: nothing can DMA into the buffers
                releasePending = false;
                return n;
            }
            if (got < 0) {
                qp.fail("recv", DocaError.CONNECTION_RESET, got);
                break;
            }
            n += got;
            if (got < POLL_BATCH) {
                break;
            }
        }
        return n;
    }

    @Override
    public void onCompletion(long wrId, int status, int byteLen) {
        if (qp.closed()) {
            return;
        }
        long kind = wrId & 0xffffffff00000000L;
        int idx = (int) wrId;
        if (status != WC_SUCCESS) {
            if (kind == KIND_SEND) {
                sendsInFlight--;
            }
            if (status != WC_WR_FLUSH_ERR || !disconnected) {
                LOG.log(System.Logger.Level.WARNING, "{0}: work completion status {1} (wr kind {2}); closing",
                        this, status, kind >>> 32);
            }
            qp.fail("rdma", DocaError.CONNECTION_RESET, status);
            return;
        }
        if (kind == RdmaCapsuleRing.KIND_RECV) {
            if (ring.backlogged() || !deliver(idx, byteLen)) {
                ring.defer(idx, byteLen);
            }
        } else if (kind == KIND_SEND) {
            sendsInFlight--;
            NvmfRequest r = pool.at(idx);
            if (r.state() == NvmfRequestState.TRANSFERRING_CONTROLLER_TO_HOST) {
                exec().completed(r); // the response left: its buffers may be reused now
            }
        } else if (kind == KIND_READ) {
            hostDataArrived((NvmfRdmaRequest) pool.at(idx));
        }
        // KIND_WRITE is unsignaled: only a failure comes back (above).
    }

    /**
     * Starts the command in capsule buffer {@code slot}; false (nothing done) when no request or
     * data buffer is free, so the capsule waits in the backlog.
     */
    private boolean deliver(int slot, int byteLen) {
        long base = ring.offset(slot);
        MemorySegment area = ring.area;
        if (byteLen < NvmeCommand.SIZE || byteLen > ring.capsuleSize) {
            // Not a command capsule (NVMe RDMA 1.0 §3.2): a broken host; nothing to answer.
            group.countProtocolError();
            LOG.log(System.Logger.Level.WARNING, "{0}: capsule of {1} bytes; closing", this, byteLen);
            qp.fail("protocol", DocaError.UNEXPECTED, 0);
            return true;
        }
        cmd.wrap(area, base);
        int id = KeyedSgl.id(area, base);
        boolean keyed = KeyedSgl.keyed(area, base);
        int keyedLen = keyed ? KeyedSgl.keyedLength(area, base) : 0;
        boolean needData = keyedLen > 0 && keyedLen <= maxIo;
        if (pool.available() == 0 || (needData && freeDataTop == 0)) {
            return false;
        }
        NvmfRdmaRequest r = (NvmfRdmaRequest) pool.get();
        capsules++;
        if (qp.state() == NvmfQpairState.CONNECTING) {
            qp.transition(NvmfQpairState.READY);
        }
        r.data = needData ? freeData[--freeDataTop] : -1;
        r.addr = keyed ? KeyedSgl.address(area, base) : 0;
        r.keyedLen = keyedLen;
        r.key = keyed ? KeyedSgl.key(area, base) : 0;
        r.invalidate = keyed && useInvalidate && KeyedSgl.subtype(area, base) == KeyedSgl.SUBTYPE_INVALIDATE_KEY;
        int dataOff = 0;
        int dataLen = 0;
        int refuse = NvmeStatus.SUCCESS;
        if (id == NvmeCommand.SGL_DATA_BLOCK_OFFSET) {
            long off = KeyedSgl.address(area, base);
            long len = KeyedSgl.blockLength(area, base);
            long room = byteLen - NvmeCommand.SIZE;
            if (off < 0 || len > room || off > room - len) {
                refuse = NvmeStatus.DATA_SGL_LENGTH_INVALID;
            } else if (len > 0 && (dataDirection(cmd) & 0x3) == 0x2) {
                refuse = NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID; // read data has no place in a capsule
            } else {
                dataOff = (int) (base + NvmeCommand.SIZE + off);
                dataLen = (int) len;
            }
        } else if (!keyed && cmd.sglLength() != 0) {
            refuse = NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID;
        } else if (keyedLen > maxIo) {
            refuse = NvmeStatus.DATA_SGL_LENGTH_INVALID;
        }
        if (refuse != NvmeStatus.SUCCESS) {
            exec().onRefusedCommand(r, cmd.cid(), refuse);
        } else {
            exec().onCommand(r, cmd, area, dataOff, dataLen, false);
        }
        if (!qp.closed() && ring.repost(rq, slot) != 0) {
            qp.fail("recv", DocaError.CONNECTION_RESET, 0);
        }
        return true;
    }

    /** The data direction bits of a command: the opcode's, or for Fabrics commands FCTYPE's (NVMe-oF 1.1 figure 10). */
    private static int dataDirection(NvmeCommand c) {
        int op = c.opcode();
        return op == NvmeOpcode.FABRICS ? c.fctype() : op;
    }

    private void hostDataArrived(NvmfRdmaRequest r) {
        if (!r.state().awaitsHostData()) {
            return; // a stale completion (the request was aborted meanwhile)
        }
        int off = r.readOff;
        exec().onHostData(r, dataArea, (int) (dataOffset(r) + off), off, r.readLen, NvmeStatus.SUCCESS);
    }

    // ------------------------------------------------------------------ sending

    @Override
    public int flush() {
        return 0; // every answer is posted to the send queue at once
    }

    @Override
    public boolean sendPending() {
        return sendsInFlight > 0 && !qp.closed();
    }

    @Override
    public boolean reserve(int dataLen) {
        // Every command owns its response buffer, its data buffer and send-queue room from arrival.
        return !qp.closed() && dataLen <= maxIo;
    }

    @Override
    public void complete(NvmfRequest req) {
        NvmfRdmaRequest r = (NvmfRdmaRequest) req;
        if (qp.closed()) {
            exec().completed(r); // the wire is gone: nothing to send, nothing to wait for
            return;
        }
        long off = putResponse(r);
        int rc = rq.postSend(KIND_SEND | r.tag(), off, RESP_SIZE, r.invalidate, r.key);
        if (rc != 0) {
            exec().completed(r);
            qp.fail("send", DocaError.CONNECTION_RESET, rc);
            return;
        }
        sendsInFlight++; // r ends when its SEND completes (onCompletion)
    }

    /** Writes {@code r}'s completion (CQE) into its response buffer; returns the buffer's offset. */
    private long putResponse(NvmfRdmaRequest r) {
        long off = respOffset(r);
        NvmeCompletion.encode(respArea, off, r.dw0(), r.dw1(), qp.sqhd(), Math.max(qp.qid(), 0), r.cid(), r.status());
        if (r.invalidate) {
            invalidates++;
        }
        return off;
    }

    @Override
    public long c2hBegin(NvmfRequest r, int len) {
        return dataOffset((NvmfRdmaRequest) r);
    }

    @Override
    public MemorySegment c2hBuffer() {
        return dataArea;
    }

    @Override
    public void c2hEnd(NvmfRequest req, int len, boolean complete) {
        NvmfRdmaRequest r = (NvmfRdmaRequest) req;
        int n = Math.min(len, r.keyedLen);
        if (!complete || n <= 0 || r.data < 0 || qp.closed()) {
            write(r, len);
            if (complete) {
                complete(r); // NVMe/RDMA has no data-completes-the-command: the response SEND follows
            }
            return;
        }
        // The data and the response in one post (one doorbell): WRITE, then the SEND that ends the command.
        long off = putResponse(r);
        int rc = rq.postWriteAndSend(KIND_WRITE | r.tag(), dataOffset(r), n, r.addr, r.key, KIND_SEND | r.tag(), off,
                RESP_SIZE, r.invalidate, r.key);
        if (rc != 0) {
            exec().completed(r);
            qp.fail("send", DocaError.CONNECTION_RESET, rc);
            return;
        }
        rdmaWrites++;
        sendsInFlight++; // r ends when its SEND completes (onCompletion)
    }

    @Override
    public void sendData(NvmfRequest req, MemorySegment src, long srcOff, int len) {
        NvmfRdmaRequest r = (NvmfRdmaRequest) req;
        int n = Math.min(len, Math.min(r.keyedLen, maxIo));
        if (n > 0) {
            MemorySegment.copy(src, srcOff, dataArea, dataOffset(r), n);
        }
        write(r, n);
    }

    /** RDMA WRITE of the request's data buffer to the host's keyed SGL (read data; NVMe RDMA 1.0 §3.2). */
    private void write(NvmfRdmaRequest r, int len) {
        int n = Math.min(len, r.keyedLen);
        if (n <= 0 || r.data < 0 || qp.closed()) {
            return; // the host named no memory for data: the completion tells it what happened
        }
        int rc = rq.postWrite(KIND_WRITE | r.tag(), dataOffset(r), n, r.addr, r.key);
        if (rc != 0) {
            qp.fail("send", DocaError.CONNECTION_RESET, rc);
            return;
        }
        rdmaWrites++;
    }

    @Override
    public void requestHostData(NvmfRequest req, int offset, int len) {
        NvmfRdmaRequest r = (NvmfRdmaRequest) req;
        if (qp.closed()) {
            return;
        }
        if (r.data < 0 || offset < 0 || len <= 0 || offset + len > r.keyedLen || offset + len > maxIo) {
            // The host's descriptor does not cover the data the command carries.
            exec().onHostData(r, dataArea, (int) dataOffset(r), offset, len, NvmeStatus.DATA_SGL_LENGTH_INVALID);
            return;
        }
        r.readOff = offset;
        r.readLen = len;
        int rc = rq.postRead(KIND_READ | r.tag(), dataOffset(r) + offset, len, r.addr + offset, r.key);
        if (rc != 0) {
            qp.fail("send", DocaError.CONNECTION_RESET, rc);
            return;
        }
        rdmaReads++;
    }

    // ------------------------------------------------------------------ identity and teardown

    @Override
    public int arm() {
        return rq.arm();
    }

    @Override
    public boolean headerDigest() {
        return false;
    }

    @Override
    public boolean dataDigest() {
        return false;
    }

    @Override
    public SocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public SocketAddress localAddress() {
        return local;
    }

    @Override
    public SelectableChannel selectable() {
        return null;
    }

    @Override
    public void close() {
        disconnected = true;
        rq.disconnect();
    }

    /** A failed start: the buffers go (the caller destroyed or keeps the verbs queue pair). */
    void releaseBuffersOnly() {
        memory.close();
    }

    @Override
    public void releaseMemory() {
        rq.destroy(); // the QP goes first: its posted receives point into the buffers
        if (polling) {
            releasePending = true;
        } else {
            memory.close();
        }
    }

    @Override
    public String toString() {
        return "NvmfRdmaQpair[qid=" + qp.qid() + ", " + remote + "]";
    }
}
