package io.jdoca.verbs.samples;

import static io.jdoca.verbs.VerbsConstants.IBV_ACCESS_LOCAL_WRITE;
import static io.jdoca.verbs.VerbsConstants.IBV_ACCESS_REMOTE_READ;
import static io.jdoca.verbs.VerbsConstants.IBV_ACCESS_REMOTE_WRITE;
import static io.jdoca.verbs.VerbsConstants.IBV_QPT_RC;
import static io.jdoca.verbs.VerbsConstants.IBV_SEND_SIGNALED;
import static io.jdoca.verbs.VerbsConstants.IBV_WC_RDMA_READ;
import static io.jdoca.verbs.VerbsConstants.IBV_WC_RDMA_WRITE;
import static io.jdoca.verbs.VerbsConstants.IBV_WC_RECV;
import static io.jdoca.verbs.VerbsConstants.IBV_WC_SEND;
import static io.jdoca.verbs.VerbsConstants.IBV_WC_SUCCESS;
import static io.jdoca.verbs.VerbsConstants.IBV_WC_WR_FLUSH_ERR;
import static io.jdoca.verbs.VerbsConstants.IBV_WR_RDMA_READ;
import static io.jdoca.verbs.VerbsConstants.IBV_WR_RDMA_WRITE;
import static io.jdoca.verbs.VerbsConstants.IBV_WR_SEND;
import static io.jdoca.verbs.VerbsConstants.POLLIN;
import static io.jdoca.verbs.VerbsConstants.RDMA_PS_TCP;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jdoca.verbs.ContextOps;
import io.jdoca.verbs.Libc;
import io.jdoca.verbs.RdmaCm;
import io.jdoca.verbs.Verbs;
import io.jdoca.verbs.VerbsConstants;
import io.jdoca.verbs.VerbsException;
import io.jdoca.verbs.VerbsLayouts;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.nio.ByteOrder;

/**
 * rdma-core's {@code rping} (librdmacm/examples/rping.c) on jdoca's verbs bindings, wire-compatible with
 * it: rdma_cm connection (RDMA_PS_TCP), one RC QP, a CQ with a completion channel, and per ping the
 * client advertises its source buffer ({@code struct rping_rdma_info}: addr u64, rkey u32, size u32, all
 * big-endian) in a SEND, the server RDMA-READs it and answers with a "go ahead" SEND, the client
 * advertises its sink buffer, the server RDMA-WRITEs the data back and sends "go ahead" again; the
 * client then compares (-V). The server serves one connection until the client disconnects.
 *
 * <p>One thread does everything: it sleeps in {@code poll(2)} on the CM event channel and the
 * completion channel fds, drains the CQ after each wake-up (re-arming with {@code ibv_req_notify_cq}),
 * and allocates nothing per ping unless -v prints. Differences from rping: IPv4 only, no -P/-q/-I, and
 * a server refuses an advertised length larger than its own buffer instead of letting the device fail.
 *
 * <p>Thread rules: one instance per run, used by the thread that calls {@link #run}.
 */
public final class Rping implements AutoCloseable {

    /**
     * rping's options: -s/-c, -a, -p, -C (0 = forever), -S, -v, -V, -d; {@code timeoutMs} bounds each wait
     * (0 = none); {@code allocReport} prints the bytes the ping loop allocated per block of pings.
     */
    public record Options(boolean server, Inet4Address addr, int port, int count, int size, boolean verbose,
            boolean validate, boolean debug, long timeoutMs, boolean allocReport) {
        /** rping's default port (7174) and size (64). */
        public static final int DEFAULT_PORT = 7174;
        public static final int DEFAULT_SIZE = 64;
        /** rping's bounds for -S: room for "rdma-ping-%d: " with any int, below RPING_BUFSIZE (64 KiB). */
        public static final int MIN_SIZE = 26;
        public static final int MAX_SIZE = 64 * 1024 - 1;
    }

    /** Connection phase; transitions only as {@link #canMoveTo} allows (others are reported as bad state). */
    enum Phase {
        IDLE, ADDR_RESOLVED, ROUTE_RESOLVED, CONNECT_REQUEST, CONNECTED, DISCONNECTED, ERROR;

        boolean canMoveTo(Phase next) {
            return switch (this) {
                case IDLE -> next == ADDR_RESOLVED || next == CONNECT_REQUEST || next == ERROR;
                case ADDR_RESOLVED -> next == ROUTE_RESOLVED || next == ERROR;
                case ROUTE_RESOLVED, CONNECT_REQUEST -> next == CONNECTED || next == ERROR || next == DISCONNECTED;
                case CONNECTED -> next == DISCONNECTED || next == ERROR;
                case DISCONNECTED, ERROR -> false;
            };
        }
    }

    /** What a wait is for (a switch, not a lambda: waits on the ping loop allocate nothing). */
    private enum Until { ADDR, ROUTE, REQUEST, CONNECTED, RECV, READ, WRITE, DISCONNECTED }

    private static final int INFO_SIZE = 16; // struct rping_rdma_info
    private static final int SQ_DEPTH = 16;  // RPING_SQ_DEPTH
    private static final long WR_RECV = 1;
    private static final long WR_SEND = 2;
    private static final long WR_RDMA = 3;
    private static final ValueLayout.OfLong BE64 = JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).withByteAlignment(1);
    private static final ValueLayout.OfInt BE32 = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN).withByteAlignment(1);

    private static final long PFD_FD = VerbsLayouts.offset(VerbsLayouts.POLLFD, "fd");
    private static final long PFD_EVENTS = VerbsLayouts.offset(VerbsLayouts.POLLFD, "events");
    private static final long PFD_REVENTS = VerbsLayouts.offset(VerbsLayouts.POLLFD, "revents");
    private static final long PFD_SIZE = VerbsLayouts.POLLFD.byteSize();
    private static final long WC_SIZE = VerbsLayouts.IBV_WC.byteSize();
    /** Pings per allocation sample (--alloc-report). */
    static final int ALLOC_BLOCK = 50;

    private final Options o;
    private final PrintStream out;
    private final PrintStream err;
    private final Arena arena = Arena.ofConfined();

    private Phase phase = Phase.IDLE;
    private String failure;
    private MemorySegment channel = MemorySegment.NULL;
    private MemorySegment listenId = MemorySegment.NULL;
    private MemorySegment id = MemorySegment.NULL;  // the connection's id (client's, or the server's child)
    private MemorySegment pd = MemorySegment.NULL;
    private MemorySegment compChannel = MemorySegment.NULL;
    private MemorySegment cq = MemorySegment.NULL;
    private MemorySegment qp = MemorySegment.NULL;
    private boolean qpCreated;
    private ContextOps ops;
    private final MemorySegment[] mrs = new MemorySegment[4];
    private int nMrs;

    private final MemorySegment eventCell = arena.allocate(ADDRESS);
    private final MemorySegment badWr = arena.allocate(ADDRESS);
    private final MemorySegment cqCell = arena.allocate(ADDRESS);
    private final MemorySegment ctxCell = arena.allocate(ADDRESS);
    private final MemorySegment pollFds = arena.allocate(VerbsLayouts.POLLFD, 2);
    private final MemorySegment wcs = arena.allocate(VerbsLayouts.IBV_WC, 8);
    private MemorySegment recvBuf;
    private MemorySegment sendBuf;
    private MemorySegment rdmaBuf;
    private MemorySegment startBuf;
    private MemorySegment recvMr;
    private MemorySegment sendMr;
    private MemorySegment rdmaMr;
    private MemorySegment startMr;
    private MemorySegment recvWr;
    private MemorySegment sendWr;
    private MemorySegment rdmaWr;
    private MemorySegment rdmaSge;

    private long recvs;
    private long reads;
    private long writes;
    // completions the protocol has consumed so far: a wait is for the next one, even if it already came
    private long recvsWanted;
    private long readsWanted;
    private long writesWanted;
    private long remoteAddr;
    private int remoteRkey;
    private int remoteLen;
    private long waitStartNanos;
    private final AllocationBlocks alloc = new AllocationBlocks();

    private Rping(Options o, PrintStream out, PrintStream err) {
        this.o = o;
        this.out = out;
        this.err = err;
    }

    /** Runs rping as {@code o} says; returns the exit status (0: done, and with -V every ping verified). */
    public static int run(Options o, PrintStream out, PrintStream err) {
        if (!RdmaCm.isAvailable()) {
            err.println("rdma-rping: " + RdmaCm.unavailableReason());
            return 1;
        }
        try (Rping r = new Rping(o, out, err)) {
            return o.server() ? r.server() : r.client();
        } catch (VerbsException e) {
            err.println("rdma-rping: " + e.getMessage());
            return 1;
        }
    }

    // ---- server --------------------------------------------------------------------------------

    private int server() {
        channel = RdmaCm.createEventChannel();
        listenId = RdmaCm.createId(channel, RDMA_PS_TCP);
        RdmaCm.bindAddr(listenId, RdmaCm.sockaddrIn(arena.allocate(VerbsLayouts.SOCKADDR_IN), o.addr(), o.port()));
        RdmaCm.listen(listenId, 3);
        debug("listening on %s:%d", o.addr().getHostAddress(), o.port());
        if (!waitFor(Until.REQUEST)) {
            return fail("wait for CONNECT_REQUEST");
        }
        setupQp();
        setupBuffers();
        postRecv();
        RdmaCm.accept(id, MemorySegment.NULL);
        if (!waitFor(Until.CONNECTED)) {
            return fail("wait for CONNECTED");
        }
        debug("accepted");
        while (true) {
            // the client advertises its source buffer
            if (!waitFor(Until.RECV)) {
                if (phase == Phase.DISCONNECTED) {
                    report("server");
                    return 0;
                }
                return fail("wait for RDMA_READ_ADV");
            }
            if (remoteLen > o.size()) {
                return fail("peer advertised " + remoteLen + " bytes, more than this server's buffer (-S " + o.size() + ")");
            }
            postRdma(IBV_WR_RDMA_READ, remoteLen);
            if (!waitFor(Until.READ)) {
                return fail("wait for RDMA_READ_COMPLETE");
            }
            if (o.verbose()) {
                out.println("server ping data: " + cString(rdmaBuf));
            }
            postSend(); // go ahead
            // the client advertises its sink buffer
            if (!waitFor(Until.RECV)) {
                return fail("wait for RDMA_WRITE_ADV");
            }
            int len = strlen(rdmaBuf) + 1;
            if (len > remoteLen) {
                return fail("peer's sink (" + remoteLen + " bytes) is smaller than the ping (" + len + ")");
            }
            postRdma(IBV_WR_RDMA_WRITE, len);
            if (!waitFor(Until.WRITE)) {
                return fail("wait for RDMA_WRITE_COMPLETE");
            }
            postSend(); // go ahead
            alloc.ping();
        }
    }

    // ---- client --------------------------------------------------------------------------------

    private int client() {
        channel = RdmaCm.createEventChannel();
        id = RdmaCm.startClient(channel, o.addr(), o.port(), 2000);
        if (!waitFor(Until.ROUTE)) {
            return fail("waiting for addr/route resolution");
        }
        setupQp();
        setupBuffers();
        postRecv();
        // rping's: one outstanding RDMA read each way, retries 7 (its QP is on the id: qp_num and srq come from it)
        RdmaCm.connect(id, RdmaCm.connParam(arena.allocate(VerbsLayouts.RDMA_CONN_PARAM), MemorySegment.NULL, 0, 1, 1, 7, 7,
                0, false));
        if (!waitFor(Until.CONNECTED)) {
            return fail("wait for CONNECTED");
        }
        debug("connected");
        int start = 65;
        int size = o.size();
        long pings = 0;
        for (int ping = 0; o.count() == 0 || ping < o.count(); ping++) {
            int cc = formatPrefix(startBuf, ping);
            int c = start;
            for (int i = cc; i < size; i++) {
                startBuf.set(JAVA_BYTE, i, (byte) c);
                if (++c > 122) {
                    c = 65;
                }
            }
            if (++start > 122) {
                start = 65;
            }
            startBuf.set(JAVA_BYTE, size - 1, (byte) 0);

            advertise(startBuf, startMr);
            postSend();
            if (!waitFor(Until.RECV)) {
                return fail("wait for RDMA_WRITE_ADV");
            }
            advertise(rdmaBuf, rdmaMr);
            postSend();
            if (!waitFor(Until.RECV)) {
                return fail("wait for RDMA_WRITE_COMPLETE");
            }
            if (o.validate() && startBuf.mismatch(rdmaBuf) != -1) {
                err.println("data mismatch!");
                return fail("ping " + ping + ": the data written back differs from the data read");
            }
            if (o.verbose()) {
                out.println("ping data: " + cString(rdmaBuf));
            }
            pings++;
            alloc.ping();
        }
        RdmaCm.disconnect(id);
        // the CM confirms the teardown with DISCONNECTED; bounded, as rping does not wait for it either
        waitFor(Until.DISCONNECTED, o.timeoutMs() > 0 ? Math.min(o.timeoutMs(), 10_000) : 10_000);
        out.println("rdma-rping client: " + pings + " ping(s) of " + size + " bytes"
                + (o.validate() ? ", data verified" : ""));
        report("client");
        return 0;
    }

    // ---- shared setup (rping_setup_qp, rping_setup_buffers, rping_setup_wr) -----------------------

    private void setupQp() {
        MemorySegment ctx = RdmaCm.verbs(id);
        if (ctx.equals(MemorySegment.NULL)) {
            throw new VerbsException("rdma_cm", "the id has no device (address not on an RDMA device?)");
        }
        ops = new ContextOps(ctx);
        pd = Verbs.allocPd(ctx);
        compChannel = Verbs.createCompChannel(ctx);
        cq = Verbs.createCq(ctx, SQ_DEPTH * 2, compChannel, 0);
        int rc = ops.reqNotifyCq(cq, false);
        if (rc != 0) {
            throw new VerbsException("ibv_req_notify_cq", rc);
        }
        MemorySegment init = arena.allocate(VerbsLayouts.IBV_QP_INIT_ATTR);
        init.set(ADDRESS, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "send_cq"), cq);
        init.set(ADDRESS, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "recv_cq"), cq);
        init.set(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "cap.max_send_wr"), SQ_DEPTH);
        init.set(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "cap.max_recv_wr"), 2);
        init.set(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "cap.max_send_sge"), 1);
        init.set(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "cap.max_recv_sge"), 1);
        init.set(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_QP_INIT_ATTR, "qp_type"), IBV_QPT_RC);
        qp = RdmaCm.createQp(id, pd, init);
        qpCreated = true;
        pollFds.set(JAVA_INT, PFD_SIZE + PFD_FD, Verbs.compChannelFd(compChannel));
        debug("created qp %d", Verbs.qpNum(qp));
    }

    private void setupBuffers() {
        recvBuf = arena.allocate(INFO_SIZE, 8);
        sendBuf = arena.allocate(INFO_SIZE, 8);
        rdmaBuf = arena.allocate(o.size(), 64);
        recvMr = reg(recvBuf, IBV_ACCESS_LOCAL_WRITE);
        sendMr = reg(sendBuf, 0);
        rdmaMr = reg(rdmaBuf, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
        if (!o.server()) {
            startBuf = arena.allocate(o.size(), 64);
            startMr = reg(startBuf, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
        }
        recvWr = arena.allocate(VerbsLayouts.IBV_RECV_WR);
        MemorySegment recvSge = sge(recvBuf, INFO_SIZE, Verbs.lkey(recvMr));
        recvWr.set(JAVA_LONG, VerbsLayouts.RWR_WR_ID, WR_RECV);
        recvWr.set(ADDRESS, VerbsLayouts.RWR_SG_LIST, recvSge);
        recvWr.set(JAVA_INT, VerbsLayouts.RWR_NUM_SGE, 1);

        sendWr = arena.allocate(VerbsLayouts.IBV_SEND_WR);
        sendWr.set(JAVA_LONG, VerbsLayouts.SWR_WR_ID, WR_SEND);
        sendWr.set(ADDRESS, VerbsLayouts.SWR_SG_LIST, sge(sendBuf, INFO_SIZE, Verbs.lkey(sendMr)));
        sendWr.set(JAVA_INT, VerbsLayouts.SWR_NUM_SGE, 1);
        sendWr.set(JAVA_INT, VerbsLayouts.SWR_OPCODE, IBV_WR_SEND);
        sendWr.set(JAVA_INT, VerbsLayouts.SWR_SEND_FLAGS, IBV_SEND_SIGNALED);

        rdmaWr = arena.allocate(VerbsLayouts.IBV_SEND_WR);
        rdmaSge = sge(rdmaBuf, o.size(), Verbs.lkey(rdmaMr));
        rdmaWr.set(JAVA_LONG, VerbsLayouts.SWR_WR_ID, WR_RDMA);
        rdmaWr.set(ADDRESS, VerbsLayouts.SWR_SG_LIST, rdmaSge);
        rdmaWr.set(JAVA_INT, VerbsLayouts.SWR_NUM_SGE, 1);
        rdmaWr.set(JAVA_INT, VerbsLayouts.SWR_SEND_FLAGS, IBV_SEND_SIGNALED);
    }

    private MemorySegment reg(MemorySegment buf, int access) {
        MemorySegment mr = Verbs.regMr(pd, buf, access);
        mrs[nMrs++] = mr;
        return mr;
    }

    private MemorySegment sge(MemorySegment buf, int len, int lkey) {
        MemorySegment s = arena.allocate(VerbsLayouts.IBV_SGE);
        s.set(JAVA_LONG, VerbsLayouts.SGE_ADDR, buf.address());
        s.set(JAVA_INT, VerbsLayouts.SGE_LENGTH, len);
        s.set(JAVA_INT, VerbsLayouts.SGE_LKEY, lkey);
        return s;
    }

    // ---- data path -----------------------------------------------------------------------------

    private void postRecv() {
        int rc = ops.postRecv(qp, recvWr, badWr);
        if (rc != 0) {
            throw new VerbsException("ibv_post_recv", rc);
        }
    }

    private void postSend() {
        int rc = ops.postSend(qp, sendWr, badWr);
        if (rc != 0) {
            throw new VerbsException("ibv_post_send", rc);
        }
    }

    private void postRdma(int opcode, int len) {
        rdmaWr.set(JAVA_INT, VerbsLayouts.SWR_OPCODE, opcode);
        rdmaWr.set(JAVA_LONG, VerbsLayouts.SWR_RDMA_REMOTE_ADDR, remoteAddr);
        rdmaWr.set(JAVA_INT, VerbsLayouts.SWR_RDMA_RKEY, remoteRkey);
        rdmaSge.set(JAVA_INT, VerbsLayouts.SGE_LENGTH, len);
        int rc = ops.postSend(qp, rdmaWr, badWr);
        if (rc != 0) {
            throw new VerbsException("ibv_post_send", rc);
        }
    }

    /** rping_format_send: addr, rkey, size of a local buffer, big-endian, into the send buffer. */
    private void advertise(MemorySegment buf, MemorySegment mr) {
        sendBuf.set(BE64, 0, buf.address());
        sendBuf.set(BE32, 8, Verbs.rkey(mr));
        sendBuf.set(BE32, 12, o.size());
    }

    /** Drains the CQ; false when a completion failed (phase ERROR) or a receive was malformed. */
    private boolean drainCq() {
        int n;
        while ((n = ops.pollCq(cq, 8, wcs)) > 0) {
            for (int i = 0; i < n; i++) {
                long base = i * WC_SIZE;
                int status = wcs.get(JAVA_INT, base + VerbsLayouts.WC_STATUS);
                if (status != IBV_WC_SUCCESS) {
                    if (status == IBV_WC_WR_FLUSH_ERR) {
                        continue; // the QP left RTS (disconnect): posted requests come back flushed
                    }
                    err.println("cq completion failed status " + status + " (" + Verbs.wcStatusString(status) + ")");
                    return error("completion error");
                }
                switch (wcs.get(JAVA_INT, base + VerbsLayouts.WC_OPCODE)) {
                    case IBV_WC_SEND -> { }
                    case IBV_WC_RDMA_READ -> reads++;
                    case IBV_WC_RDMA_WRITE -> writes++;
                    case IBV_WC_RECV -> {
                        int len = wcs.get(JAVA_INT, base + VerbsLayouts.WC_BYTE_LEN);
                        if (len != INFO_SIZE) {
                            err.println("Received bogus data, size " + len);
                            return error("bogus receive");
                        }
                        if (o.server()) {
                            remoteAddr = recvBuf.get(BE64, 0);
                            remoteRkey = recvBuf.get(BE32, 8);
                            remoteLen = recvBuf.get(BE32, 12);
                        }
                        postRecv();
                        recvs++;
                    }
                    default -> {
                        return error("unexpected completion opcode");
                    }
                }
            }
        }
        return n >= 0 || error("ibv_poll_cq failed");
    }

    private boolean error(String why) {
        if (failure == null) {
            failure = why;
        }
        phase = Phase.ERROR;
        return false;
    }

    private boolean reached(Until u, long recvTarget, long readTarget, long writeTarget) {
        return switch (u) {
            case ADDR -> phase == Phase.ADDR_RESOLVED;
            case ROUTE -> phase == Phase.ROUTE_RESOLVED;
            case REQUEST -> phase == Phase.CONNECT_REQUEST;
            case CONNECTED -> phase == Phase.CONNECTED;
            case RECV -> recvs >= recvTarget;
            case READ -> reads >= readTarget;
            case WRITE -> writes >= writeTarget;
            case DISCONNECTED -> phase == Phase.DISCONNECTED;
        };
    }

    private boolean waitFor(Until u) {
        return waitFor(u, o.timeoutMs());
    }

    /** Runs the event loop until {@code u} happens; false on error, disconnect (unless awaited) or timeout. */
    private boolean waitFor(Until u, long timeoutMs) {
        long recvTarget = u == Until.RECV ? ++recvsWanted : recvsWanted;
        long readTarget = u == Until.READ ? ++readsWanted : readsWanted;
        long writeTarget = u == Until.WRITE ? ++writesWanted : writesWanted;
        waitStartNanos = System.nanoTime();
        pollFds.set(JAVA_INT, PFD_FD, RdmaCm.eventChannelFd(channel));
        pollFds.set(JAVA_SHORT, PFD_EVENTS, (short) POLLIN);
        pollFds.set(JAVA_SHORT, PFD_SIZE + PFD_EVENTS, (short) POLLIN);
        while (true) {
            if (!cq.equals(MemorySegment.NULL) && !drainCq()) {
                return false;
            }
            if (reached(u, recvTarget, readTarget, writeTarget)) {
                return true;
            }
            if (phase == Phase.ERROR || phase == Phase.DISCONNECTED) {
                return false;
            }
            int timeout = 1000;
            if (timeoutMs > 0) {
                long left = timeoutMs - (System.nanoTime() - waitStartNanos) / 1_000_000;
                if (left <= 0) {
                    return error("timed out after " + timeoutMs + " ms");
                }
                timeout = (int) Math.min(timeout, left);
            }
            int nfds = cq.equals(MemorySegment.NULL) ? 1 : 2;
            pollFds.set(JAVA_SHORT, PFD_REVENTS, (short) 0);
            pollFds.set(JAVA_SHORT, PFD_SIZE + PFD_REVENTS, (short) 0);
            if (Libc.poll(pollFds, nfds, timeout) <= 0) {
                continue; // timeout or EINTR: re-check the deadline
            }
            if ((pollFds.get(JAVA_SHORT, PFD_REVENTS) & POLLIN) != 0) {
                cmEvent();
            }
            if (nfds == 2
                    && (pollFds.get(JAVA_SHORT, PFD_SIZE + PFD_REVENTS) & POLLIN) != 0) {
                int rc = Verbs.getCqEvent(compChannel, cqCell, ctxCell);
                if (rc != 0) {
                    return error("ibv_get_cq_event failed: " + rc);
                }
                Verbs.ackCqEvents(cq, 1);
                rc = ops.reqNotifyCq(cq, false);
                if (rc != 0) {
                    return error("ibv_req_notify_cq failed: " + rc);
                }
                // the loop drains the CQ next: completions that raced the re-arm are not lost
            }
        }
    }

    /** rping_cma_event_handler: one CM event, acknowledged before returning. */
    @SuppressWarnings("restricted") // FFM: rdma_cm hands back ids as raw addresses; sized to rdma_cm_id here
    private void cmEvent() {
        MemorySegment ev = RdmaCm.getCmEvent(channel, eventCell);
        int type = ev.get(JAVA_INT, VerbsLayouts.CM_EVENT_EVENT);
        int status = ev.get(JAVA_INT, VerbsLayouts.CM_EVENT_STATUS);
        MemorySegment evId = ev.get(ADDRESS, VerbsLayouts.CM_EVENT_ID);
        debug("cma_event type %s status %d", RdmaCm.eventName(type), status);
        try {
            switch (type) {
                // the client sequence shared with jdoca's other rdma_cm clients (RdmaCm.startClient / clientStep)
                case VerbsConstants.RDMA_CM_EVENT_ADDR_RESOLVED, VerbsConstants.RDMA_CM_EVENT_ROUTE_RESOLVED ->
                        move(RdmaCm.clientStep(id, type, 2000) == RdmaCm.ClientStep.ROUTE_PENDING ? Phase.ADDR_RESOLVED
                                : Phase.ROUTE_RESOLVED);
                case VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST -> {
                    if (o.server() && id.equals(MemorySegment.NULL)) {
                        id = evId.reinterpret(VerbsLayouts.RDMA_CM_ID.byteSize());
                        move(Phase.CONNECT_REQUEST);
                    } else {
                        // one connection per run, as rping without -P
                        RdmaCm.reject(evId.reinterpret(VerbsLayouts.RDMA_CM_ID.byteSize()), MemorySegment.NULL, 0);
                    }
                }
                case VerbsConstants.RDMA_CM_EVENT_CONNECT_RESPONSE, VerbsConstants.RDMA_CM_EVENT_ESTABLISHED ->
                        move(Phase.CONNECTED);
                case VerbsConstants.RDMA_CM_EVENT_ADDR_ERROR, VerbsConstants.RDMA_CM_EVENT_ROUTE_ERROR,
                        VerbsConstants.RDMA_CM_EVENT_CONNECT_ERROR, VerbsConstants.RDMA_CM_EVENT_UNREACHABLE,
                        VerbsConstants.RDMA_CM_EVENT_REJECTED -> {
                    err.println("cma event " + RdmaCm.eventName(type) + ", error " + status);
                    error(RdmaCm.eventName(type));
                }
                case VerbsConstants.RDMA_CM_EVENT_DISCONNECTED -> {
                    if (o.verbose() || o.debug()) {
                        err.println((o.server() ? "server" : "client") + " DISCONNECT EVENT...");
                    }
                    move(Phase.DISCONNECTED);
                }
                case VerbsConstants.RDMA_CM_EVENT_DEVICE_REMOVAL -> {
                    err.println("cma detected device removal!!!!");
                    error("device removal");
                }
                default -> debug("unhandled event: %s, ignoring", RdmaCm.eventName(type));
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
            error("bad state: CM event for " + next + " in " + phase);
            return;
        }
        phase = next;
    }

    private int fail(String what) {
        err.println("rdma-rping: " + what + (failure != null ? ": " + failure : " (state " + phase + ")"));
        return 1;
    }

    // ---- helpers -------------------------------------------------------------------------------

    private void report(String side) {
        if (o.allocReport()) {
            out.println("rdma-rping " + side + ": " + alloc.summary());
        }
    }

    /**
     * Bytes this thread allocated per block of {@link #ALLOC_BLOCK} pings (HotSpot's per-thread counter,
     * read once per block, into a preallocated ring): the steady-state figure is the least over the
     * blocks after the first two (JIT warm-up).
     */
    static final class AllocationBlocks {
        private static final com.sun.management.ThreadMXBean BEAN =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        private final long[] bytes = new long[1024];
        private int blocks;
        private int inBlock;
        private long last = -1;

        void ping() {
            if (++inBlock < ALLOC_BLOCK) {
                return;
            }
            inBlock = 0;
            long now = BEAN.getCurrentThreadAllocatedBytes();
            if (last >= 0) {
                bytes[blocks++ & (bytes.length - 1)] = now - last;
            }
            last = now;
        }

        String summary() {
            int n = Math.min(blocks, bytes.length);
            if (n <= 2) {
                return "allocation: too few pings for a steady-state figure (need at least " + 4 * ALLOC_BLOCK + ")";
            }
            long best = Long.MAX_VALUE;
            long worst = 0;
            for (int i = 2; i < n; i++) {
                best = Math.min(best, bytes[i]);
                worst = Math.max(worst, bytes[i]);
            }
            StringBuilder all = new StringBuilder();
            for (int i = 0; i < n; i++) {
                all.append(i == 0 ? "" : " ").append(bytes[i]);
            }
            StringBuilder last = new StringBuilder();
            for (int i = Math.max(2, n - 4); i < n; i++) {
                last.append(' ').append(bytes[i]);
            }
            // the blocks are in order as long as fewer than bytes.length were taken (reported otherwise)
            return "allocation: " + best + " bytes in the best block of " + ALLOC_BLOCK + " pings after warm-up ("
                    + (n - 2) + " blocks measured, worst " + worst + " bytes); last " + Math.min(4, n - 2) + " blocks:"
                    + last + (blocks > bytes.length ? " (ring wrapped)" : "") + "; every block: " + all;
        }
    }

    /** Writes "rdma-ping-%d: " at the start of {@code buf} without allocating; returns its length. */
    static int formatPrefix(MemorySegment buf, int ping) {
        final String head = "rdma-ping-";
        int p = 0;
        for (; p < head.length(); p++) {
            buf.set(JAVA_BYTE, p, (byte) head.charAt(p));
        }
        long v = ping;
        if (v < 0) {
            buf.set(JAVA_BYTE, p++, (byte) '-');
            v = -v;
        }
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        for (int d = digits - 1; d >= 0; d--) {
            buf.set(JAVA_BYTE, p + d, (byte) ('0' + (v % 10)));
            v /= 10;
        }
        p += digits;
        buf.set(JAVA_BYTE, p++, (byte) ':');
        buf.set(JAVA_BYTE, p++, (byte) ' ');
        return p;
    }

    private static int strlen(MemorySegment buf) {
        for (int i = 0; i < buf.byteSize(); i++) {
            if (buf.get(JAVA_BYTE, i) == 0) {
                return i;
            }
        }
        return (int) buf.byteSize() - 1;
    }

    private static String cString(MemorySegment buf) {
        return new String(buf.asSlice(0, strlen(buf)).toArray(JAVA_BYTE), java.nio.charset.StandardCharsets.US_ASCII);
    }

    private void debug(String fmt, Object... args) {
        if (o.debug()) {
            out.println(String.format(fmt, args));
        }
    }

    /** rping_disconnect / rping_free_buffers / rping_free_qp / rdma_destroy_id, tolerant of half-built state. */
    @Override
    public void close() {
        if (!id.equals(MemorySegment.NULL) && phase == Phase.CONNECTED) {
            quietly(() -> RdmaCm.disconnect(id));
        }
        if (qpCreated) {
            quietly(() -> RdmaCm.destroyQp(id));
        }
        if (!cq.equals(MemorySegment.NULL)) {
            quietly(() -> Verbs.destroyCq(cq));
        }
        if (!compChannel.equals(MemorySegment.NULL)) {
            quietly(() -> Verbs.destroyCompChannel(compChannel));
        }
        for (int i = 0; i < nMrs; i++) {
            MemorySegment mr = mrs[i];
            quietly(() -> Verbs.deregMr(mr));
        }
        if (!pd.equals(MemorySegment.NULL)) {
            quietly(() -> Verbs.deallocPd(pd));
        }
        if (!id.equals(MemorySegment.NULL)) {
            quietly(() -> RdmaCm.destroyId(id));
        }
        if (!listenId.equals(MemorySegment.NULL)) {
            quietly(() -> RdmaCm.destroyId(listenId));
        }
        if (!channel.equals(MemorySegment.NULL)) {
            quietly(() -> RdmaCm.destroyEventChannel(channel));
        }
        arena.close(); // after every deregistration: the device no longer references this memory
    }

    private void quietly(Runnable r) {
        try {
            r.run();
        } catch (VerbsException e) {
            if (o.debug()) {
                err.println("rdma-rping: cleanup: " + e.getMessage());
            }
        }
    }
}
