package io.jdoca.nvmf.perf;

import static io.jdoca.verbs.VerbsConstants.IBV_ACCESS_LOCAL_WRITE;
import static io.jdoca.verbs.VerbsConstants.IBV_ACCESS_REMOTE_READ;
import static io.jdoca.verbs.VerbsConstants.IBV_ACCESS_REMOTE_WRITE;
import static io.jdoca.verbs.VerbsConstants.IBV_SEND_SIGNALED;
import static io.jdoca.verbs.VerbsConstants.IBV_WC_SUCCESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeCompletion;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvmf.rdma.KeyedSgl;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaCmAccept;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaCmReject;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaCmRequest;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import io.jdoca.verbs.CmClient;
import io.jdoca.verbs.CompletionChannel;
import io.jdoca.verbs.CompletionQueue;
import io.jdoca.verbs.ConnParam;
import io.jdoca.verbs.MemoryRegion;
import io.jdoca.verbs.ProtectionDomain;
import io.jdoca.verbs.QueuePair;
import io.jdoca.verbs.RdmaCm;
import io.jdoca.verbs.Verbs;
import io.jdoca.verbs.VerbsConstants;
import io.jdoca.verbs.VerbsContext;
import io.jdoca.verbs.VerbsException;
import io.jdoca.verbs.WorkCompletions;
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
 * nothing on the I/O path allocates. {@link #awaitReadable} sleeps on the CQ's completion channel. The
 * connection and its queue pair are objects of jdoca's {@code verbs} layer ({@link CmClient} does rdma_cm's
 * resolve-and-connect sequence, as for rping).
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
    private static final long WR_RECV = 1L << 32;
    private static final long WR_SEND = 2L << 32;
    private static final int CID_CONNECT = 0x7000;
    private static final int CID_PROP_SET = 0x7001;
    private static final int CID_PROP_GET = 0x7002;
    private static final int CID_ADMIN_READ = 0x7003;
    private static final int CID_ADMIN = 0x7004;

    /** The connection phase; transitions only as {@link #canMoveTo} allows. */
    enum Phase {
        IDLE, ROUTE_RESOLVED, CONNECTED, ERROR;

        boolean canMoveTo(Phase next) {
            return switch (this) {
                case IDLE -> next == ROUTE_RESOLVED || next == ERROR;
                case ROUTE_RESOLVED -> next == CONNECTED || next == ERROR;
                case CONNECTED -> next == ERROR;
                case ERROR -> false;
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
    private final WorkCompletions wc = new WorkCompletions(WC_BATCH);

    private Phase phase = Phase.IDLE;
    private CmClient cm;
    private ProtectionDomain pd;
    private CompletionChannel compChannel;
    private CompletionQueue cq;
    private QueuePair qp;
    private MemoryRegion cmdMr;
    private MemoryRegion respMr;
    private MemoryRegion dataMr;
    private MemorySegment resps;
    private int recvDepth;
    private int cmdLkey;
    private int respLkey;
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
    static void encodeIo(MemorySegment s, long sqe, int opcode, int cid, int nsid, long slba, int nlb, long addr,
            int len,
                         int rkey) {
        NvmeCommand.encode(s, sqe, opcode, cid, nsid);
        s.set(NvmeTcpPdu.U8, sqe + NvmeCommand.OFF_FLAGS, (byte) FLAGS_SGL);
        NvmeCommand.putRange(s, sqe, slba, nlb);
        KeyedSgl.putKeyed(s, sqe, addr, len, rkey, false);
    }

    /** Fabrics Connect SQE whose 1024-byte data the controller RDMA-READs from {@code addr}/{@code rkey}. */
    static void encodeConnect(MemorySegment s, long sqe, int cid, int qid, int sqsize0, long katoMs, int cattr,
            long addr,
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
        long deadline = System.nanoTime() + CONTROL_TIMEOUT_NANOS;
        try {
            cm = CmClient.resolve(v4, port, 5000, deadline);
            move(Phase.ROUTE_RESOLVED);
            setupQp(entries);
            byte[] priv = new byte[NvmeRdmaCmRequest.LEN];
            encodePrivateData(MemorySegment.ofArray(priv), 0, qid, sqsize0, cntlid);
            // the controller RDMA-READs write data from us: our responder resources; we read nothing of its
            CmClient.Outcome o = cm.connect(ConnParam.of(priv, 16, 16).withFlowControl(), deadline);
            if (!o.established()) {
                String why = o.describe();
                if (o.event() == VerbsConstants.RDMA_CM_EVENT_REJECTED
                        && o.privateData().length >= NvmeRdmaCmReject.LEN) {
                    why = "rejected by the controller: "
                            + NvmeRdmaCmReject.describe(NvmeRdmaCmReject.sts(MemorySegment.ofArray(o.privateData()),
                                    0));
                }
                move(Phase.ERROR);
                throw new IOException("rdma_cm connect to " + address + ":" + port + " failed: " + why);
            }
            if (o.privateData().length >= 4) {
                crqsize = NvmeRdmaCmAccept.crqsize(MemorySegment.ofArray(o.privateData()), 0);
            }
            move(Phase.CONNECTED);
        } catch (VerbsException e) {
            move(Phase.ERROR);
            throw new IOException(e.getMessage(), e);
        }
        long slot = (long) maxCid * dataSlot;
        FabricsConnectCommand.encodeData(data, slot, new byte[16], cntlid, subnqn, hostnqn);
        long sqe = (long) maxCid * NvmeCommand.SIZE;
        encodeConnect(cmds, sqe, CID_CONNECT, qid, sqsize0, katoMs, cattr, data.address() + slot, dataRkey);
        return control(CID_CONNECT);
    }

    private void setupQp(int entries) {
        VerbsContext ctx = cm.context();
        pd = ctx.allocPd();
        compChannel = ctx.createCompletionChannel();
        sendDepth = entries + 1;
        recvDepth = entries;
        cq = ctx.createCq(sendDepth + recvDepth, compChannel, 0);
        qp = cm.id().createQp(pd, QueuePair.Init.rc(cq, sendDepth, recvDepth));
        resps = arena.allocate((long) recvDepth * RESP_SLOT, 4096);
        cmdMr = pd.register(cmds, 0);
        respMr = pd.register(resps, IBV_ACCESS_LOCAL_WRITE);
        dataMr = pd.register(data, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
        cmdLkey = cmdMr.lkey();
        respLkey = respMr.lkey();
        dataRkey = dataMr.rkey();
        for (int i = 0; i < recvDepth; i++) {
            int rc = postRecv(i);
            if (rc != 0) {
                throw new VerbsException("ibv_post_recv", rc);
            }
        }
        int rc = cq.arm();
        if (rc != 0) {
            throw new VerbsException("ibv_req_notify_cq", rc);
        }
        armed = true;
    }

    private void move(Phase next) {
        if (phase != next && phase.canMoveTo(next)) {
            phase = next;
        }
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
    public boolean write(int cid, int nsid, long slba, int nlb, MemorySegment src, long off, int bytes,
            int inCapsuleMax) {
        if (cid < 0 || cid >= maxCid || bytes > dataSlot || sendsOutstanding >= sendDepth) {
            return false;
        }
        long slot = (long) cid * dataSlot;
        MemorySegment.copy(src, off, data, slot, bytes);
        encodeIo(cmds, (long) cid * NvmeCommand.SIZE, NvmeOpcode.IO_WRITE, cid, nsid, slba, nlb, data.address() + slot,
                bytes,
                dataRkey);
        ioLen[cid] = bytes;
        ioRead[cid] = false;
        return postSend(cid) == 0;
    }

    private int postSend(int slot) {
        int rc = qp.postSend(WR_SEND | slot, cmds.address() + (long) slot * NvmeCommand.SIZE, NvmeCommand.SIZE,
                cmdLkey, IBV_SEND_SIGNALED);
        if (rc == 0) {
            sendsOutstanding++;
        }
        return rc;
    }

    private int postRecv(int index) {
        return qp.postRecv(WR_RECV | index, resps.address() + (long) index * RESP_SLOT, RESP_SLOT, respLkey);
    }

    @Override
    public int poll() throws IOException {
        return drain();
    }

    /** Polls the CQ once (a batch) and dispatches; returns the completions handled. */
    private int drain() throws IOException {
        int n = cq.poll(wc);
        if (n < 0) {
            throw new IOException("ibv_poll_cq failed: " + n);
        }
        for (int i = 0; i < n; i++) {
            int status = wc.status(i);
            long wrId = wc.wrId(i);
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
            int len = wc.byteLen(i);
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
            int rc = cq.arm();
            if (rc != 0) {
                throw new IOException("ibv_req_notify_cq failed: " + rc);
            }
            armed = true;
            return;
        }
        if (compChannel.await((int) Math.min(timeoutMillis, Integer.MAX_VALUE)) > 0) {
            armed = false;
        }
    }

    @Override
    public void close() {
        if (phase == Phase.CONNECTED && cm != null) {
            cm.disconnect();
        }
        // in the order rdma-core requires: the QP before its CQ, regions and PD; the id and channel last
        for (AutoCloseable c : new AutoCloseable[] {qp, cmdMr, respMr, dataMr, cq, compChannel, pd, cm}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    // closing: nothing more to do about it
                }
            }
        }
        arena.close(); // after deregistration: the device no longer references this memory
    }
}
