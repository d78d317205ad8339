package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/**
 * An rdma_cm identifier ({@code struct rdma_cm_id}, port space RDMA_PS_TCP): a listener, or one connection.
 * The usual sequences, as rdma-core's {@code rdma_cm(7)}: a server {@link #bind}s, {@link #listen}s, gets
 * CONNECT_REQUEST with a new id ({@link #fromRequest}), creates its QP ({@link #createQp}) and
 * {@link #accept}s (or {@link #reject}s); a client {@link #resolveAddr}s, then on ADDR_RESOLVED
 * {@link #resolveRoute}s ({@link #clientStep} does both), on ROUTE_RESOLVED creates its QP and
 * {@link #connect}s. Either side {@link #disconnect}s. An application that created its QP itself moves it with
 * {@link QpAttr#fromCm} and completes the active side with {@link #establish()}.
 *
 * <p>Thread rules: control path, any one thread at a time; {@link #close()} after its events are acknowledged.
 */
@SuppressWarnings("restricted") // FFM: rdma_cm hands ids and device contexts out as raw pointers
public final class CmId implements AutoCloseable {
    private static final long SIN_PORT = VerbsLayouts.offset(VerbsLayouts.SOCKADDR_IN, "sin_port");
    private static final long SIN_ADDR = VerbsLayouts.offset(VerbsLayouts.SOCKADDR_IN, "sin_addr");

    private final MemorySegment handle;
    private VerbsContext context;
    private boolean closed;

    private CmId(MemorySegment handle) {
        this.handle = handle.reinterpret(VerbsLayouts.RDMA_CM_ID.byteSize());
    }

    /** {@code rdma_create_id} on {@code channel} in RDMA_PS_TCP. */
    public static CmId create(CmEventChannel channel) {
        return new CmId(RdmaCm.createId(channel.handle(), VerbsConstants.RDMA_PS_TCP));
    }

    /** The new id a CONNECT_REQUEST carries ({@link CmEvent#id()}). */
    public static CmId fromRequest(CmEvent request) {
        return new CmId(MemorySegment.ofAddress(request.id()));
    }

    /** An id by address (one this process created; e.g. kept as a long by a table). */
    public static CmId ofAddress(long address) {
        return new CmId(MemorySegment.ofAddress(address));
    }

    /** The {@code struct rdma_cm_id *}. */
    public MemorySegment handle() {
        return handle;
    }

    public long address() {
        return handle.address();
    }

    /** {@code rdma_bind_addr} to {@code addr:port} (port 0: the CM picks one, see {@link #localPort()}). */
    public void bind(Inet4Address addr, int port) {
        try (Arena a = Arena.ofConfined()) {
            RdmaCm.bindAddr(handle, RdmaCm.sockaddrIn(a.allocate(VerbsLayouts.SOCKADDR_IN), addr, port));
        }
    }

    /** {@code rdma_listen}. */
    public void listen(int backlog) {
        RdmaCm.listen(handle, backlog);
    }

    /** {@code rdma_resolve_addr} towards {@code addr:port}; ADDR_RESOLVED or ADDR_ERROR follows. */
    public void resolveAddr(Inet4Address addr, int port, int timeoutMs) {
        try (Arena a = Arena.ofConfined()) {
            RdmaCm.resolveAddr(handle, MemorySegment.NULL,
                    RdmaCm.sockaddrIn(a.allocate(VerbsLayouts.SOCKADDR_IN), addr, port), timeoutMs);
        }
    }

    /** {@code rdma_resolve_route}; ROUTE_RESOLVED or ROUTE_ERROR follows. */
    public void resolveRoute(int timeoutMs) {
        RdmaCm.resolveRoute(handle, timeoutMs);
    }

    /** The client sequence's next step for an event of this id ({@link RdmaCm#clientStep}). */
    public RdmaCm.ClientStep clientStep(int eventType, int timeoutMs) {
        return RdmaCm.clientStep(handle, eventType, timeoutMs);
    }

    /** The device context rdma_cm bound or resolved this id to ({@code id->verbs}), or null before. */
    public VerbsContext context() {
        if (context == null) {
            MemorySegment v = handle.get(ADDRESS, VerbsLayouts.CM_ID_VERBS);
            if (!v.equals(MemorySegment.NULL)) {
                context = VerbsContext.of(v);
            }
        }
        return context;
    }

    /** The device port ({@code id->port_num}). */
    public int portNum() {
        return handle.get(JAVA_BYTE, VerbsLayouts.CM_ID_PORT_NUM) & 0xff;
    }

    /** {@code rdma_create_qp} in {@code pd} on the id's device: the CM moves it as the connection is made. */
    public QueuePair createQp(ProtectionDomain pd, QueuePair.Init init) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment qp = RdmaCm.createQp(handle, pd.handle(), init.fill(a));
            return new QueuePair(pd.context().ops(), qp, this, init);
        }
    }

    /** {@code rdma_connect}. */
    public void connect(ConnParam p) {
        try (Arena a = Arena.ofConfined()) {
            RdmaCm.connect(handle, p.fill(a));
        }
    }

    /** {@code rdma_accept} ({@code p} null: the CM's defaults, no private data). */
    public void accept(ConnParam p) {
        try (Arena a = Arena.ofConfined()) {
            RdmaCm.accept(handle, p == null ? MemorySegment.NULL : p.fill(a));
        }
    }

    /** {@code rdma_reject} with optional private data (null for none). */
    public void reject(byte[] privateData) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment pd = MemorySegment.NULL;
            int len = privateData == null ? 0 : privateData.length;
            if (len > 0) {
                pd = a.allocate(len);
                MemorySegment.copy(privateData, 0, pd, JAVA_BYTE, 0, len);
            }
            RdmaCm.reject(handle, pd, len);
        }
    }

    /** {@code rdma_establish}: the active side of a connection whose QP it owns, after moving it to RTS. */
    public void establish() {
        RdmaCm.establish(handle);
    }

    /** {@code rdma_disconnect}: the QP goes to ERR, the peer gets DISCONNECTED. */
    public void disconnect() {
        RdmaCm.disconnect(handle);
    }

    /** The local address and port ({@code route.addr.src_sin}). */
    public InetSocketAddress localAddress() {
        return sockaddr(VerbsLayouts.CM_ID_SRC_SIN);
    }

    /** The peer's address and port ({@code route.addr.dst_sin}). */
    public InetSocketAddress remoteAddress() {
        return sockaddr(VerbsLayouts.CM_ID_DST_SIN);
    }

    /** The bound local port (after a bind to 0). */
    public int localPort() {
        return RdmaCm.srcPort(handle);
    }

    private InetSocketAddress sockaddr(long off) {
        byte[] a = new byte[4];
        MemorySegment.copy(handle, JAVA_BYTE, off + SIN_ADDR, a, 0, 4);
        int port = handle.get(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), off + SIN_PORT) & 0xffff;
        try {
            return new InetSocketAddress(InetAddress.getByAddress(a), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes are always an address
        }
    }

    /** {@code rdma_destroy_id} (its QP destroyed and its events acknowledged first). Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            RdmaCm.destroyId(handle);
        }
    }

    @Override
    public String toString() {
        return "rdma_cm_id@0x" + Long.toHexString(handle.address());
    }
}
