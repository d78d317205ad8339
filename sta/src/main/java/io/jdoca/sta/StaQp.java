package io.jdoca.sta;

import static io.jdoca.sta.pdu.NvmeTcpPdu.DIGEST_LEN;

import io.jdoca.core.DocaError;
import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeCompletion;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.pdu.DataPdu;
import io.jdoca.sta.pdu.IcReqPdu;
import io.jdoca.sta.pdu.IcRespPdu;
import io.jdoca.sta.pdu.NvmeTcpPdu;
import io.jdoca.sta.pdu.PduDigest;
import io.jdoca.sta.pdu.TermReqPdu;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An STA queue pair ({@code doca_sta_qp}): one NVMe/TCP connection, owned by the {@link StaIo}
 * that accepted it. The engine runs the NVMe/TCP connection (ICReq/ICResp, digests, PDU framing,
 * R2T/H2CData, C2HData) and executes offloaded I/O between the socket and the back-ends; the rest
 * goes to the application's non-offload callback.
 *
 * <p><b>Threads.</b> Every method is for the owning IO context's thread, except the getters of
 * immutable identity ({@link #id()}, {@link #remoteAddress()}) and {@link #state()}.
 */
public final class StaQp {
    private static final AtomicInteger IDS = new AtomicInteger();
    private static final System.Logger LOG = System.getLogger(StaQp.class.getName());

    // Per-slot kinds (what a transfer tag is used for).
    private static final byte SLOT_FREE = 0;
    private static final byte SLOT_WRITE = 1;
    private static final byte SLOT_FETCH = 2;
    /** Host data of a Compare or Dataset Management fetched with R2T into the QP's staging buffer. */
    private static final byte SLOT_STAGE = 3;

    private final int id = IDS.incrementAndGet();
    private final StaIo io;
    private final ByteChannel ch;
    private final SocketAddress remote;
    private final SocketAddress local;
    private final Arena arena;
    private final int maxIo;
    private final int inCapsuleMax;
    private final int rxCap;
    private final int txCap;
    private final MemorySegment rx;
    private final ByteBuffer rxBuf;
    private final MemorySegment tx;
    private final ByteBuffer txBuf;
    private final PduDigest rxDigest;
    private final PduDigest txDigest;
    private final NvmeCommand cmd = new NvmeCommand();
    private final IcReqPdu icReq = new IcReqPdu();
    private int rxLen;
    private int txHead;
    private int txTail;

    volatile StaQpState state = StaQpState.CONNECTING;
    private boolean hdgst;
    private boolean ddgst;
    private int hd;
    /** PDO of C2HData PDUs: header + header digest, padded to the host's HPDA alignment. */
    private int c2hPdo = NvmeTcpPdu.DATA_HLEN;
    private int qid = -1;
    private boolean sqFlowDisabled;
    private int sqsize = 32;
    private int sqhd;
    private StaSubsystem subsystem;
    private Object userObject;
    private long userData;
    boolean appInitiatedClose;

    // Transfer-tag slots: R2T writes and non-offload fetches.
    private final byte[] slotKind;
    private final int[] slotCid;
    private final int[] slotStatus;
    private final long[] slotOffset;
    private final int[] slotLen;
    private final int[] slotRecv;
    private final StaNamespace[] slotNs;
    private final StaBeQueue[] slotQueue;
    private final StaIoTaskNonOffloadRead[] slotTask;
    private final int[] slotOpcode;
    private final int[] slotCdw10;
    private final int[] slotCdw11;
    private final long[] slotSlba;
    private final int[] slotNlb;
    /** One staging buffer per QP (max I/O size) for Compare/DSM data that was not in the capsule. */
    private final MemorySegment stage;
    private int stageOwner = -1;
    private final int[] freeSlots;
    private int freeTop;
    int activeSlots;

    StaQp(StaIo io, ByteChannel ch, int maxIo, int inCapsuleMax, int slots) {
        this.io = io;
        this.ch = ch;
        SocketAddress r = null;
        SocketAddress l = null;
        if (ch instanceof SocketChannel sc) {
            try {
                r = sc.getRemoteAddress();
                l = sc.getLocalAddress();
            } catch (IOException e) {
                r = null;
            }
        }
        this.remote = r;
        this.local = l;
        this.maxIo = maxIo;
        this.inCapsuleMax = Math.max(inCapsuleMax, 8192);
        this.rxCap = Math.max(maxIo, this.inCapsuleMax) + 512;
        this.txCap = 4 * maxIo + 4096;
        this.arena = Arena.ofShared();
        this.rx = arena.allocate(rxCap, 4096);
        this.tx = arena.allocate(txCap, 4096);
        this.rxBuf = rx.asByteBuffer();
        this.txBuf = tx.asByteBuffer();
        this.rxDigest = new PduDigest(rx);
        this.txDigest = new PduDigest(tx);
        this.slotKind = new byte[slots];
        this.slotCid = new int[slots];
        this.slotStatus = new int[slots];
        this.slotOffset = new long[slots];
        this.slotLen = new int[slots];
        this.slotRecv = new int[slots];
        this.slotNs = new StaNamespace[slots];
        this.slotQueue = new StaBeQueue[slots];
        this.slotTask = new StaIoTaskNonOffloadRead[slots];
        this.slotOpcode = new int[slots];
        this.slotCdw10 = new int[slots];
        this.slotCdw11 = new int[slots];
        this.slotSlba = new long[slots];
        this.slotNlb = new int[slots];
        this.stage = arena.allocate(maxIo, 4096);
        this.freeSlots = new int[slots];
        for (int i = 0; i < slots; i++) {
            freeSlots[i] = slots - 1 - i;
        }
        this.freeTop = slots;
    }

    // ------------------------------------------------------------------ public API

    /** A process-unique id ({@code doca_sta_io_qp_get_id}). */
    public int id() {
        return id;
    }

    public StaIo io() {
        return io;
    }

    public StaQpState state() {
        return state;
    }

    /** The peer's address, or null (in-memory channels). */
    public SocketAddress remoteAddress() {
        return remote;
    }

    /** The local (listener-side) address the host connected to, or null (in-memory channels). */
    public SocketAddress localAddress() {
        return local;
    }

    /** NVMe queue id from the Fabrics Connect (-1 before Connect). */
    public int qid() {
        return qid;
    }

    /** Submission queue size in entries (1-based), set with {@link StaIo#qpConnectSetSqSize}. */
    public int sqSize() {
        return sqsize;
    }

    /** The subsystem bound by {@link StaIo#qpAddSubsystem}, or null. */
    public StaSubsystem subsystem() {
        return subsystem;
    }

    /** True when the host disabled SQ flow control at Connect (CATTR bit 2): successful reads end with C2HData SUCCESS. */
    public boolean sqFlowControlDisabled() {
        return sqFlowDisabled;
    }

    public boolean headerDigest() {
        return hdgst;
    }

    public boolean dataDigest() {
        return ddgst;
    }

    public Object userObject() {
        return userObject;
    }

    public void setUserObject(Object o) {
        this.userObject = o;
    }

    public long userData() {
        return userData;
    }

    public void setUserData(long ud) {
        this.userData = ud;
    }

    @Override
    public String toString() {
        return "StaQp[" + id + ", qid=" + qid + ", " + state + ", " + remote + "]";
    }

    // ------------------------------------------------------------------ binding (StaIo)

    void bind(StaSubsystem s) {
        this.subsystem = s;
    }

    void setSqSize(int n) {
        this.sqsize = n;
    }

    private boolean transition(StaQpState next) {
        if (!state.canTransitionTo(next)) {
            return false;
        }
        state = next;
        return true;
    }

    // ------------------------------------------------------------------ engine

    /** Bytes the send buffer can still take at its tail. */
    int txFree() {
        return txCap - txTail;
    }

    boolean txPending() {
        return txTail > txHead;
    }

    /** Makes {@code need} contiguous bytes available at the tail, flushing and compacting; false if it cannot now. */
    boolean ensureTx(int need) {
        if (txCap - txTail >= need) {
            return true;
        }
        flush();
        if (state == StaQpState.CLOSED) {
            return false; // the socket failed during the flush; buffers are gone
        }
        if (txHead > 0) {
            int pending = txTail - txHead;
            MemorySegment.copy(tx, txHead, tx, 0, pending);
            txHead = 0;
            txTail = pending;
        }
        return txCap - txTail >= need;
    }

    /** Writes as much of the send buffer as the socket takes; returns bytes written or -1 on error. */
    int flush() {
        if (txTail == txHead || state == StaQpState.CLOSED) {
            return 0;
        }
        try {
            txBuf.limit(txTail).position(txHead);
            int n = ch.write(txBuf);
            txBuf.clear();
            txHead += n;
            if (txHead == txTail) {
                txHead = 0;
                txTail = 0;
            }
            return n;
        } catch (IOException e) {
            txBuf.clear();
            io.teardown(this, "send", DocaError.CONNECTION_RESET, 0);
            return -1;
        }
    }

    /** One duty cycle for this QP: send, receive, parse. Returns PDUs handled. */
    int poll() {
        if (state == StaQpState.CLOSED) {
            return 0;
        }
        flush();
        if (state == StaQpState.TERMINATING) {
            if (!txPending()) {
                io.teardown(this, "protocol", DocaError.UNEXPECTED, 0);
            }
            return 0;
        }
        if (state == StaQpState.CLOSED) {
            return 0;
        }
        if (rxLen < rxCap) {
            try {
                rxBuf.limit(rxCap).position(rxLen);
                int n = ch.read(rxBuf);
                rxBuf.clear();
                if (n < 0) {
                    io.teardown(this, "recv", DocaError.CONNECTION_RESET, 0);
                    return 0;
                }
                rxLen += n;
            } catch (IOException e) {
                rxBuf.clear();
                io.teardown(this, "recv", DocaError.CONNECTION_RESET, 0);
                return 0;
            }
        }
        int handled = parse();
        flush();
        return handled;
    }

    private int parse() {
        int pos = 0;
        int handled = 0;
        while (rxLen - pos >= NvmeTcpPdu.CH_LEN && (state == StaQpState.CONNECTING || state == StaQpState.READY
                || state == StaQpState.DISCONNECTING)) {
            int type = NvmeTcpPdu.type(rx, pos);
            int hlen = NvmeTcpPdu.hlen(rx, pos);
            long plen = NvmeTcpPdu.plen(rx, pos);
            if (plen < NvmeTcpPdu.CH_LEN || plen < hlen) {
                fatal(pos, TermReqPdu.FES_INVALID_HEADER_FIELD, NvmeTcpPdu.OFF_PLEN);
                break;
            }
            if (plen > rxCap) {
                fatal(pos, TermReqPdu.FES_INVALID_HEADER_FIELD, NvmeTcpPdu.OFF_PLEN);
                break;
            }
            if (rxLen - pos < plen) {
                break;
            }
            // Worst case one PDU produces a C2HData of maxIo plus a response: reserve before handling.
            if (!ensureTx(maxIo + 256)) {
                break;
            }
            handlePdu(pos, type, hlen, (int) plen);
            handled++;
            pos += (int) plen;
        }
        if (state == StaQpState.TERMINATING || state == StaQpState.CLOSED) {
            rxLen = 0;
            return handled;
        }
        if (pos > 0) {
            int rest = rxLen - pos;
            if (rest > 0) {
                MemorySegment.copy(rx, pos, rx, 0, rest);
            }
            rxLen = rest;
        }
        return handled;
    }

    private void handlePdu(int base, int type, int hlen, int plen) {
        if (state == StaQpState.CONNECTING) {
            if (type != NvmeTcpPdu.TYPE_IC_REQ) {
                fatal(base, TermReqPdu.FES_PDU_SEQUENCE_ERROR, 0);
                return;
            }
            handleIcReq(base, hlen, plen);
            return;
        }
        switch (type) {
            case NvmeTcpPdu.TYPE_CAPSULE_CMD -> handleCapsule(base, hlen, plen);
            case NvmeTcpPdu.TYPE_H2C_DATA -> handleH2CData(base, hlen, plen);
            case NvmeTcpPdu.TYPE_H2C_TERM_REQ -> {
                LOG.log(System.Logger.Level.WARNING, "{0}: host sent H2CTermReq FES {1}", this, TermReqPdu.fes(rx, base));
                io.teardown(this, "protocol", DocaError.CONNECTION_ABORTED, TermReqPdu.fes(rx, base));
            }
            case NvmeTcpPdu.TYPE_IC_REQ -> fatal(base, TermReqPdu.FES_PDU_SEQUENCE_ERROR, 0);
            default -> fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, NvmeTcpPdu.OFF_PDU_TYPE);
        }
    }

    private void handleIcReq(int base, int hlen, int plen) {
        if (hlen != NvmeTcpPdu.IC_LEN || plen != NvmeTcpPdu.IC_LEN) {
            fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, hlen != NvmeTcpPdu.IC_LEN ? NvmeTcpPdu.OFF_HLEN : NvmeTcpPdu.OFF_PLEN);
            return;
        }
        icReq.wrap(rx, base);
        if (icReq.pfv() != 0) {
            fatal(base, TermReqPdu.FES_UNSUPPORTED_PARAMETER, IcReqPdu.OFF_PFV);
            return;
        }
        if (icReq.hpda() > 31) {
            fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, IcReqPdu.OFF_HPDA);
            return;
        }
        hdgst = icReq.headerDigest();
        ddgst = icReq.dataDigest();
        hd = hdgst ? DIGEST_LEN : 0;
        // HPDA is 0's based dwords (NVMe/TCP 1.0 §3.6.2.2): data in controller-to-host PDUs starts on that alignment.
        int align = (icReq.hpda() + 1) * 4;
        c2hPdo = (NvmeTcpPdu.DATA_HLEN + hd + align - 1) / align * align;
        IcRespPdu.encode(tx, txTail, hdgst, ddgst, maxIo);
        txTail += NvmeTcpPdu.IC_LEN;
        transition(StaQpState.READY);
    }

    private boolean checkHeader(int base, int hlen, int expectHlen, int flags) {
        if (hlen != expectHlen) {
            fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, NvmeTcpPdu.OFF_HLEN);
            return false;
        }
        if (hdgst) {
            if ((flags & NvmeTcpPdu.FLAG_HDGSTF) == 0) {
                fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, NvmeTcpPdu.OFF_FLAGS);
                return false;
            }
            if (!rxDigest.check(base, hlen)) {
                io.digestErrors++;
                fatal(base, TermReqPdu.FES_HEADER_DIGEST_ERROR, 0);
                return false;
            }
        }
        return true;
    }

    private void handleCapsule(int base, int hlen, int plen) {
        int flags = NvmeTcpPdu.flags(rx, base);
        if (!checkHeader(base, hlen, NvmeTcpPdu.CAPSULE_CMD_HLEN, flags)) {
            return;
        }
        int dataOff = 0;
        int dataLen = 0;
        boolean ddError = false;
        if (plen > hlen + hd) {
            int pdo = NvmeTcpPdu.pdo(rx, base);
            int dd = (ddgst && (flags & NvmeTcpPdu.FLAG_DDGSTF) != 0) ? DIGEST_LEN : 0;
            if (pdo < hlen + hd || pdo + dd > plen) {
                fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, NvmeTcpPdu.OFF_PDO);
                return;
            }
            dataOff = base + pdo;
            dataLen = plen - pdo - dd;
            if (dd != 0 && !rxDigest.check(dataOff, dataLen)) {
                io.digestErrors++;
                ddError = true;
            }
        } else if (plen != hlen + hd) {
            fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, NvmeTcpPdu.OFF_PLEN);
            return;
        }
        long sqe = base + NvmeTcpPdu.CH_LEN;
        cmd.wrap(rx, sqe);
        int cid = cmd.cid();
        int opcode = cmd.opcode();
        sqhd = sqhd + 1 >= sqsize ? 0 : sqhd + 1;
        if (ddError) {
            putResp(cid, NvmeStatus.TRANSIENT_TRANSPORT_ERROR, 0, 0);
            return;
        }
        if (state == StaQpState.DISCONNECTING) {
            putResp(cid, NvmeStatus.ABORTED_SQ_DELETION, 0, 0);
            return;
        }
        if (dataLen > 0 && cmd.sglType() != NvmeCommand.SGL_DATA_BLOCK_OFFSET) {
            putResp(cid, NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID, 0, 0);
            return;
        }
        StaSubsystem subs = subsystem;
        if (subs != null && qid > 0 && opcode != NvmeOpcode.FABRICS && offloadable(opcode)) {
            executeIo(subs, opcode, cid, dataOff, dataLen);
            return;
        }
        if (opcode == NvmeOpcode.FABRICS && cmd.fctype() == NvmeOpcode.FCTYPE_CONNECT && qid < 0) {
            // The transport needs the queue id and size from Connect; the application decides whether to accept.
            qid = FabricsConnectCommand.qid(rx, sqe);
            sqsize = FabricsConnectCommand.sqsize(rx, sqe) + 1;
            // CATTR bit 2: the host disabled SQ flow control, so reads may complete with C2HData SUCCESS alone.
            sqFlowDisabled = (FabricsConnectCommand.cattr(rx, sqe) & 0x4) != 0;
        }
        io.nonOffloaded++;
        boolean needsFetch = dataLen == 0 && NvmeOpcode.hostToController(opcode) && cmd.sglLength() > 0;
        if (!io.deliverNonOffload(this, cmd, dataLen > 0 ? rx.asSlice(dataOff, dataLen) : null, dataLen, !needsFetch)) {
            putResp(cid, NvmeStatus.INVALID_OPCODE, 0, 0);
        }
    }

    private static boolean offloadable(int opcode) {
        return opcode == NvmeOpcode.IO_READ || opcode == NvmeOpcode.IO_WRITE || opcode == NvmeOpcode.IO_FLUSH
                || opcode == NvmeOpcode.IO_WRITE_ZEROES || opcode == NvmeOpcode.IO_DATASET_MANAGEMENT
                || opcode == NvmeOpcode.IO_COMPARE;
    }

    private void executeIo(StaSubsystem subs, int opcode, int cid, int dataOff, int dataLen) {
        StaNamespace ns = subs.ns(cmd.nsid());
        if (ns == null || ns.removed) {
            io.ioErrors++;
            putResp(cid, NvmeStatus.INVALID_NAMESPACE, 0, 0);
            return;
        }
        StaBeQueue q = ns.backend().queueFor(io.index());
        if (q == null || q.destroyed || ns.backend().isDestroyed()) {
            io.ioErrors++;
            ns.errors.incrementAndGet();
            putResp(cid, NvmeStatus.NAMESPACE_NOT_READY, 0, 0);
            return;
        }
        ns.inflight.incrementAndGet();
        q.inflight.incrementAndGet();
        try {
            switch (opcode) {
                case NvmeOpcode.IO_READ -> doRead(ns, q, cid);
                case NvmeOpcode.IO_WRITE -> doWrite(ns, q, cid, dataOff, dataLen);
                case NvmeOpcode.IO_COMPARE -> {
                    if (dataLen == 0 && wantsStage(ns, q, cid, opcode)) {
                        return;
                    }
                    doCompare(ns, q, cid, rx, dataOff, dataLen, cmd.slba(), cmd.nlb());
                }
                case NvmeOpcode.IO_FLUSH -> {
                    long t0 = System.nanoTime();
                    int st = ns.backend().flush();
                    checkTimeout(q, ns, opcode, t0);
                    q.otherOps.incrementAndGet();
                    ns.otherOps.incrementAndGet();
                    finish(ns, q, cid, st);
                }
                case NvmeOpcode.IO_WRITE_ZEROES -> {
                    long slba = cmd.slba();
                    int nlb = cmd.nlb();
                    int st = rangeStatus(ns, slba, nlb);
                    if (st == NvmeStatus.SUCCESS) {
                        long t0 = System.nanoTime();
                        st = ns.backend().writeZeroes(slba << ns.blockShift(), (long) nlb << ns.blockShift(), io.scratch());
                        checkTimeout(q, ns, opcode, t0);
                    }
                    q.otherOps.incrementAndGet();
                    ns.otherOps.incrementAndGet();
                    finish(ns, q, cid, st);
                }
                default -> {
                    if (dataLen == 0 && wantsStage(ns, q, cid, opcode)) {
                        return;
                    }
                    doDsm(ns, q, cid, rx, dataOff, dataLen, cmd.cdw10(), cmd.cdw11());
                }
            }
        } finally {
            // Slots that wait for H2CData keep their own reference (released when the transfer ends).
            ns.inflight.decrementAndGet();
            q.inflight.decrementAndGet();
        }
    }

    private void finish(StaNamespace ns, StaBeQueue q, int cid, int status) {
        if (status != NvmeStatus.SUCCESS) {
            io.ioErrors++;
            ns.errors.incrementAndGet();
            q.errors.incrementAndGet();
        }
        putResp(cid, status, 0, 0);
    }

    private static int rangeStatus(StaNamespace ns, long slba, int nlb) {
        if (slba < 0 || slba + nlb > ns.sizeBlocks() || slba + nlb < slba) {
            return NvmeStatus.LBA_OUT_OF_RANGE;
        }
        return NvmeStatus.SUCCESS;
    }

    private void checkTimeout(StaBeQueue q, StaNamespace ns, int opcode, long t0) {
        long el = System.nanoTime() - t0;
        if (el > io.sta().backendTimeoutNanos()) {
            q.timeouts.incrementAndGet();
            io.sta().reportBackendTimeout(q, ns, opcode, el);
        }
    }

    private int transferStatus(StaNamespace ns, long slba, int nlb, long len) {
        int st = rangeStatus(ns, slba, nlb);
        if (st != NvmeStatus.SUCCESS) {
            return st;
        }
        if (len > maxIo) {
            return NvmeStatus.INVALID_FIELD;
        }
        if (cmd.sglLength() < len) {
            return NvmeStatus.DATA_SGL_LENGTH_INVALID;
        }
        return NvmeStatus.SUCCESS;
    }

    private void doRead(StaNamespace ns, StaBeQueue q, int cid) {
        long slba = cmd.slba();
        int nlb = cmd.nlb();
        long len = (long) nlb << ns.blockShift();
        int st = transferStatus(ns, slba, nlb, len);
        if (st != NvmeStatus.SUCCESS) {
            finish(ns, q, cid, st);
            return;
        }
        int n = (int) len;
        int dd = ddgst ? DIGEST_LEN : 0;
        int pdo = c2hPdo;
        int hdr = txTail;
        int data = hdr + pdo;
        long t0 = System.nanoTime();
        st = ns.backend().read(slba << ns.blockShift(), tx, data, n, io.scratch());
        checkTimeout(q, ns, NvmeOpcode.IO_READ, t0);
        if (st != NvmeStatus.SUCCESS) {
            finish(ns, q, cid, st);
            return;
        }
        int flags = NvmeTcpPdu.FLAG_DATA_LAST | (hdgst ? NvmeTcpPdu.FLAG_HDGSTF : 0) | (dd != 0 ? NvmeTcpPdu.FLAG_DDGSTF : 0)
                | (sqFlowDisabled ? NvmeTcpPdu.FLAG_DATA_SUCCESS : 0);
        DataPdu.encode(tx, hdr, NvmeTcpPdu.TYPE_C2H_DATA, flags, pdo, pdo + n + dd, cid, 0, 0, n);
        if (hdgst) {
            txDigest.put(hdr, NvmeTcpPdu.DATA_HLEN);
        }
        padC2H(hdr);
        if (dd != 0) {
            txDigest.put(data, n);
        }
        txTail = data + n + dd;
        q.reads.incrementAndGet();
        q.readBytes.addAndGet(n);
        ns.reads.incrementAndGet();
        ns.readBytes.addAndGet(n);
        io.reads++;
        io.readBytes += n;
        if (!sqFlowDisabled) {
            putResp(cid, NvmeStatus.SUCCESS, 0, 0);
        }
    }

    private void doWrite(StaNamespace ns, StaBeQueue q, int cid, int dataOff, int dataLen) {
        long slba = cmd.slba();
        int nlb = cmd.nlb();
        long len = (long) nlb << ns.blockShift();
        int st = transferStatus(ns, slba, nlb, len);
        if (st == NvmeStatus.SUCCESS && dataLen > 0 && dataLen != len) {
            st = NvmeStatus.DATA_SGL_LENGTH_INVALID;
        }
        if (st == NvmeStatus.SUCCESS && dataLen > inCapsuleMax) {
            st = NvmeStatus.DATA_SGL_LENGTH_INVALID;
        }
        if (st != NvmeStatus.SUCCESS) {
            finish(ns, q, cid, st);
            return;
        }
        if (dataLen > 0) {
            long t0 = System.nanoTime();
            st = ns.backend().write(slba << ns.blockShift(), rx, dataOff, dataLen, io.scratch());
            checkTimeout(q, ns, NvmeOpcode.IO_WRITE, t0);
            countWrite(ns, q, dataLen);
            finish(ns, q, cid, st);
            return;
        }
        if (freeTop == 0) {
            finish(ns, q, cid, NvmeStatus.INTERNAL_ERROR);
            return;
        }
        int slot = freeSlots[--freeTop];
        activeSlots++;
        slotKind[slot] = SLOT_WRITE;
        slotCid[slot] = cid;
        slotStatus[slot] = NvmeStatus.SUCCESS;
        slotOffset[slot] = slba << ns.blockShift();
        slotLen[slot] = (int) len;
        slotRecv[slot] = 0;
        slotNs[slot] = ns;
        slotQueue[slot] = q;
        ns.inflight.incrementAndGet();
        q.inflight.incrementAndGet();
        putR2T(cid, slot, 0, (int) len);
    }

    private void countWrite(StaNamespace ns, StaBeQueue q, int n) {
        q.writes.incrementAndGet();
        q.writeBytes.addAndGet(n);
        ns.writes.incrementAndGet();
        ns.writeBytes.addAndGet(n);
        io.writes++;
        io.writeBytes += n;
    }

    /**
     * Compare or DSM whose host data is not in the capsule: validate, then fetch it with R2T into
     * the staging buffer and execute when it has arrived. Returns false when the command should be
     * executed (and rejected) right away instead.
     */
    private boolean wantsStage(StaNamespace ns, StaBeQueue q, int cid, int opcode) {
        if (cmd.sglType() != NvmeCommand.SGL_TRANSPORT_DATA_BLOCK) {
            return false;
        }
        long need;
        if (opcode == NvmeOpcode.IO_COMPARE) {
            need = (long) cmd.nlb() << ns.blockShift();
            if (transferStatus(ns, cmd.slba(), cmd.nlb(), need) != NvmeStatus.SUCCESS) {
                return false;
            }
        } else {
            need = ((cmd.cdw10() & 0xff) + 1) * 16L;
            if (cmd.sglLength() < need) {
                return false;
            }
        }
        if (stageOwner >= 0 || freeTop == 0) {
            // The single staging buffer is busy: the host retries (Command Interrupted, no DNR).
            finish(ns, q, cid, NvmeStatus.COMMAND_INTERRUPTED);
            return true;
        }
        int slot = freeSlots[--freeTop];
        activeSlots++;
        stageOwner = slot;
        slotKind[slot] = SLOT_STAGE;
        slotCid[slot] = cid;
        slotStatus[slot] = NvmeStatus.SUCCESS;
        slotLen[slot] = (int) need;
        slotRecv[slot] = 0;
        slotNs[slot] = ns;
        slotQueue[slot] = q;
        slotOpcode[slot] = opcode;
        slotCdw10[slot] = cmd.cdw10();
        slotCdw11[slot] = cmd.cdw11();
        slotSlba[slot] = cmd.slba();
        slotNlb[slot] = cmd.nlb();
        ns.inflight.incrementAndGet();
        q.inflight.incrementAndGet();
        putR2T(cid, slot, 0, (int) need);
        return true;
    }

    private void doCompare(StaNamespace ns, StaBeQueue q, int cid, MemorySegment src, long dataOff, int dataLen, long slba, int nlb) {
        long len = (long) nlb << ns.blockShift();
        int st = transferStatus(ns, slba, nlb, len);
        if (st == NvmeStatus.SUCCESS && dataLen != len) {
            st = dataLen == 0 ? NvmeStatus.INVALID_FIELD : NvmeStatus.DATA_SGL_LENGTH_INVALID;
        }
        if (st == NvmeStatus.SUCCESS) {
            MemorySegment scratch = io.scratch();
            st = ns.backend().read(slba << ns.blockShift(), scratch, 0, dataLen, scratch);
            if (st == NvmeStatus.SUCCESS
                    && MemorySegment.mismatch(scratch, 0, dataLen, src, dataOff, dataOff + dataLen) != -1) {
                st = NvmeStatus.COMPARE_FAILURE;
            }
        }
        q.otherOps.incrementAndGet();
        ns.otherOps.incrementAndGet();
        finish(ns, q, cid, st);
    }

    /** Dataset Management (NVM Command Set 1.0 §3.2.3): ranges of 16 bytes {attrs, NLB, SLBA}; AD (CDW11 bit 2) deallocates. */
    private void doDsm(StaNamespace ns, StaBeQueue q, int cid, MemorySegment src, long dataOff, int dataLen, int cdw10, int cdw11) {
        int nr = (cdw10 & 0xff) + 1;
        boolean deallocate = (cdw11 & 0x4) != 0;
        int st = NvmeStatus.SUCCESS;
        // The buffer must hold the NR ranges; it may be longer (Linux always sends a 4096-byte
        // buffer, room for 256 ranges, whatever NR is), and the tail is ignored, as nvmet does.
        if (dataLen < nr * 16) {
            st = dataLen == 0 ? NvmeStatus.INVALID_FIELD : NvmeStatus.DATA_SGL_LENGTH_INVALID;
        }
        for (int i = 0; st == NvmeStatus.SUCCESS && i < nr; i++) {
            long r = dataOff + i * 16L;
            long nlb = src.get(NvmeTcpPdu.LE32, r + 4) & 0xffffffffL;
            long slba = src.get(NvmeTcpPdu.LE64, r + 8);
            if (slba < 0 || slba + nlb > ns.sizeBlocks()) {
                st = NvmeStatus.LBA_OUT_OF_RANGE;
            }
        }
        for (int i = 0; deallocate && st == NvmeStatus.SUCCESS && i < nr; i++) {
            long r = dataOff + i * 16L;
            long nlb = src.get(NvmeTcpPdu.LE32, r + 4) & 0xffffffffL;
            long slba = src.get(NvmeTcpPdu.LE64, r + 8);
            if (nlb > 0) {
                st = ns.backend().deallocate(slba << ns.blockShift(), nlb << ns.blockShift(), io.scratch());
            }
        }
        q.otherOps.incrementAndGet();
        ns.otherOps.incrementAndGet();
        finish(ns, q, cid, st);
    }

    private void handleH2CData(int base, int hlen, int plen) {
        int flags = NvmeTcpPdu.flags(rx, base);
        if (!checkHeader(base, hlen, NvmeTcpPdu.DATA_HLEN, flags)) {
            return;
        }
        int ttag = DataPdu.ttag(rx, base);
        int cid = DataPdu.cccid(rx, base);
        if (ttag >= slotKind.length || slotKind[ttag] == SLOT_FREE) {
            fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, DataPdu.OFF_TTAG);
            return;
        }
        if (slotCid[ttag] != cid) {
            fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, DataPdu.OFF_CCCID);
            return;
        }
        int pdo = NvmeTcpPdu.pdo(rx, base);
        int dd = (ddgst && (flags & NvmeTcpPdu.FLAG_DDGSTF) != 0) ? DIGEST_LEN : 0;
        long datao = DataPdu.datao(rx, base);
        long datal = DataPdu.datal(rx, base);
        if (pdo < hlen + hd || pdo + datal + dd != plen) {
            fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, pdo < hlen + hd ? NvmeTcpPdu.OFF_PDO : DataPdu.OFF_DATAL);
            return;
        }
        if (datao != slotRecv[ttag] || datao + datal > slotLen[ttag]) {
            fatal(base, TermReqPdu.FES_DATA_OUT_OF_RANGE, DataPdu.OFF_DATAO);
            return;
        }
        if (datal > maxIo) {
            fatal(base, TermReqPdu.FES_R2T_LIMIT_EXCEEDED, DataPdu.OFF_DATAL);
            return;
        }
        int n = (int) datal;
        int dataOff = base + pdo;
        if (dd != 0 && !rxDigest.check(dataOff, n)) {
            io.digestErrors++;
            slotStatus[ttag] = NvmeStatus.TRANSIENT_TRANSPORT_ERROR;
        }
        if (slotKind[ttag] == SLOT_WRITE) {
            if (slotStatus[ttag] == NvmeStatus.SUCCESS && n > 0) {
                StaNamespace ns = slotNs[ttag];
                StaBeQueue q = slotQueue[ttag];
                if (ns.removed || q.destroyed) {
                    slotStatus[ttag] = ns.removed ? NvmeStatus.INVALID_NAMESPACE : NvmeStatus.NAMESPACE_NOT_READY;
                } else {
                    long t0 = System.nanoTime();
                    slotStatus[ttag] = ns.backend().write(slotOffset[ttag] + datao, rx, dataOff, n, io.scratch());
                    checkTimeout(q, ns, NvmeOpcode.IO_WRITE, t0);
                }
            }
        } else if (slotKind[ttag] == SLOT_STAGE) {
            MemorySegment.copy(rx, dataOff, stage, datao, n);
        } else {
            StaIoTaskNonOffloadRead t = slotTask[ttag];
            MemorySegment.copy(rx, dataOff, t.dst, t.dstOffset + datao, n);
        }
        slotRecv[ttag] += n;
        if (slotRecv[ttag] == slotLen[ttag]) {
            completeSlot(ttag);
        }
    }

    private void completeSlot(int slot) {
        if (slotKind[slot] == SLOT_WRITE) {
            StaNamespace ns = slotNs[slot];
            StaBeQueue q = slotQueue[slot];
            int st = slotStatus[slot];
            countWrite(ns, q, slotLen[slot]);
            ns.inflight.decrementAndGet();
            q.inflight.decrementAndGet();
            releaseSlot(slot);
            finish(ns, q, slotCid[slot], st);
        } else if (slotKind[slot] == SLOT_STAGE) {
            StaNamespace ns = slotNs[slot];
            StaBeQueue q = slotQueue[slot];
            int st = slotStatus[slot];
            int len = slotLen[slot];
            stageOwner = -1;
            releaseSlot(slot);
            if (st != NvmeStatus.SUCCESS || ns.removed || q.destroyed) {
                ns.inflight.decrementAndGet();
                q.inflight.decrementAndGet();
                finish(ns, q, slotCid[slot], st != NvmeStatus.SUCCESS ? st
                        : ns.removed ? NvmeStatus.INVALID_NAMESPACE : NvmeStatus.NAMESPACE_NOT_READY);
                return;
            }
            if (slotOpcode[slot] == NvmeOpcode.IO_COMPARE) {
                doCompare(ns, q, slotCid[slot], stage, 0, len, slotSlba[slot], slotNlb[slot]);
            } else {
                doDsm(ns, q, slotCid[slot], stage, 0, len, slotCdw10[slot], slotCdw11[slot]);
            }
            ns.inflight.decrementAndGet();
            q.inflight.decrementAndGet();
        } else {
            StaIoTaskNonOffloadRead t = slotTask[slot];
            int st = slotStatus[slot];
            releaseSlot(slot);
            io.completeTask(t, st == NvmeStatus.SUCCESS ? DocaError.SUCCESS : DocaError.IO_FAILED);
        }
    }

    private void releaseSlot(int slot) {
        slotKind[slot] = SLOT_FREE;
        slotNs[slot] = null;
        slotQueue[slot] = null;
        slotTask[slot] = null;
        freeSlots[freeTop++] = slot;
        activeSlots--;
    }

    /** Starts a non-offload fetch (R2T for the command's data); false when no slot is free. */
    boolean startFetch(StaIoTaskNonOffloadRead t) {
        if (freeTop == 0) {
            return false;
        }
        int slot = freeSlots[--freeTop];
        activeSlots++;
        slotKind[slot] = SLOT_FETCH;
        slotCid[slot] = t.cid;
        slotStatus[slot] = NvmeStatus.SUCCESS;
        slotLen[slot] = t.len;
        slotRecv[slot] = 0;
        slotTask[slot] = t;
        putR2T(t.cid, slot, 0, t.len);
        return true;
    }

    /** Fails every slot (connection gone): offloaded writes are dropped, fetch tasks complete with {@code why}. */
    void failSlots(DocaError why) {
        for (int s = 0; s < slotKind.length; s++) {
            if (slotKind[s] == SLOT_WRITE || slotKind[s] == SLOT_STAGE) {
                slotNs[s].inflight.decrementAndGet();
                slotQueue[s].inflight.decrementAndGet();
                releaseSlot(s);
            } else if (slotKind[s] == SLOT_FETCH) {
                StaIoTaskNonOffloadRead t = slotTask[s];
                releaseSlot(s);
                io.completeTask(t, why);
            }
        }
        stageOwner = -1;
    }

    // ------------------------------------------------------------------ PDU writers

    /** Bytes a CapsuleResp needs in the send buffer. */
    int respSize() {
        return NvmeTcpPdu.CAPSULE_RESP_HLEN + hd;
    }

    /** Appends a CapsuleResp; the caller made room (every handler runs after ensureTx). */
    void putResp(int cid, int status, int dw0, int dw1) {
        int b = txTail;
        NvmeTcpPdu.putHeader(tx, b, NvmeTcpPdu.TYPE_CAPSULE_RESP, hdgst ? NvmeTcpPdu.FLAG_HDGSTF : 0,
                NvmeTcpPdu.CAPSULE_RESP_HLEN, 0, NvmeTcpPdu.CAPSULE_RESP_HLEN + hd);
        NvmeCompletion.encode(tx, b + NvmeTcpPdu.CH_LEN, dw0, dw1, sqhd, Math.max(qid, 0), cid, status);
        if (hdgst) {
            txDigest.put(b, NvmeTcpPdu.CAPSULE_RESP_HLEN);
        }
        txTail = b + NvmeTcpPdu.CAPSULE_RESP_HLEN + hd;
    }

    private void putR2T(int cid, int ttag, int offset, int len) {
        int b = txTail;
        DataPdu.encode(tx, b, NvmeTcpPdu.TYPE_R2T, hdgst ? NvmeTcpPdu.FLAG_HDGSTF : 0, 0,
                NvmeTcpPdu.R2T_HLEN + hd, cid, ttag, offset, len);
        if (hdgst) {
            txDigest.put(b, NvmeTcpPdu.R2T_HLEN);
        }
        txTail = b + NvmeTcpPdu.R2T_HLEN + hd;
    }

    /** Bytes a C2HData of {@code n} bytes plus a response need. */
    int dataSendSize(int n) {
        return c2hPdo + n + (ddgst ? DIGEST_LEN : 0) + respSize();
    }

    /** Zeroes the padding between header (+ digest) and data (HPDA > 0 only). */
    private void padC2H(int b) {
        for (int i = NvmeTcpPdu.DATA_HLEN + hd; i < c2hPdo; i++) {
            tx.set(NvmeTcpPdu.U8, b + i, (byte) 0);
        }
    }

    /** Appends C2HData PDUs carrying {@code len} bytes of {@code src} (chunks of maxIo). */
    void putC2HData(int cid, MemorySegment src, long srcOff, int len) {
        int done = 0;
        while (done < len) {
            int n = Math.min(len - done, maxIo);
            int dd = ddgst ? DIGEST_LEN : 0;
            int pdo = c2hPdo;
            int b = txTail;
            boolean last = done + n == len;
            int flags = (last ? NvmeTcpPdu.FLAG_DATA_LAST : 0) | (hdgst ? NvmeTcpPdu.FLAG_HDGSTF : 0)
                    | (dd != 0 ? NvmeTcpPdu.FLAG_DDGSTF : 0);
            DataPdu.encode(tx, b, NvmeTcpPdu.TYPE_C2H_DATA, flags, pdo, pdo + n + dd, cid, 0, done, n);
            MemorySegment.copy(src, srcOff + done, tx, b + pdo, n);
            if (hdgst) {
                txDigest.put(b, NvmeTcpPdu.DATA_HLEN);
            }
            padC2H(b);
            if (dd != 0) {
                txDigest.put(b + pdo, n);
            }
            txTail = b + pdo + n + dd;
            done += n;
        }
    }

    int maxIo() {
        return maxIo;
    }

    /**
     * Fatal transport error: appends a C2HTermReq carrying the offending header and closes once it
     * is sent (NVMe/TCP 1.0 §3.6.2.5: the controller terminates the connection).
     */
    void fatal(int base, int fes, int fei) {
        io.protocolErrors++;
        int hlen = Math.min(NvmeTcpPdu.hlen(rx, base), TermReqPdu.MAX_DATA);
        int avail = Math.min(hlen, rxLen - base);
        if (avail < NvmeTcpPdu.CH_LEN) {
            avail = Math.min(NvmeTcpPdu.CH_LEN, rxLen - base);
        }
        if (ensureTx(NvmeTcpPdu.TERM_REQ_HLEN + TermReqPdu.MAX_DATA)) {
            int b = txTail;
            TermReqPdu.encode(tx, b, NvmeTcpPdu.TYPE_C2H_TERM_REQ, fes, fei, avail);
            MemorySegment.copy(rx, base, tx, b + NvmeTcpPdu.TERM_REQ_HLEN, avail);
            txTail = b + NvmeTcpPdu.TERM_REQ_HLEN + avail;
        }
        LOG.log(System.Logger.Level.WARNING, "{0}: fatal transport error FES {1} FEI {2}; closing", this, fes, fei);
        lastFes = fes;
        transition(StaQpState.TERMINATING);
    }

    int lastFes;

    boolean startDisconnect() {
        return transition(StaQpState.DISCONNECTING);
    }

    /** Closes the socket and frees buffers (IO thread). */
    void close() {
        if (state == StaQpState.CLOSED) {
            return;
        }
        state = StaQpState.CLOSED;
        try {
            ch.close();
        } catch (IOException e) {
            // already closed by the peer
        }
    }

    void releaseMemory() {
        arena.close();
    }

    ByteChannel channel() {
        return ch;
    }

    /** Drains the socket-independent end: true once nothing is left to send and no transfer is pending. */
    boolean drained() {
        return !txPending() && activeSlots == 0;
    }
}
