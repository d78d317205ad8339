package io.jdoca.rdma;

import io.jdoca.core.DocaError;
import io.jdoca.rdma.wire.RdmaConnectionBlob;
import io.jdoca.rdma.wire.VerbsCmPrivateData;
import io.jdoca.verbs.CmEvent;
import io.jdoca.verbs.CmEventAgent;
import io.jdoca.verbs.CmId;
import io.jdoca.verbs.ConnParam;
import io.jdoca.verbs.RdmaCm;
import io.jdoca.verbs.VerbsConstants;
import io.jdoca.verbs.VerbsException;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;

/**
 * DOCA's CM connection mode ({@code doca_rdma_start_listen_to_port}, {@code doca_rdma_connect_to_addr},
 * {@code doca_rdma_connection_accept}/{@code _reject}) on the verbs transport, through rdma_cm (librdmacm): ids on
 * the process's {@link CmEventAgent} channel, listening ids bound to the RDMA device's own IPv4 address(es) (or
 * where the operator said with {@link Rdma#setTcpAddress}), one id per connection.
 *
 * <p>The QPs stay the transport's ({@link VerbsEndpoint}: the context's PD, CQ and SRQ, created by jdoca on the
 * device context jdoca opened; rdma_cm's own device context is another one, so {@code rdma_create_qp} cannot take
 * the context's PD). rdma_cm is told their numbers ({@code rdma_conn_param.qp_num}, {@code srq}) and computes the
 * RTR/RTS attributes ({@code rdma_init_qp_attr}); the active side completes with {@code rdma_establish} on
 * CONNECT_RESPONSE, the passive side moves its QP before {@code rdma_accept}. The private data
 * ({@link VerbsCmPrivateData}) carries what the CM does not: the peer's pid, host and permissions (checked against
 * the memory maps a task names) and its control word.
 *
 * <p>Liveness: RDMA_CM_EVENT_DISCONNECTED (the peer disconnected, or its process died and the kernel destroyed its
 * ids, which sends the DREQ) breaks the connection at once; a closed connection is {@code rdma_disconnect}ed once
 * its goodbye write is done.
 *
 * <p>Threads: the process's {@link CmEventAgent} thread hands each event of this context's ids to
 * {@link #onCmEvent}, which copies what it needs, queues it and wakes the engine; everything else runs on the
 * engine thread (control path: this allocates). No thread of its own.
 */
final class VerbsCm {
    private static final System.Logger LOG = System.getLogger(VerbsCm.class.getName());
    /** Address and route resolution: kernel work, but the emulated guest is slow. */
    static final int RESOLVE_TIMEOUT_MS = 5_000;
    static final int BACKLOG = 16;

    /** Life cycle of one rdma_cm id of this context. */
    enum State {
        LISTENING, RESOLVING_ADDR, RESOLVING_ROUTE, CONNECTING, REQUESTED, ACCEPTING, ESTABLISHED, DISCONNECTING, DONE;

        boolean canTransitionTo(State next) {
            return switch (this) {
                case LISTENING -> next == DONE;
                case RESOLVING_ADDR -> next == RESOLVING_ROUTE || next == DONE;
                case RESOLVING_ROUTE -> next == CONNECTING || next == DONE;
                case CONNECTING, ACCEPTING -> next == ESTABLISHED || next == DISCONNECTING || next == DONE;
                case REQUESTED -> next == ACCEPTING || next == DONE;
                case ESTABLISHED -> next == DISCONNECTING || next == DONE;
                case DISCONNECTING -> next == DONE;
                case DONE -> false;
            };
        }
    }

    /** One rdma_cm id: a listener, a request waiting for accept/reject, or a connection's. Engine thread. */
    static final class Link {
        final CmId id;
        State state;
        RdmaConnection conn;
        /** The peer's private data (a request's, or the accept's). */
        VerbsCmPrivateData peer;
        String peerAddr = "";

        Link(CmId id, State s) {
            this.id = id;
            this.state = s;
        }

        boolean move(State next) {
            if (!state.canTransitionTo(next)) {
                LOG.log(System.Logger.Level.DEBUG, "rdma_cm id: " + state + " → " + next + " refused");
                return false;
            }
            state = next;
            return true;
        }
    }

    /** What the agent's thread copied out of one {@code rdma_cm_event} before it was acknowledged. */
    private record Event(int type, int status, long id, long listenId, byte[] privateData) {
    }

    private final Rdma rdma;
    private final VerbsTransport vt;
    private final CmEventAgent agent;
    private final Map<Long, Link> links = new HashMap<>();
    /** The links that carry a connection, iterated by index in {@link #poll()} (no iterator per engine pass). */
    private final List<Link> connLinks = new ArrayList<>();
    private final List<Link> listeners = new ArrayList<>();
    private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();
    /** Set by {@link #release()}: the agent drops this context's events from then on. */
    private volatile boolean stop;
    private int listenPort;
    private boolean released;

    VerbsCm(Rdma rdma, VerbsTransport vt) {
        this.rdma = rdma;
        this.vt = vt;
        this.agent = CmEventAgent.get();
    }

    /** The CM side of a started verbs context, or null (logged) when rdma_cm is unusable. */
    static VerbsCm open(Rdma rdma, VerbsTransport vt) {
        try {
            return new VerbsCm(rdma, vt);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "rdma: the CM mode on " + vt.dev.name() + " needs rdma_cm: "
                    + e.getMessage());
            return null;
        }
    }

    // ------------------------------------------------------------------ the agent's thread

    /** One event of this context's ids: copied, queued, the engine woken. Agent thread; allocates (control path). */
    private void onCmEvent(CmEvent ev) {
        if (stop) {
            return;
        }
        events.add(new Event(ev.type(), ev.status(), ev.id(), ev.listenId(), ev.privateDataBytes()));
        io.jdoca.core.exec.ProgressEngine pe = rdma.pe();
        if (pe != null) {
            pe.notifyWork();
        }
    }

    boolean hasEvents() {
        return !events.isEmpty();
    }

    // ------------------------------------------------------------------ listen / connect (engine thread)

    /**
     * The addresses to listen on: the operator's ({@link Rdma#setTcpAddress}; a wildcard only if the operator
     * gave one), else the IPv4 addresses of the RDMA device's network interface(s).
     */
    static List<Inet4Address> listenAddresses(InetAddress operator, String ibdev, int port) throws IOException {
        if (operator != null) {
            if (!(operator instanceof Inet4Address a4)) {
                throw new IOException("rdma_cm listener: only IPv4 addresses are supported, not " + operator);
            }
            return List.of(a4);
        }
        List<Inet4Address> out = new ArrayList<>();
        Path ndevs = Path.of("/sys/class/infiniband", ibdev, "ports", Integer.toString(port), "gid_attrs", "ndevs");
        List<String> names = new ArrayList<>();
        if (Files.isDirectory(ndevs)) {
            try (Stream<Path> s = Files.list(ndevs)) {
                for (Path p : s.toList()) {
                    try {
                        String n = Files.readString(p).trim();
                        if (!n.isEmpty() && !names.contains(n)) {
                            names.add(n);
                        }
                    } catch (IOException unused) {
                        // an unused GID entry has no network device (EINVAL on read)
                    }
                }
            }
        }
        for (String n : names) {
            NetworkInterface ni = NetworkInterface.getByName(n);
            if (ni != null) {
                ni.inetAddresses().filter(x -> x instanceof Inet4Address).map(x -> (Inet4Address) x)
                        .filter(x -> !out.contains(x)).forEach(out::add);
            }
        }
        if (out.isEmpty()) {
            throw new IOException("RDMA device " + ibdev + " has no IPv4 address to listen on (network devices "
                    + names + "); give one with Rdma.setTcpAddress");
        }
        return out;
    }

    /** {@code rdma_bind_addr} + {@code rdma_listen} on each address; the port is the first's (0: chosen there). */
    DocaError listen(InetAddress operator, int port) {
        if (!listeners.isEmpty()) {
            return DocaError.IN_USE;
        }
        List<Inet4Address> addrs;
        try {
            addrs = listenAddresses(operator, vt.dev.name(), vt.dev.port());
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "rdma: cannot listen: " + e.getMessage());
            return DocaError.NOT_FOUND;
        }
        int p = port;
        try {
            for (Inet4Address addr : addrs) {
                CmId id = agent.createId(this::onCmEvent);
                Link l = new Link(id, State.LISTENING);
                listeners.add(l);
                id.bind(addr, p);
                id.listen(BACKLOG);
                if (p == 0) {
                    p = id.localPort();
                }
                LOG.log(System.Logger.Level.DEBUG, "rdma_cm listening on " + addr.getHostAddress() + ":" + p);
            }
        } catch (VerbsException e) {
            LOG.log(System.Logger.Level.WARNING, "rdma: cannot listen on " + addrs + " port " + port + ": "
                    + e.getMessage());
            closeListeners();
            return DocaError.OPERATING_SYSTEM;
        }
        listenPort = p;
        return DocaError.SUCCESS;
    }

    int listenPort() {
        return listeners.isEmpty() ? 0 : listenPort;
    }

    void closeListeners() {
        for (Link l : listeners) {
            destroy(l);
        }
        listeners.clear();
    }

    /** A CM connection leaves IDLE: CONNECTING over VERBS, the connect deadline starts. */
    static void connecting(RdmaConnection c) {
        c.transport = RdmaTransportType.VERBS;
        c.connectStartNanos = System.nanoTime();
        c.transition(RdmaConnectionState.CONNECTING);
    }

    /** {@code rdma_resolve_addr} towards {@code addr}; the rest follows the events. A failure is put on {@code c}. */
    void connect(RdmaConnection c, InetSocketAddress addr) {
        if (!(addr.getAddress() instanceof Inet4Address a4)) {
            c.failure = "CM connect to " + addr + ": rdma_cm takes IPv4 addresses only";
            return;
        }
        CmId id;
        try {
            id = agent.createId(this::onCmEvent);
        } catch (VerbsException e) {
            c.failure = "CM connect to " + addr + ": " + e.getMessage();
            return;
        }
        try {
            id.resolveAddr(a4, addr.getPort(), RESOLVE_TIMEOUT_MS);
        } catch (VerbsException e) {
            c.failure = "CM connect to " + addr + ": " + e.getMessage();
            destroyId(id);
            return;
        }
        Link l = new Link(id, State.RESOLVING_ADDR);
        l.conn = c;
        l.peerAddr = addr.toString();
        c.verbsCm = l;
        links.put(id.address(), l);
        connLinks.add(l);
    }

    /** Our private data for a request or accept. */
    private byte[] privateData(VerbsEndpoint ep) {
        return new VerbsCmPrivateData(ProcessHandle.current().pid(), Rdma.HOST, rdma.permissions(), ep.ctrlRkey(),
                ep.ctrlAddr()).encode();
    }

    private int rdDepth() {
        return Math.max(1, Math.min(16, Math.min(vt.dev.maxQpRdAtom(), vt.dev.maxQpInitRdAtom())));
    }

    private ConnParam connParam(VerbsEndpoint ep) {
        return ConnParam.of(privateData(ep), rdDepth(), rdDepth()).forQp(ep.qpn, true, VerbsEndpoint.RETRY_CNT, 6);
    }

    /**
     * {@link Rdma#connectionAccept} of a request the request callback got: a new connection (its QP at INIT), which
     * {@link #accept} connects. BAD_STATE for a request already answered.
     */
    DocaError acceptRequest(RdmaConnection request) {
        Link l = request.verbsCm;
        if (l.state != State.REQUESTED) {
            return DocaError.BAD_STATE;
        }
        request.verbsCm = null;
        RdmaConnection c;
        try {
            c = rdma.newConnection();
        } catch (io.jdoca.core.DocaException e) {
            LOG.log(System.Logger.Level.WARNING, "rdma CM accept: " + e.getMessage());
            reject(l);
            return e.error();
        }
        c.setUserData(request.userData());
        connecting(c);
        rdma.cmSetupPending(null);
        try {
            accept(l, c);
        } catch (VerbsException e) {
            reject(l);
            c.failure = "CM accept: " + e.getMessage();
            return DocaError.DRIVER;
        }
        return DocaError.SUCCESS;
    }

    /**
     * Accepts a request ({@link Rdma#connectionAccept}): {@code c}'s QP to RTS with the CM's attributes, then
     * {@code rdma_accept} with our private data. Throws VerbsException.
     */
    void accept(Link request, RdmaConnection c) {
        if (!request.move(State.ACCEPTING)) {
            throw new VerbsException("rdma_accept", "the request is " + request.state);
        }
        request.conn = c;
        c.verbsCm = request;
        connLinks.add(request);
        VerbsEndpoint ep = c.verbsEp;
        VerbsCmPrivateData p = request.peer;
        ep.connectCm(request.id, p.ctrlAddr(), p.ctrlRkey(), Rdma.HOST.equals(p.hostId()) ? p.pid() : 0);
        request.id.accept(connParam(ep));
    }

    /** {@code rdma_reject} of a request, then its id is destroyed. */
    void reject(Link request) {
        if (!request.move(State.DONE)) {
            return;
        }
        links.remove(request.id.address());
        try {
            request.id.reject(null);
        } catch (VerbsException e) {
            LOG.log(System.Logger.Level.WARNING, "rdma_reject: " + e.getMessage());
        }
        destroyId(request.id);
    }

    // ------------------------------------------------------------------ events (engine thread)

    /** Handles the queued events and tells the peers of closed connections; returns how many things happened. */
    int poll() {
        int n = 0;
        Event e;
        while ((e = events.poll()) != null && !released) {
            n++;
            handle(e);
        }
        for (int i = 0; i < connLinks.size(); i++) {
            Link l = connLinks.get(i);
            RdmaConnection c = l.conn;
            if (l.state == State.ESTABLISHED && c != null && c.verbsEp != null && c.verbsEp.closedAndQuiet()) {
                disconnect(l);
                n++;
            }
        }
        return n;
    }

    private void disconnect(Link l) {
        if (l.move(State.DISCONNECTING)) {
            try {
                l.id.disconnect();
            } catch (VerbsException e) {
                LOG.log(System.Logger.Level.DEBUG, "rdma_disconnect: " + e.getMessage());
            }
        }
    }

    private void handle(Event e) {
        String name = RdmaCm.eventName(e.type());
        if (e.type() == VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST) {
            onRequest(e);
            return;
        }
        Link l = links.get(e.id());
        if (l == null) {
            LOG.log(System.Logger.Level.DEBUG, "rdma_cm " + name + " for an id no longer tracked");
            return;
        }
        RdmaConnection c = l.conn;
        if (l.state == State.RESOLVING_ADDR || l.state == State.RESOLVING_ROUTE) {
            // The client sequence shared with Rping and the NVMe/RDMA host: address → route → connect.
            RdmaCm.ClientStep step;
            try {
                step = l.id.clientStep(e.type(), RESOLVE_TIMEOUT_MS);
            } catch (VerbsException x) {
                failed(l, "rdma_resolve_route to " + l.peerAddr + ": " + x.getMessage());
                return;
            }
            switch (step) {
                case ROUTE_PENDING -> l.move(State.RESOLVING_ROUTE);
                case READY_TO_CONNECT -> {
                    if (l.move(State.CONNECTING)) {
                        try {
                            l.id.connect(connParam(c.verbsEp));
                        } catch (VerbsException x) {
                            failed(l, "rdma_connect to " + l.peerAddr + ": " + x.getMessage());
                        }
                    }
                }
                case FAILED -> failed(l, "rdma_cm " + name + " (status " + e.status() + ") resolving " + l.peerAddr);
                default -> LOG.log(System.Logger.Level.DEBUG, "rdma_cm " + name + " while resolving: ignored");
            }
            return;
        }
        switch (e.type()) {
            case VerbsConstants.RDMA_CM_EVENT_CONNECT_RESPONSE -> onResponse(l, e);
            case VerbsConstants.RDMA_CM_EVENT_ESTABLISHED -> {
                if (l.state == State.ACCEPTING && l.move(State.ESTABLISHED)) {
                    established(l);
                }
            }
            case VerbsConstants.RDMA_CM_EVENT_ADDR_ERROR, VerbsConstants.RDMA_CM_EVENT_ROUTE_ERROR,
                    VerbsConstants.RDMA_CM_EVENT_CONNECT_ERROR, VerbsConstants.RDMA_CM_EVENT_UNREACHABLE,
                    VerbsConstants.RDMA_CM_EVENT_REJECTED ->
                    failed(l, "rdma_cm " + name + " (status " + e.status() + ") connecting to " + l.peerAddr);
            case VerbsConstants.RDMA_CM_EVENT_DISCONNECTED -> {
                boolean wasUp = l.state == State.ESTABLISHED;
                if (l.state != State.DISCONNECTING) {
                    // The peer's DREQ: answer it (DREP), so its side completes at once too.
                    disconnect(l);
                }
                if (wasUp && c != null && c.verbsEp != null) {
                    c.verbsEp.peerLeft("rdma_cm DISCONNECTED: the peer closed the connection or is gone");
                } else if (c != null && c.state() == RdmaConnectionState.CONNECTING) {
                    failed(l, "rdma_cm DISCONNECTED while connecting to " + l.peerAddr);
                }
            }
            case VerbsConstants.RDMA_CM_EVENT_DEVICE_REMOVAL -> {
                if (c != null && c.verbsEp != null) {
                    c.verbsEp.peerLeft("rdma_cm DEVICE_REMOVAL");
                }
            }
            default -> LOG.log(System.Logger.Level.DEBUG, "rdma_cm " + name + " ignored");
        }
    }

    private void onRequest(Event e) {
        Link l = new Link(CmId.ofAddress(e.id()), State.REQUESTED);
        try {
            l.peer = VerbsCmPrivateData.decode(e.privateData());
        } catch (IllegalArgumentException x) {
            LOG.log(System.Logger.Level.WARNING, "rdma_cm connection request rejected: " + x.getMessage());
            reject(l);
            return;
        }
        if (rdma.cmStopping()) {
            reject(l);
            return;
        }
        links.put(e.id(), l);
        RdmaConnection placeholder = new RdmaConnection(rdma, -1, 0);
        placeholder.verbsCm = l;
        rdma.cmSetupPending(placeholder);
    }

    private void onResponse(Link l, Event e) {
        RdmaConnection c = l.conn;
        if (l.state != State.CONNECTING || c == null || c.verbsEp == null) {
            return;
        }
        try {
            l.peer = VerbsCmPrivateData.decode(e.privateData());
        } catch (IllegalArgumentException x) {
            failed(l, "the accept of " + l.peerAddr + ": " + x.getMessage());
            rejectResponse(l);
            return;
        }
        try {
            VerbsCmPrivateData p = l.peer;
            c.verbsEp.connectCm(l.id, p.ctrlAddr(), p.ctrlRkey(), Rdma.HOST.equals(p.hostId()) ? p.pid() : 0);
            l.id.establish();
        } catch (VerbsException x) {
            failed(l, "completing the connection to " + l.peerAddr + ": " + x.getMessage());
            rejectResponse(l);
            return;
        }
        if (l.move(State.ESTABLISHED)) {
            established(l);
        }
    }

    /** The QP is in RTS and the CM says established: the connection gets its endpoint; setup work reports it. */
    private void established(Link l) {
        RdmaConnection c = l.conn;
        VerbsCmPrivateData p = l.peer;
        c.peer = new RdmaConnectionBlob(RdmaConnectionBlob.TRANSPORT_VERBS, p.pid(), p.permissions(), 0, p.hostId(), 0,
                "", "", 0, 0, null);
        c.endpoint = c.verbsEp;
        rdma.cmSetupPending(null);
    }

    /** The active side refuses a response it cannot use (the peer's passive side then gets REJECTED). */
    private void rejectResponse(Link l) {
        try {
            l.id.reject(null);
        } catch (VerbsException x) {
            LOG.log(System.Logger.Level.DEBUG, "rdma_reject of a response: " + x.getMessage());
        }
    }

    private void failed(Link l, String why) {
        l.move(State.DONE);
        RdmaConnection c = l.conn;
        if (c != null && c.failure == null) {
            c.failure = why;
            rdma.cmSetupPending(null);
        }
    }

    // ------------------------------------------------------------------ teardown

    /** Once the context is idle: the agent drops this context's events, every id is disconnected and destroyed. */
    void release() {
        if (released) {
            return;
        }
        released = true;
        stop = true;
        closeListeners();
        for (Link l : links.values()) {
            if (l.state == State.ESTABLISHED || l.state == State.ACCEPTING || l.state == State.CONNECTING) {
                disconnect(l);
            }
            destroy(l);
        }
        links.clear();
        connLinks.clear();
        events.clear();
    }

    private void destroy(Link l) {
        l.state = State.DONE;
        destroyId(l.id);
    }

    private void destroyId(CmId id) {
        try {
            agent.destroy(id);
        } catch (VerbsException e) {
            LOG.log(System.Logger.Level.WARNING, "rdma_destroy_id: " + e.getMessage());
        }
    }
}
