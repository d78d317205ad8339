package io.jdoca.verbs.samples;

import static io.jdoca.verbs.VerbsConstants.IBV_ACCESS_LOCAL_WRITE;
import static io.jdoca.verbs.VerbsConstants.IBV_ACCESS_REMOTE_READ;
import static io.jdoca.verbs.VerbsConstants.IBV_ACCESS_REMOTE_WRITE;
import static io.jdoca.verbs.VerbsConstants.IBV_SEND_SIGNALED;
import static io.jdoca.verbs.VerbsConstants.IBV_WC_RDMA_READ;
import static io.jdoca.verbs.VerbsConstants.IBV_WC_RDMA_WRITE;
import static io.jdoca.verbs.VerbsConstants.IBV_WC_RECV;
import static io.jdoca.verbs.VerbsConstants.IBV_WC_SEND;
import static io.jdoca.verbs.VerbsConstants.IBV_WC_SUCCESS;
import static io.jdoca.verbs.VerbsConstants.IBV_WC_WR_FLUSH_ERR;
import static io.jdoca.verbs.VerbsConstants.IBV_WR_RDMA_READ;
import static io.jdoca.verbs.VerbsConstants.IBV_WR_RDMA_WRITE;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jdoca.verbs.CmClient;
import io.jdoca.verbs.CmEvent;
import io.jdoca.verbs.CmEventChannel;
import io.jdoca.verbs.CmId;
import io.jdoca.verbs.CompletionChannel;
import io.jdoca.verbs.CompletionQueue;
import io.jdoca.verbs.ConnParam;
import io.jdoca.verbs.MemoryRegion;
import io.jdoca.verbs.PollSet;
import io.jdoca.verbs.ProtectionDomain;
import io.jdoca.verbs.QueuePair;
import io.jdoca.verbs.RdmaCm;
import io.jdoca.verbs.Verbs;
import io.jdoca.verbs.VerbsConstants;
import io.jdoca.verbs.VerbsContext;
import io.jdoca.verbs.VerbsException;
import io.jdoca.verbs.WorkCompletions;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * rdma-core's {@code rping} (librdmacm/examples/rping.c) on jdoca's verbs layer, wire-compatible with
 * it: rdma_cm connection (RDMA_PS_TCP), one RC QP, a CQ with a completion channel, and per ping the
 * client advertises its source buffer ({@code struct rping_rdma_info}: addr u64, rkey u32, size u32, all
 * big-endian) in a SEND, the server RDMA-READs it and answers with a "go ahead" SEND, the client
 * advertises its sink buffer, the server RDMA-WRITEs the data back and sends "go ahead" again; the
 * client then compares (-V). The server serves one connection until the client disconnects.
 *
 * <p>One thread does everything: it sleeps in {@code poll(2)} on the CM event channel and the
 * completion channel fds ({@link PollSet}), drains the CQ after each wake-up (re-arming it), and
 * allocates nothing per ping unless -v prints. The client's connection set-up is {@link CmClient}'s
 * (shared with the NVMe/RDMA host). Differences from rping: IPv4 only, no -P/-q/-I, and a server
 * refuses an advertised length larger than its own buffer instead of letting the device fail.
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
        /**
         * rping's bounds for -S: {@code RPING_MIN_BUFSIZE} is {@code sizeof(stringify(INT_MAX))} (8: the macro is
         * not expanded, "INT_MAX") + {@code sizeof("rdma-ping-%d: ")} (15) = 23; the maximum is RPING_BUFSIZE - 1.
         * Below 26 the ping prefix is cut short, as rping's {@code snprintf} cuts it.
         */
        public static final int MIN_SIZE = 23;
        public static final int MAX_SIZE = 64 * 1024 - 1;
    }

    /** Connection phase; transitions only as {@link #canMoveTo} allows (others are reported as bad state). */
    enum Phase {
        IDLE, ROUTE_RESOLVED, CONNECT_REQUEST, CONNECTED, DISCONNECTED, ERROR;

        boolean canMoveTo(Phase next) {
            return switch (this) {
                case IDLE -> next == ROUTE_RESOLVED || next == CONNECT_REQUEST || next == ERROR;
                case ROUTE_RESOLVED, CONNECT_REQUEST -> next == CONNECTED || next == ERROR || next == DISCONNECTED;
                case CONNECTED -> next == DISCONNECTED || next == ERROR;
                case DISCONNECTED, ERROR -> false;
            };
        }
    }

    /** What a wait is for (a switch, not a lambda: waits on the ping loop allocate nothing). */
    private enum Until { REQUEST, CONNECTED, RECV, READ, WRITE, DISCONNECTED }

    private static final int INFO_SIZE = 16; // struct rping_rdma_info
    private static final int SQ_DEPTH = 16;  // RPING_SQ_DEPTH
    private static final long WR_RECV = 1;
    private static final long WR_SEND = 2;
    private static final long WR_RDMA = 3;
    private static final int RESOLVE_MS = 2000;
    private static final ValueLayout.OfLong BE64 = JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).withByteAlignment(1);
    private static final ValueLayout.OfInt BE32 = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN).withByteAlignment(1);

    private final Options o;
    private final PrintStream out;
    private final PrintStream err;
    private final Arena arena = Arena.ofConfined();

    private Phase phase = Phase.IDLE;
    private String failure;
    private CmEventChannel channel;
    private CmId listenId;
    private CmClient client;
    private CmId id;  // the connection's id (client's, or the server's child)
    private ProtectionDomain pd;
    private CompletionChannel compChannel;
    private CompletionQueue cq;
    private QueuePair qp;
    private final List<MemoryRegion> mrs = new ArrayList<>();
    private final CmEvent ev = new CmEvent();
    private final PollSet pollSet = new PollSet(2);
    private final WorkCompletions wc = new WorkCompletions(8);
    private MemorySegment recvBuf;
    private MemorySegment sendBuf;
    private MemorySegment rdmaBuf;
    private MemorySegment startBuf;
    private MemoryRegion recvMr;
    private MemoryRegion sendMr;
    private MemoryRegion rdmaMr;
    private MemoryRegion startMr;

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
    private final RpingAllocation alloc = new RpingAllocation();

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
        channel = CmEventChannel.create();
        listenId = CmId.create(channel);
        listenId.bind(o.addr(), o.port());
        listenId.listen(3);
        debug("listening on %s:%d", o.addr().getHostAddress(), o.port());
        if (!waitFor(Until.REQUEST)) {
            return fail("wait for CONNECT_REQUEST");
        }
        setupQp();
        setupBuffers();
        postRecv();
        id.accept(null);
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
                return fail("peer advertised " + remoteLen + " bytes, more than this server's buffer (-S " + o.size()
                        + ")");
            }
            postRdma(IBV_WR_RDMA_READ, remoteLen);
            if (!waitFor(Until.READ)) {
                return fail("wait for RDMA_READ_COMPLETE");
            }
            if (o.verbose()) {
                out.println("server ping data: " + RpingText.cString(rdmaBuf));
            }
            postSend(); // go ahead
            // the client advertises its sink buffer
            if (!waitFor(Until.RECV)) {
                return fail("wait for RDMA_WRITE_ADV");
            }
            int len = RpingText.strlen(rdmaBuf) + 1;
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

    private long deadline() {
        return System.nanoTime() + (o.timeoutMs() > 0 ? o.timeoutMs() * 1_000_000L : Long.MAX_VALUE / 4);
    }

    private int client() {
        client = CmClient.resolve(o.addr(), o.port(), RESOLVE_MS, deadline());
        channel = client.channel();
        id = client.id();
        move(Phase.ROUTE_RESOLVED);
        setupQp();
        setupBuffers();
        postRecv();
        // rping's: one outstanding RDMA read each way, retries 7 (its QP is on the id: qp_num and srq come from it)
        CmClient.Outcome c = client.connect(ConnParam.of(null, 1, 1), deadline());
        if (!c.established()) {
            err.println("cma event " + RdmaCm.eventName(c.event()) + ", error " + c.status());
            error(RdmaCm.eventName(c.event()));
            return fail("wait for CONNECTED");
        }
        move(Phase.CONNECTED);
        debug("connected");
        int start = 65;
        int size = o.size();
        long pings = 0;
        for (int ping = 0; o.count() == 0 || ping < o.count(); ping++) {
            int cc = RpingText.formatPrefix(startBuf, ping, size);
            int ch = start;
            for (int i = cc; i < size; i++) {
                startBuf.set(JAVA_BYTE, i, (byte) ch);
                if (++ch > 122) {
                    ch = 65;
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
                out.println("ping data: " + RpingText.cString(rdmaBuf));
            }
            pings++;
            alloc.ping();
        }
        id.disconnect();
        // the CM confirms the teardown with DISCONNECTED; bounded, as rping does not wait for it either
        waitFor(Until.DISCONNECTED, o.timeoutMs() > 0 ? Math.min(o.timeoutMs(), 10_000) : 10_000);
        out.println("rdma-rping client: " + pings + " ping(s) of " + size + " bytes"
                + (o.validate() ? ", data verified" : ""));
        report("client");
        return 0;
    }

    // ---- shared setup (rping_setup_qp, rping_setup_buffers) -------------------------------------

    private void setupQp() {
        VerbsContext ctx = id.context();
        if (ctx == null) {
            throw new VerbsException("rdma_cm", "the id has no device (address not on an RDMA device?)");
        }
        pd = ctx.allocPd();
        compChannel = ctx.createCompletionChannel();
        cq = ctx.createCq(SQ_DEPTH * 2, compChannel, 0);
        int rc = cq.arm();
        if (rc != 0) {
            throw new VerbsException("ibv_req_notify_cq", rc);
        }
        qp = id.createQp(pd, QueuePair.Init.rc(cq, SQ_DEPTH, 2));
        pollSet.set(1, compChannel.fd());
        debug("created qp %d", qp.qpNum());
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
    }

    private MemoryRegion reg(MemorySegment buf, int access) {
        MemoryRegion mr = pd.register(buf, access);
        mrs.add(mr);
        return mr;
    }

    // ---- data path -----------------------------------------------------------------------------

    private void postRecv() {
        int rc = qp.postRecv(WR_RECV, recvBuf.address(), INFO_SIZE, recvMr.lkey());
        if (rc != 0) {
            throw new VerbsException("ibv_post_recv", rc);
        }
    }

    private void postSend() {
        int rc = qp.postSend(WR_SEND, sendBuf.address(), INFO_SIZE, sendMr.lkey(), IBV_SEND_SIGNALED);
        if (rc != 0) {
            throw new VerbsException("ibv_post_send", rc);
        }
    }

    private void postRdma(int opcode, int len) {
        int rc = opcode == IBV_WR_RDMA_READ
                ? qp.postRead(WR_RDMA, rdmaBuf.address(), len, rdmaMr.lkey(), remoteAddr, remoteRkey, IBV_SEND_SIGNALED)
                : qp.postWrite(WR_RDMA, rdmaBuf.address(), len, rdmaMr.lkey(), remoteAddr, remoteRkey,
                        IBV_SEND_SIGNALED);
        if (rc != 0) {
            throw new VerbsException("ibv_post_send", rc);
        }
    }

    /** rping_format_send: addr, rkey, size of a local buffer, big-endian, into the send buffer. */
    private void advertise(MemorySegment buf, MemoryRegion mr) {
        sendBuf.set(BE64, 0, buf.address());
        sendBuf.set(BE32, 8, mr.rkey());
        sendBuf.set(BE32, 12, o.size());
    }

    /** Drains the CQ; false when a completion failed (phase ERROR) or a receive was malformed. */
    private boolean drainCq() {
        int n;
        while ((n = cq.poll(wc)) > 0) {
            for (int i = 0; i < n; i++) {
                int status = wc.status(i);
                if (status != IBV_WC_SUCCESS) {
                    if (status == IBV_WC_WR_FLUSH_ERR) {
                        continue; // the QP left RTS (disconnect): posted requests come back flushed
                    }
                    err.println("cq completion failed status " + status + " (" + Verbs.wcStatusString(status) + ")");
                    return error("completion error");
                }
                switch (wc.opcode(i)) {
                    case IBV_WC_SEND -> { }
                    case IBV_WC_RDMA_READ -> reads++;
                    case IBV_WC_RDMA_WRITE -> writes++;
                    case IBV_WC_RECV -> {
                        int len = wc.byteLen(i);
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
        pollSet.set(0, channel.fd());
        while (true) {
            if (cq != null && !drainCq()) {
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
            if (pollSet.poll(timeout) <= 0) {
                continue; // timeout or EINTR: re-check the deadline
            }
            if (pollSet.readable(0)) {
                while (channel.next(ev)) {
                    cmEvent();
                }
            }
            if (cq != null && pollSet.readable(1) && compChannel.drain() > 0) {
                int rc = cq.arm();
                if (rc != 0) {
                    return error("ibv_req_notify_cq failed: " + rc);
                }
                // the loop drains the CQ next: completions that raced the re-arm are not lost
            }
        }
    }

    /** rping_cma_event_handler: the event {@link #ev} holds, acknowledged before returning. */
    private void cmEvent() {
        int type = ev.type();
        int status = ev.status();
        debug("cma_event type %s status %d", ev.name(), status);
        try {
            switch (type) {
                case VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST -> {
                    if (o.server() && id == null) {
                        id = CmId.fromRequest(ev);
                        move(Phase.CONNECT_REQUEST);
                    } else {
                        // one connection per run, as rping without -P
                        CmId.fromRequest(ev).reject(null);
                    }
                }
                case VerbsConstants.RDMA_CM_EVENT_CONNECT_RESPONSE, VerbsConstants.RDMA_CM_EVENT_ESTABLISHED ->
                        move(Phase.CONNECTED);
                case VerbsConstants.RDMA_CM_EVENT_ADDR_ERROR, VerbsConstants.RDMA_CM_EVENT_ROUTE_ERROR,
                        VerbsConstants.RDMA_CM_EVENT_CONNECT_ERROR, VerbsConstants.RDMA_CM_EVENT_UNREACHABLE,
                        VerbsConstants.RDMA_CM_EVENT_REJECTED -> {
                    err.println("cma event " + ev.name() + ", error " + status);
                    error(ev.name());
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
                default -> debug("unhandled event: %s, ignoring", ev.name());
            }
        } finally {
            ev.ack();
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

    private void debug(String fmt, Object... args) {
        if (o.debug()) {
            out.println(String.format(fmt, args));
        }
    }

    /** rping_disconnect / rping_free_buffers / rping_free_qp / rdma_destroy_id, tolerant of half-built state. */
    @Override
    public void close() {
        if (id != null && phase == Phase.CONNECTED) {
            quietly(id::disconnect);
        }
        List<AutoCloseable> order = new ArrayList<>();
        order.add(qp);
        order.add(cq);
        order.add(compChannel);
        order.addAll(mrs);
        order.add(pd);
        order.add(client != null ? client : id); // the client's id and channel, or the server's child id
        order.add(listenId);
        order.add(client != null ? null : channel);
        for (AutoCloseable c : order) {
            if (c != null) {
                quietly(c::close);
            }
        }
        arena.close(); // after every deregistration: the device no longer references this memory
    }

    /** A cleanup step that may fail. */
    private interface Step {
        void run() throws Exception;
    }

    private void quietly(Step r) {
        try {
            r.run();
        } catch (Exception e) {
            if (o.debug()) {
                err.println("rdma-rping: cleanup: " + e.getMessage());
            }
        }
    }
}
