package io.jdoca.sta;

import io.jdoca.core.DocaError;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeCompletion;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.rdma.KeyedSgl;
import io.jdoca.sta.rdma.RdmaCompletionSink;
import io.jdoca.sta.rdma.RdmaQueuePair;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.nio.channels.SelectableChannel;

/**
 * The NVMe/RDMA transport of one queue pair (NVMe RDMA Transport Specification 1.0; NVMe over
 * Fabrics 1.1 §7.3): command capsules arrive as SENDs into the {@link RdmaCapsuleRing}; a keyed
 * SGL names host memory, which the controller RDMA-READs (host-to-controller data) or
 * RDMA-WRITEs (controller-to-host data) through the command's registered data buffer; in-capsule
 * data (offset SGL) is used where it lies; every response capsule (the 16-byte CQE) is a SEND,
 * with Invalidate of the host's key when the descriptor's sub-type asked for it (0xF). Commands go
 * to the queue pair's {@link NvmfCommandExecutor}; see {@link NvmfTransport} for the contract.
 *
 * <p>Everything is pre-allocated and registered at accept (queue depth from the connect private
 * data): capsule buffers, command contexts ({@link RdmaCommandTable}) with response and data
 * buffers. An I/O allocates nothing: posts and polls are FFM downcalls with status codes.
 *
 * <p>Not thread-safe: the owning IO engine's thread.
 */
final class NvmeRdmaConnection implements NvmfTransport, RdmaCompletionSink {
    private static final System.Logger LOG = System.getLogger(NvmeRdmaConnection.class.getName());
    static final long KIND_SEND = 2L << 32;
    static final long KIND_READ = 3L << 32;
    static final long KIND_WRITE = 4L << 32;
    private static final int POLL_BATCH = 16;

    private final StaQp qp;
    private final StaIo io;
    private final RdmaQueuePair rq;
    private final Arena arena = Arena.ofShared();
    private final int maxIo;
    private final RdmaCapsuleRing ring;
    private final RdmaCommandTable cmds;
    private final NvmeCommand cmd = new NvmeCommand();
    private final SocketAddress remote;
    private final SocketAddress local;
    private final boolean useInvalidate;
    private NvmfCommandExecutor exec;
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
    NvmeRdmaConnection(StaQp qp, StaIo io, RdmaQueuePair rq, int depth, int maxIo, int inCapsuleMax,
                       SocketAddress remote, SocketAddress local, boolean invalidate) {
        this.qp = qp;
        this.io = io;
        this.rq = rq;
        this.maxIo = maxIo;
        this.remote = remote;
        this.local = local;
        this.useInvalidate = invalidate;
        this.ring = new RdmaCapsuleRing(arena, depth + 1, NvmeCommand.SIZE + inCapsuleMax);
        // A context stays busy until its response SEND completes locally, while the host may
        // already reuse the command's slot: twice the depth covers every in-flight response.
        this.cmds = new RdmaCommandTable(arena, 2 * depth, Math.min(depth, 32), maxIo);
    }

    /** Registers the buffers and posts every receive (control path, before rdma_accept); throws on failure. */
    void start() {
        rq.register(ring.area, cmds.respArea, cmds.dataArea);
        int rc = ring.postAll(rq);
        if (rc != 0) {
            throw new io.jdoca.core.DocaException(DocaError.DRIVER, "ibv_post_recv failed: errno " + rc);
        }
    }

    void attach(NvmfCommandExecutor executor) {
        this.exec = executor;
    }

    RdmaQueuePair queuePair() {
        return rq;
    }

    /** The controller's receive queue size for the accept's CRQSIZE: the host's send queue size. */
    int receiveQueueSize() {
        return ring.slots - 1;
    }

    RdmaCommandTable commands() {
        return cmds;
    }

    RdmaCapsuleRing ring() {
        return ring;
    }

    // ------------------------------------------------------------------ receiving

    @Override
    public int poll() {
        if (qp.state == StaQpState.CLOSED) {
            return 0;
        }
        int n = 0;
        while (ring.backlogged() && qp.state != StaQpState.CLOSED) {
            if (!deliver(ring.peekSlot(), ring.peekLen())) {
                break;
            }
            ring.pop();
            n++;
        }
        for (int batch = 0; batch < 4 && qp.state != StaQpState.CLOSED; batch++) {
            polling = true;
            int got;
            try {
                got = rq.poll(this, POLL_BATCH);
            } finally {
                polling = false;
            }
            if (releasePending) {
                arena.close(); // the queue pair is destroyed now: nothing can DMA into the buffers
                releasePending = false;
                return n;
            }
            if (got < 0) {
                io.teardown(qp, "recv", DocaError.CONNECTION_RESET, got);
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
        if (qp.state == StaQpState.CLOSED) {
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
                        qp, status, kind >>> 32);
            }
            io.teardown(qp, "rdma", DocaError.CONNECTION_RESET, status);
            return;
        }
        if (kind == RdmaCapsuleRing.KIND_RECV) {
            if (ring.backlogged() || !deliver(idx, byteLen)) {
                ring.defer(idx, byteLen);
            }
        } else if (kind == KIND_SEND) {
            sendsInFlight--;
            cmds.release(idx);
        } else if (kind == KIND_READ) {
            hostDataArrived(idx);
        }
        // KIND_WRITE is unsignaled: only a failure comes back (above).
    }

    /**
     * Starts the command in capsule buffer {@code slot}; false (nothing done) when no context or
     * data buffer is free, so the capsule waits in the backlog.
     */
    private boolean deliver(int slot, int byteLen) {
        long base = ring.offset(slot);
        MemorySegment area = ring.area;
        if (byteLen < NvmeCommand.SIZE || byteLen > ring.capsuleSize) {
            // Not a command capsule (NVMe RDMA 1.0 §3.2): a broken host; nothing to answer.
            io.protocolErrors++;
            LOG.log(System.Logger.Level.WARNING, "{0}: capsule of {1} bytes; closing", qp, byteLen);
            io.teardown(qp, "protocol", DocaError.UNEXPECTED, 0);
            return true;
        }
        cmd.wrap(area, base);
        int c = cmd.cid();
        int id = KeyedSgl.id(area, base);
        boolean keyed = KeyedSgl.keyed(area, base);
        int keyedLen = keyed ? KeyedSgl.keyedLength(area, base) : 0;
        int ctx = cmds.start(c, keyedLen > 0);
        if (ctx == -1) {
            return false;
        }
        if (ctx == -2) {
            io.protocolErrors++;
            LOG.log(System.Logger.Level.WARNING, "{0}: CID {1} already outstanding; closing", qp, c);
            io.teardown(qp, "protocol", DocaError.UNEXPECTED, 0);
            return true;
        }
        capsules++;
        if (qp.state == StaQpState.CONNECTING) {
            qp.transition(StaQpState.READY);
        }
        cmds.addr[ctx] = keyed ? KeyedSgl.address(area, base) : 0;
        cmds.len[ctx] = keyedLen;
        cmds.key[ctx] = keyed ? KeyedSgl.key(area, base) : 0;
        cmds.invalidate[ctx] = keyed && useInvalidate && KeyedSgl.subtype(area, base) == KeyedSgl.SUBTYPE_INVALIDATE_KEY;
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
            qp.advanceSqHead();
            sendCompletion(c, refuse, 0, 0);
        } else {
            exec.onCommand(cmd, area, dataOff, dataLen, false);
        }
        if (qp.state != StaQpState.CLOSED && ring.repost(rq, slot) != 0) {
            io.teardown(qp, "recv", DocaError.CONNECTION_RESET, 0);
        }
        return true;
    }

    /** The data direction bits of a command: the opcode's, or for Fabrics commands FCTYPE's (NVMe-oF 1.1 figure 10). */
    private static int dataDirection(NvmeCommand c) {
        int op = c.opcode();
        return op == NvmeOpcode.FABRICS ? c.fctype() : op;
    }

    private void hostDataArrived(int ctx) {
        if (cmds.transition(ctx, RdmaCommandState.EXECUTING) != DocaError.SUCCESS) {
            return;
        }
        StaRequest r = cmds.request[ctx];
        int off = cmds.readOff[ctx];
        exec.onHostData(r, cmds.dataArea, (int) (cmds.dataOffset(ctx) + off), off, cmds.readLen[ctx], NvmeStatus.SUCCESS);
    }

    // ------------------------------------------------------------------ sending

    @Override
    public int flush() {
        return 0; // every answer is posted to the send queue at once
    }

    @Override
    public boolean sendPending() {
        return sendsInFlight > 0 && qp.state != StaQpState.CLOSED;
    }

    @Override
    public boolean reserve(int dataLen) {
        // Every command owns its response buffer, its data buffer and send-queue room from arrival.
        return qp.state != StaQpState.CLOSED && dataLen <= maxIo;
    }

    @Override
    public void sendCompletion(int cid, int status, int dw0, int dw1) {
        int ctx = cmds.lookup(cid);
        if (ctx < 0 || cmds.state[ctx] != RdmaCommandState.EXECUTING || qp.state == StaQpState.CLOSED) {
            return; // no such outstanding command (the application answered twice), or the wire is gone
        }
        long off = cmds.respOffset(ctx);
        NvmeCompletion.encode(cmds.respArea, off, dw0, dw1, qp.sqhd, Math.max(qp.qid(), 0), cid, status);
        boolean inv = cmds.invalidate[ctx];
        int key = cmds.key[ctx];
        cmds.responding(ctx);
        if (inv) {
            invalidates++;
        }
        int rc = rq.postSend(KIND_SEND | ctx, off, RdmaCommandTable.RESP_SIZE, inv, key);
        if (rc != 0) {
            io.teardown(qp, "send", DocaError.CONNECTION_RESET, rc);
            return;
        }
        sendsInFlight++;
    }

    @Override
    public long c2hBegin(int cid, int len) {
        int ctx = cmds.lookup(cid);
        return ctx < 0 ? (long) cmds.dataBuffers * cmds.dataSize : cmds.dataOffset(ctx);
    }

    @Override
    public MemorySegment c2hBuffer() {
        return cmds.dataArea;
    }

    @Override
    public void c2hEnd(int cid, int len, boolean success) {
        int ctx = cmds.lookup(cid);
        if (ctx < 0) {
            return;
        }
        write(ctx, len);
        if (success) {
            sendCompletion(cid, NvmeStatus.SUCCESS, 0, 0);
        }
    }

    @Override
    public void sendData(int cid, MemorySegment src, long srcOff, int len) {
        int ctx = cmds.lookup(cid);
        if (ctx < 0) {
            return;
        }
        int n = Math.min(len, Math.min(cmds.len[ctx], maxIo));
        if (n > 0) {
            MemorySegment.copy(src, srcOff, cmds.dataArea, cmds.dataOffset(ctx), n);
        }
        write(ctx, n);
    }

    /** RDMA WRITE of the context's data buffer to the host's keyed SGL (read data; NVMe RDMA 1.0 §3.2). */
    private void write(int ctx, int len) {
        int n = Math.min(len, cmds.len[ctx]);
        if (n <= 0 || cmds.data[ctx] < 0 || qp.state == StaQpState.CLOSED) {
            return; // the host named no memory for data: the completion tells it what happened
        }
        int rc = rq.postWrite(KIND_WRITE | ctx, cmds.dataOffset(ctx), n, cmds.addr[ctx], cmds.key[ctx]);
        if (rc != 0) {
            io.teardown(qp, "send", DocaError.CONNECTION_RESET, rc);
            return;
        }
        rdmaWrites++;
    }

    @Override
    public void requestHostData(StaRequest r, int offset, int len) {
        int ctx = cmds.lookup(r.cid);
        if (ctx < 0 || qp.state == StaQpState.CLOSED) {
            return;
        }
        if (cmds.data[ctx] < 0 || offset < 0 || len <= 0 || offset + len > cmds.len[ctx] || offset + len > maxIo) {
            // The host's descriptor does not cover the data the command carries.
            exec.onHostData(r, cmds.dataArea, (int) cmds.dataOffset(ctx), offset, len, NvmeStatus.DATA_SGL_LENGTH_INVALID);
            return;
        }
        cmds.request[ctx] = r;
        cmds.readOff[ctx] = offset;
        cmds.readLen[ctx] = len;
        cmds.transition(ctx, RdmaCommandState.FETCHING_HOST_DATA);
        int rc = rq.postRead(KIND_READ | ctx, cmds.dataOffset(ctx) + offset, len, cmds.addr[ctx] + offset, cmds.key[ctx]);
        if (rc != 0) {
            io.teardown(qp, "send", DocaError.CONNECTION_RESET, rc);
            return;
        }
        rdmaReads++;
    }

    // ------------------------------------------------------------------ identity and teardown

    @Override
    public boolean terminating() {
        return false;
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

    @Override
    public void releaseMemory() {
        rq.destroy(); // the QP goes first: its posted receives point into the arena
        if (polling) {
            releasePending = true;
        } else {
            arena.close();
        }
    }
}
