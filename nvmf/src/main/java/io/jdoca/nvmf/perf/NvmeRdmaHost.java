package io.jdoca.nvmf.perf;

import static io.jdoca.verbs.VerbsConstants.IBV_ACCESS_LOCAL_WRITE;
import static io.jdoca.verbs.VerbsConstants.IBV_ACCESS_REMOTE_READ;
import static io.jdoca.verbs.VerbsConstants.IBV_ACCESS_REMOTE_WRITE;
import static io.jdoca.verbs.VerbsConstants.IBV_QPT_RC;
import static io.jdoca.verbs.VerbsConstants.IBV_SEND_SIGNALED;
import static io.jdoca.verbs.VerbsConstants.IBV_WC_SUCCESS;
import static io.jdoca.verbs.VerbsConstants.IBV_WR_SEND;
import static io.jdoca.verbs.VerbsConstants.POLLIN;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeCompletion;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvmf.rdma.KeyedSgl;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaCmAccept;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaCmReject;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaCmRequest;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import io.jdoca.verbs.ContextOps;
import io.jdoca.verbs.Libc;
import io.jdoca.verbs.RdmaCm;
import io.jdoca.verbs.Verbs;
import io.jdoca.verbs.VerbsConstants;
import io.jdoca.verbs.VerbsException;
import io.jdoca.verbs.VerbsLayouts;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;

/**
 * A small NVMe/RDMA host (initiator) for one queue, per the NVMe RDMA Transport Specification 1.0
 * and NVMe over Fabrics 1.1 §7.3: rdma_cm connect ({@code RDMA_PS_TCP}) with the NVMe/RDMA private
 * data (RECFMT 0, QID, HRQSIZE, HSQSIZE, CNTLID; {@link NvmeRdmaCmRequest}), one RC QP, then
 * Fabrics Connect, Property Get/Set and admin commands (control path, blocking with a deadline) and
 * pipelined Read/Write (data path). Every command capsule is a 64-byte SQE sent by RDMA SEND from
 * a registered per-command slot; responses (16-byte CQEs) arrive by SEND into receives posted up
 * front and re-posted as they complete; every data transfer is described by a keyed SGL data block
 * ({@link KeyedSgl}) over a registered per-command data slot, so the controller RDMA-WRITEs read
 * data into it and RDMA-READs write data from it (no in-capsule data: it works with any IOCCSZ,
 * and the Linux host does the same on its admin queue). Posting reuses pre-built work requests and
 * nothing on the I/O path allocates. {@link #awaitReadable} sleeps on the CQ's completion channel.
 *
 * <p>Not thread-safe: one thread per host queue (as {@link NvmeTcpHost}).
 */
public final class NvmeRdmaHost implements NvmeHostQueue {
    /** The controller's answer to a connect or a blocking wait does not come within this (TCG guests are slow). */
    static final long CONTROL_TIMEOUT_NANOS = 120_000_000_000L;
    /** PSDT = 01b (SGLs; NVMe Base 2.0 figure 87): a Fabrics command must use SGLs (nvmet refuses anything else). */
    static final int FLAGS_SGL = 0x40;
    /** Receive slot size: a response capsule is a 16-byte CQE (IORCSZ 1); room to spare. */
    static final int RESP_SLOT = 64;
    private static final int WC_BATCH = 16;
    private static final long WC_SIZE = VerbsLayouts.IBV_WC.byteSize();
    private static final long WR_RECV = 1L << 32;
    private static final long WR_SEND = 2L << 32;
    private static final int CID_CONNECT = 0x7000;
    private static final int CID_PROP_SET = 0x7001;
    private static final int CID_PROP_GET = 0x7002;
    private static final int CID_ADMIN_READ = 0x7003;
    private static final int CID_ADMIN = 0x7004;
    private static final long PFD_FD = VerbsLayouts.offset(VerbsLayouts.POLLFD, "fd");
    private static final long PFD_EVENTS = VerbsLayouts.offset(VerbsLayouts.POLLFD, "events");
    private static final long PFD_REVENTS = VerbsLayouts.offset(VerbsLayouts.POLLFD, "revents");

    /** The rdma_cm connection phase; transitions only as {@link #canMoveTo} allows. */
    enum Phase {
        IDLE, ADDR_RESOLVED, ROUTE_RESOLVED, CONNECTED, DISCONNECTED, ERROR;

        boolean canMoveTo(Phase next) {
            return switch (this) {
                case IDLE -> next == ADDR_RESOLVED || next == ERROR;
                case ADDR_RESOLVED -> next == ROUTE_RESOLVED || next == ERROR;
                case ROUTE_RESOLVED -> next == CONNECTED || next == ERROR;
                case CONNECTED -> next == DISCONNECTED || next == ERROR;
                case DISCONNECTED, ERROR -> false;
            };
        }
    }

    private final String address;
    private final int port;
    private final int maxCid;
    private final int dataSlot;
    private final Arena arena = Arena.ofConfined();
    /** SQEs: slot i for cid i (I/O), slot maxCid for the blocking control commands. */
    private final MemorySegment cmds;
    private final MemorySegment data;
    private final int[] ioLen;
    private final boolean[] ioRead;
    private final MemorySegment eventCell = arena.allocate(ADDRESS);
    private final MemorySegment badWr = arena.allocate(ADDRESS);
    private final MemorySegment cqCell = arena.allocate(ADDRESS);
    private final MemorySegment ctxCell = arena.allocate(ADDRESS);
    private final MemorySegment pollFd = arena.allocate(VerbsLayouts.POLLFD);
    private final MemorySegment wcs = arena.allocate(VerbsLayouts.IBV_WC, WC_BATCH);
    private final MemorySegment recvWr = arena.allocate(VerbsLayouts.IBV_RECV_WR);
    private final MemorySegment recvSge = arena.allocate(VerbsLayouts.IBV_SGE);
    private final MemorySegment sendWr = arena.allocate(VerbsLayouts.IBV_SEND_WR);
    private final MemorySegment sendSge = arena.allocate(VerbsLayouts.IBV_SGE);

    private Phase phase = Phase.IDLE;
    private String failure;
    private MemorySegment channel = MemorySegment.NULL;
    private MemorySegment id = MemorySegment.NULL;
    private MemorySegment pd = MemorySegment.NULL;
    private MemorySegment compChannel = MemorySegment.NULL;
    private MemorySegment cq = MemorySegment.NULL;
    private MemorySegment qp = MemorySegment.NULL;
    private boolean qpCreated;
    private ContextOps ops;
    private MemorySegment cmdMr = MemorySegment.NULL;
    private MemorySegment respMr = MemorySegment.NULL;
    private MemorySegment dataMr = MemorySegment.NULL;
    private MemorySegment resps;
    private int recvDepth;
    private int cmdLkey;
    private int respLkey;
    private int dataLkey;
    private int dataRkey;
    private int crqsize;
    private int sendsOutstanding;
    private int sendDepth;
    private boolean armed;
    private NvmeTcpHost.Listener listener;
    private int waitCid = -1;
    private boolean waitDone;
    private final int[] waitResult = new int[3];

    /**
     * A host queue toward {@code address:port} (an IPv4 literal on an RDMA device) for cids
     * {@code 0..maxCid-1} of at most {@code maxIo} bytes each. Nothing is opened until {@link #connect}.
     */
    public NvmeRdmaHost(String address, int port, int maxCid, int maxIo) {
        this.address = address;
        this.port = port;
        this.maxCid = maxCid;
        this.dataSlot = (int) align(Math.max(maxIo, 4096), 4096);
        this.cmds = arena.allocate((long) (maxCid + 1) * NvmeCommand.SIZE, 4096);
        this.data = arena.allocate((long) (maxCid + 1) * dataSlot, 4096);
        this.ioLen = new int[maxCid];
        this.ioRead = new boolean[maxCid];
    }

    private static long align(long v, long a) {
        return (v + a - 1) / a * a;
    }

    @Override
    public void setListener(NvmeTcpHost.Listener l) {
        this.listener = l;
    }

    @Override
    public void initialize() {
        // NVMe/RDMA has no ICReq: the queue's parameters travel in the rdma_cm private data at connect
    }

    /** The controller's receive queue size from its accept (CRQSIZE; 0 before connect). */
    public int crqsize() {
        return crqsize;
    }

    // ------------------------------------------------------------------ wire encoding (static, tested)

    /** The rdma_cm request private data for queue {@code qid} of SQSIZE {@code sqsize0} (0's based). */
    static void encodePrivateData(MemorySegment s, long base, int qid, int sqsize0, int cntlid) {
        // HSQSIZE = the SQSIZE of Connect (0's based), HRQSIZE = the completions we can take (1's based)
        NvmeRdmaCmRequest.encode(s, base, qid, sqsize0 + 1, sqsize0, cntlid);
    }

    /** Read or Write of {@code nlb} blocks at {@code slba} with host memory at {@code addr}/{@code rkey}. */
    static void encodeIo(MemorySegment s, long sqe, int opcode, int cid, int nsid, long slba, int nlb, long addr, int len,
                         int rkey) {
        NvmeCommand.encode(s, sqe, opcode, cid, nsid);
        s.set(NvmeTcpPdu.U8, sqe + NvmeCommand.OFF_FLAGS, (byte) FLAGS_SGL);
        NvmeCommand.putRange(s, sqe, slba, nlb);
        KeyedSgl.putKeyed(s, sqe, addr, len, rkey, false);
    }

    /** Fabrics Connect SQE whose 1024-byte data the controller RDMA-READs from {@code addr}/{@code rkey}. */
    static void encodeConnect(MemorySegment s, long sqe, int cid, int qid, int sqsize0, long katoMs, int cattr, long addr,
                              int rkey) {
        FabricsConnectCommand.encode(s, sqe, cid, qid, sqsize0, katoMs, cattr);
        s.set(NvmeTcpPdu.U8, sqe + NvmeCommand.OFF_FLAGS, (byte) FLAGS_SGL);
        KeyedSgl.putKeyed(s, sqe, addr, FabricsConnectCommand.DATA_LEN, rkey, false);
    }

    // ------------------------------------------------------------------ control path

    @Override
    public int[] connect(int qid, int sqsize0, String subnqn, String hostnqn, int cntlid, long katoMs, int cattr)
            throws IOException {
        if (phase != Phase.IDLE) {
            throw new IOException("NVMe/RDMA queue already connected (state " + phase + ")");
        }
        if (!RdmaCm.isAvailable()) {
            throw new IOException(RdmaCm.unavailableReason());
        }
        InetAddress a = InetAddress.getByName(address);
        if (!(a instanceof Inet4Address v4)) {
            throw new IOException("traddr " + address + " is not an IPv4 address (NVMe/RDMA here is IPv4 only)");
        }
        int entries = sqsize0 + 1;
        try {
            channel = RdmaCm.createEventChannel();
            id = RdmaCm.startClient(channel, v4, port, 5000);
            awaitPhase(Phase.ROUTE_RESOLVED, "address and route resolution of " + address);
            setupQp(entries);
            MemorySegment priv = arena.allocate(NvmeRdmaCmRequest.LEN);
            encodePrivateData(priv, 0, qid, sqsize0, cntlid);
            // the controller RDMA-READs write data from us: our responder resources; we read nothing of its
            MemorySegment cp = RdmaCm.connParam(arena.allocate(VerbsLayouts.RDMA_CONN_PARAM), priv, NvmeRdmaCmRequest.LEN,
                    16, 16, true, 7, 7, 0, false);
            RdmaCm.connect(id, cp);
            awaitPhase(Phase.CONNECTED, "rdma_cm connect to " + address + ":" + port);
        } catch (VerbsException e) {
            throw new IOException(e.getMessage(), e);
        }
        long slot = (long) maxCid * dataSlot;
        FabricsConnectCommand.encodeData(data, slot, new byte[16], cntlid, subnqn, hostnqn);
        long sqe = (long) maxCid * NvmeCommand.SIZE;
        encodeConnect(cmds, sqe, CID_CONNECT, qid, sqsize0, katoMs, cattr, data.address() + slot, dataRkey);
        return control(CID_CONNECT);
    }

    private void setupQp(int entries) {
        MemorySegment ctx = RdmaCm.verbs(id);
        if (ctx.equals(MemorySegment.NULL)) {
            throw new VerbsException("rdma_cm", "the address " + address + " is not on an RDMA device");
        }
        ops = new ContextOps(ctx);
        pd = Verbs.allocPd(ctx);
        compChannel = Verbs.createCompChannel(ctx);
        sendDepth = entries + 1;
        recvDepth = entries;
        cq = Verbs.createCq(ctx, sendDepth + recvDepth, compChannel, 0);
        MemorySegment init = arena.allocate(VerbsLayouts.IBV_QP_INIT_ATTR);
        init.set(ADDRESS, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "send_cq"), cq);
        init.set(ADDRESS, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "recv_cq"), cq);
        init.set(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "cap.max_send_wr"), sendDepth);
        init.set(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "cap.max_recv_wr"), recvDepth);
        init.set(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "cap.max_send_sge"), 1);
        init.set(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "cap.max_recv_sge"), 1);
        init.set(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "qp_type"), IBV_QPT_RC);
        qp = RdmaCm.createQp(id, pd, init);
        qpCreated = true;
        resps = arena.allocate((long) recvDepth * RESP_SLOT, 4096);
        cmdMr = Verbs.regMr(pd, cmds, 0);
        respMr = Verbs.regMr(pd, resps, IBV_ACCESS_LOCAL_WRITE);
        dataMr = Verbs.regMr(pd, data, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
        cmdLkey = Verbs.lkey(cmdMr);
        respLkey = Verbs.lkey(respMr);
        dataLkey = Verbs.lkey(dataMr);
        dataRkey = Verbs.rkey(dataMr);
        recvWr.set(ADDRESS, VerbsLayouts.RWR_SG_LIST, recvSge);
        recvWr.set(JAVA_INT, VerbsLayouts.RWR_NUM_SGE, 1);
        sendWr.set(ADDRESS, VerbsLayouts.SWR_SG_LIST, sendSge);
        sendWr.set(JAVA_INT, VerbsLayouts.SWR_NUM_SGE, 1);
        sendWr.set(JAVA_INT, VerbsLayouts.SWR_OPCODE, IBV_WR_SEND);
        sendWr.set(JAVA_INT, VerbsLayouts.SWR_SEND_FLAGS, IBV_SEND_SIGNALED);
        for (int i = 0; i < recvDepth; i++) {
            int rc = postRecv(i);
            if (rc != 0) {
                throw new VerbsException("ibv_post_recv", rc);
            }
        }
        int rc = ops.reqNotifyCq(cq, false);
        if (rc != 0) {
            throw new VerbsException("ibv_req_notify_cq", rc);
        }
        armed = true;
    }

    /** Runs the CM event loop until {@code want} (or an error, or the deadline). */
    private void awaitPhase(Phase want, String what) throws IOException {
        long deadline = System.nanoTime() + CONTROL_TIMEOUT_NANOS;
        pollFd.set(JAVA_INT, PFD_FD, RdmaCm.eventChannelFd(channel));
        pollFd.set(JAVA_SHORT, PFD_EVENTS, (short) POLLIN);
        while (phase != want) {
            if (phase == Phase.ERROR || phase == Phase.DISCONNECTED) {
                throw new IOException(what + " failed: " + (failure != null ? failure : phase));
            }
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                throw new IOException(what + " timed out after " + CONTROL_TIMEOUT_NANOS / 1_000_000_000L + " s");
            }
            pollFd.set(JAVA_SHORT, PFD_REVENTS, (short) 0);
            if (Libc.poll(pollFd, 1, (int) Math.min(left, 1000)) > 0 && (pollFd.get(JAVA_SHORT, PFD_REVENTS) & POLLIN) != 0) {
                cmEvent();
            }
        }
    }

    @SuppressWarnings("restricted") // FFM: the event's private data is a raw pointer of the length the event says
    private void cmEvent() {
        MemorySegment ev = RdmaCm.getCmEvent(channel, eventCell);
        try {
            int type = ev.get(JAVA_INT, VerbsLayouts.CM_EVENT_EVENT);
            int status = ev.get(JAVA_INT, VerbsLayouts.CM_EVENT_STATUS);
            MemorySegment pdata = ev.get(ADDRESS, VerbsLayouts.CM_EVENT_PRIVATE_DATA);
            int plen = ev.get(JAVA_BYTE, VerbsLayouts.CM_EVENT_PRIVATE_DATA_LEN) & 0xff;
            switch (type) {
                // the client sequence shared with jdoca's other rdma_cm clients (RdmaCm.startClient / clientStep)
                case VerbsConstants.RDMA_CM_EVENT_ADDR_RESOLVED, VerbsConstants.RDMA_CM_EVENT_ROUTE_RESOLVED ->
                        move(RdmaCm.clientStep(id, type, 5000) == RdmaCm.ClientStep.ROUTE_PENDING ? Phase.ADDR_RESOLVED
                                : Phase.ROUTE_RESOLVED);
                case VerbsConstants.RDMA_CM_EVENT_ESTABLISHED, VerbsConstants.RDMA_CM_EVENT_CONNECT_RESPONSE -> {
                    if (plen >= 4 && !pdata.equals(MemorySegment.NULL)) {
                        crqsize = NvmeRdmaCmAccept.crqsize(pdata.reinterpret(plen), 0);
                    }
                    move(Phase.CONNECTED);
                }
                case VerbsConstants.RDMA_CM_EVENT_REJECTED -> {
                    String why = "rejected (status " + status + ")";
                    if (plen >= NvmeRdmaCmReject.LEN && !pdata.equals(MemorySegment.NULL)) {
                        why = "rejected by the controller: " + NvmeRdmaCmReject.describe(NvmeRdmaCmReject.sts(pdata.reinterpret(plen), 0));
                    }
                    error(why);
                }
                case VerbsConstants.RDMA_CM_EVENT_DISCONNECTED -> move(Phase.DISCONNECTED);
                case VerbsConstants.RDMA_CM_EVENT_ADDR_ERROR, VerbsConstants.RDMA_CM_EVENT_ROUTE_ERROR,
                        VerbsConstants.RDMA_CM_EVENT_CONNECT_ERROR, VerbsConstants.RDMA_CM_EVENT_UNREACHABLE,
                        VerbsConstants.RDMA_CM_EVENT_DEVICE_REMOVAL -> error(RdmaCm.eventName(type) + " (status " + status + ")");
                default -> { } // e.g. TIMEWAIT_EXIT: nothing to do
            }
        } finally {
            RdmaCm.ackCmEvent(ev);
        }
    }

    private void move(Phase next) {
        if (phase == next) {
            return;
        }
        if (!phase.canMoveTo(next)) {
            error("bad state: " + next + " in " + phase);
            return;
        }
        phase = next;
    }

    private void error(String why) {
        if (failure == null) {
            failure = why;
        }
        phase = Phase.ERROR;
    }

    /** Sends the control SQE in the control slot and waits for its response: {status, dw0, dw1}. */
    private int[] control(int cid) throws IOException {
        if (phase != Phase.CONNECTED) {
            throw new IOException("NVMe/RDMA queue not connected (state " + phase + ")");
        }
        int rc = postSend(maxCid);
        if (rc != 0) {
            throw new IOException("ibv_post_send failed: " + rc);
        }
        waitCid = cid;
        waitDone = false;
        long deadline = System.nanoTime() + CONTROL_TIMEOUT_NANOS;
        try {
            while (!waitDone) {
                if (drain() == 0) {
                    if (System.nanoTime() > deadline) {
                        throw new IOException("timeout waiting for the response to cid 0x" + Integer.toHexString(cid));
                    }
                    Thread.onSpinWait();
                }
            }
        } finally {
            waitCid = -1;
        }
        return waitResult.clone();
    }

    private void prepareControl(int opcode, int cid, int nsid) {
        long sqe = (long) maxCid * NvmeCommand.SIZE;
        NvmeCommand.encode(cmds, sqe, opcode, cid, nsid);
        cmds.set(NvmeTcpPdu.U8, sqe + NvmeCommand.OFF_FLAGS, (byte) FLAGS_SGL);
        encodeNullSgl(cmds, sqe);
    }

    /**
     * A command without data still carries a keyed data block descriptor, of length 0 (the Linux host's
     * {@code nvme_rdma_set_sg_null}): nvmet-rdma refuses an all-zero descriptor (data block, sub-type
     * address) as an invalid SGL sub-type.
     */
    static void encodeNullSgl(MemorySegment s, long sqe) {
        KeyedSgl.putKeyed(s, sqe, 0, 0, 0, false);
    }

    @Override
    public int[] propertySet(int offset, long value) throws IOException {
        long sqe = (long) maxCid * NvmeCommand.SIZE;
        prepareControl(NvmeOpcode.FABRICS, CID_PROP_SET, 0);
        cmds.set(NvmeTcpPdu.U8, sqe + 4, (byte) NvmeOpcode.FCTYPE_PROPERTY_SET);
        NvmeCommand.putCdw(cmds, sqe, FabricsConnectCommand.OFF_PROP_OFFSET, offset);
        cmds.set(NvmeTcpPdu.LE64, sqe + FabricsConnectCommand.OFF_PROP_VALUE, value);
        return control(CID_PROP_SET);
    }

    @Override
    public int[] propertyGet(int offset, boolean eightBytes) throws IOException {
        long sqe = (long) maxCid * NvmeCommand.SIZE;
        prepareControl(NvmeOpcode.FABRICS, CID_PROP_GET, 0);
        cmds.set(NvmeTcpPdu.U8, sqe + 4, (byte) NvmeOpcode.FCTYPE_PROPERTY_GET);
        cmds.set(NvmeTcpPdu.U8, sqe + FabricsConnectCommand.OFF_PROP_ATTRIB, (byte) (eightBytes ? 1 : 0));
        NvmeCommand.putCdw(cmds, sqe, FabricsConnectCommand.OFF_PROP_OFFSET, offset);
        return control(CID_PROP_GET);
    }

    @Override
    public int adminRead(int opcode, int nsid, int cdw10, int cdw11, byte[] out) throws IOException {
        if (out.length > dataSlot) {
            throw new IOException("admin data of " + out.length + " bytes exceeds the " + dataSlot + "-byte slot");
        }
        long sqe = (long) maxCid * NvmeCommand.SIZE;
        long slot = (long) maxCid * dataSlot;
        prepareControl(opcode, CID_ADMIN_READ, nsid);
        NvmeCommand.putCdw(cmds, sqe, NvmeCommand.OFF_CDW10, cdw10);
        NvmeCommand.putCdw(cmds, sqe, NvmeCommand.OFF_CDW11, cdw11);
        KeyedSgl.putKeyed(cmds, sqe, data.address() + slot, out.length, dataRkey, false);
        int st = control(CID_ADMIN_READ)[0];
        if (st == 0) {
            MemorySegment.copy(data, JAVA_BYTE, slot, out, 0, out.length);
        }
        return st;
    }

    @Override
    public int[] adminSimple(int opcode, int nsid, int cdw10, int cdw11) throws IOException {
        long sqe = (long) maxCid * NvmeCommand.SIZE;
        prepareControl(opcode, CID_ADMIN, nsid);
        NvmeCommand.putCdw(cmds, sqe, NvmeCommand.OFF_CDW10, cdw10);
        NvmeCommand.putCdw(cmds, sqe, NvmeCommand.OFF_CDW11, cdw11);
        return control(CID_ADMIN);
    }

    // ------------------------------------------------------------------ I/O path (allocation-free)

    @Override
    public boolean read(int cid, int nsid, long slba, int nlb, int bytes) {
        if (cid < 0 || cid >= maxCid || bytes > dataSlot || sendsOutstanding >= sendDepth) {
            return false;
        }
        encodeIo(cmds, (long) cid * NvmeCommand.SIZE, NvmeOpcode.IO_READ, cid, nsid, slba, nlb,
                data.address() + (long) cid * dataSlot, bytes, dataRkey);
        ioLen[cid] = bytes;
        ioRead[cid] = true;
        return postSend(cid) == 0;
    }

    @Override
    public boolean write(int cid, int nsid, long slba, int nlb, MemorySegment src, long off, int bytes, int inCapsuleMax) {
        if (cid < 0 || cid >= maxCid || bytes > dataSlot || sendsOutstanding >= sendDepth) {
            return false;
        }
        long slot = (long) cid * dataSlot;
        MemorySegment.copy(src, off, data, slot, bytes);
        encodeIo(cmds, (long) cid * NvmeCommand.SIZE, NvmeOpcode.IO_WRITE, cid, nsid, slba, nlb, data.address() + slot, bytes,
                dataRkey);
        ioLen[cid] = bytes;
        ioRead[cid] = false;
        return postSend(cid) == 0;
    }

    private int postSend(int slot) {
        sendWr.set(JAVA_LONG, VerbsLayouts.SWR_WR_ID, WR_SEND | slot);
        sendSge.set(JAVA_LONG, VerbsLayouts.SGE_ADDR, cmds.address() + (long) slot * NvmeCommand.SIZE);
        sendSge.set(JAVA_INT, VerbsLayouts.SGE_LENGTH, NvmeCommand.SIZE);
        sendSge.set(JAVA_INT, VerbsLayouts.SGE_LKEY, cmdLkey);
        int rc = ops.postSend(qp, sendWr, badWr);
        if (rc == 0) {
            sendsOutstanding++;
        }
        return rc;
    }

    private int postRecv(int index) {
        recvWr.set(JAVA_LONG, VerbsLayouts.RWR_WR_ID, WR_RECV | index);
        recvSge.set(JAVA_LONG, VerbsLayouts.SGE_ADDR, resps.address() + (long) index * RESP_SLOT);
        recvSge.set(JAVA_INT, VerbsLayouts.SGE_LENGTH, RESP_SLOT);
        recvSge.set(JAVA_INT, VerbsLayouts.SGE_LKEY, respLkey);
        return ops.postRecv(qp, recvWr, badWr);
    }

    @Override
    public int poll() throws IOException {
        return drain();
    }

    /** Polls the CQ once (a batch) and dispatches; returns the completions handled. */
    private int drain() throws IOException {
        int n = ops.pollCq(cq, WC_BATCH, wcs);
        if (n < 0) {
            throw new IOException("ibv_poll_cq failed: " + n);
        }
        for (int i = 0; i < n; i++) {
            long b = i * WC_SIZE;
            int status = wcs.get(JAVA_INT, b + VerbsLayouts.WC_STATUS);
            long wrId = wcs.get(JAVA_LONG, b + VerbsLayouts.WC_WR_ID);
            if (status != IBV_WC_SUCCESS) {
                // the connection is gone (a flush after a disconnect included): nothing more will complete
                phase = Phase.ERROR;
                throw new IOException("work completion failed: " + Verbs.wcStatusString(status)
                        + ((wrId & WR_RECV) != 0 ? " (receive)" : " (send)"));
            }
            if ((wrId & WR_SEND) != 0) {
                sendsOutstanding--;
                continue;
            }
            int index = (int) wrId;
            int len = wcs.get(JAVA_INT, b + VerbsLayouts.WC_BYTE_LEN);
            long cqe = (long) index * RESP_SLOT;
            if (len < NvmeCompletion.SIZE) {
                throw new IOException("response capsule of " + len + " bytes (a CQE is 16)");
            }
            int cid = NvmeCompletion.cid(resps, cqe);
            int st = NvmeCompletion.status(resps, cqe);
            int dw0 = NvmeCompletion.dw0(resps, cqe);
            int dw1 = NvmeCompletion.dw1(resps, cqe);
            int rc = postRecv(index); // the buffer's fields are read: give it back to the controller first
            if (rc != 0) {
                throw new IOException("ibv_post_recv failed: " + rc);
            }
            if (cid == waitCid) {
                waitResult[0] = st;
                waitResult[1] = dw0;
                waitResult[2] = dw1;
                waitDone = true;
            } else if (cid < maxCid && listener != null) {
                if (st == 0 && ioRead[cid]) {
                    listener.onData(cid, data, (long) cid * dataSlot, ioLen[cid], 0);
                }
                listener.onCompletion(cid, st, dw0);
            } else {
                throw new IOException("response for unknown cid " + cid);
            }
        }
        return n;
    }

    @Override
    public void awaitReadable(long timeoutMillis) throws IOException {
        if (!armed) {
            // arm, and let the caller poll once more: a completion that raced the arm is then not slept over
            int rc = ops.reqNotifyCq(cq, false);
            if (rc != 0) {
                throw new IOException("ibv_req_notify_cq failed: " + rc);
            }
            armed = true;
            return;
        }
        pollFd.set(JAVA_INT, PFD_FD, Verbs.compChannelFd(compChannel));
        pollFd.set(JAVA_SHORT, PFD_EVENTS, (short) POLLIN);
        pollFd.set(JAVA_SHORT, PFD_REVENTS, (short) 0);
        if (Libc.poll(pollFd, 1, (int) Math.min(timeoutMillis, Integer.MAX_VALUE)) > 0
                && (pollFd.get(JAVA_SHORT, PFD_REVENTS) & POLLIN) != 0) {
            if (Verbs.getCqEvent(compChannel, cqCell, ctxCell) == 0) {
                Verbs.ackCqEvents(cq, 1);
                armed = false;
            }
        }
    }

    @Override
    public void close() {
        if (phase == Phase.CONNECTED) {
            quietly(() -> RdmaCm.disconnect(id));
        }
        if (qpCreated) {
            quietly(() -> RdmaCm.destroyQp(id));
        }
        for (MemorySegment mr : new MemorySegment[] {cmdMr, respMr, dataMr}) {
            if (!mr.equals(MemorySegment.NULL)) {
                quietly(() -> Verbs.deregMr(mr));
            }
        }
        if (!cq.equals(MemorySegment.NULL)) {
            quietly(() -> Verbs.destroyCq(cq));
        }
        if (!compChannel.equals(MemorySegment.NULL)) {
            quietly(() -> Verbs.destroyCompChannel(compChannel));
        }
        if (!pd.equals(MemorySegment.NULL)) {
            quietly(() -> Verbs.deallocPd(pd));
        }
        if (!id.equals(MemorySegment.NULL)) {
            quietly(() -> RdmaCm.destroyId(id));
        }
        if (!channel.equals(MemorySegment.NULL)) {
            quietly(() -> RdmaCm.destroyEventChannel(channel));
        }
        arena.close(); // after deregistration: the device no longer references this memory
    }

    private static void quietly(Runnable r) {
        try {
            r.run();
        } catch (VerbsException | IllegalStateException e) {
            // closing: nothing more to do about it
        }
    }
}
