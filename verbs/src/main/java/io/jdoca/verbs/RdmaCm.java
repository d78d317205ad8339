package io.jdoca.verbs;

import static io.jdoca.verbs.Verbs.call;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.net.Inet4Address;
import java.nio.ByteOrder;

/**
 * librdmacm ({@code librdmacm.so.1}, rdma-core) through {@code java.lang.foreign}: the RDMA connection
 * manager calls jdoca uses (event channel, ids, bind / listen / resolve / connect / accept / reject /
 * disconnect, events, QP creation on an id). librdmacm returns -1 and sets errno; the wrappers throw
 * {@link VerbsException}. Loading fails soft as in {@link Verbs}.
 *
 * <p>Thread rules: as librdmacm; {@link #getCmEvent} blocks, so poll the channel's fd first on an
 * engine thread.
 */
// FFM: this class is a native binding; its downcall handles and reinterpreted segments are the point
@SuppressWarnings("restricted")
public final class RdmaCm {
    private RdmaCm() {
    }

    private static final NativeLib LIB = NativeLib.open("librdmacm.so.1", "librdmacm1");

    private static final MethodHandle CREATE_EVENT_CHANNEL = LIB.fn("rdma_create_event_channel", true, ADDRESS);
    private static final MethodHandle DESTROY_EVENT_CHANNEL = LIB.fn("rdma_destroy_event_channel", false, null,
            ADDRESS);
    private static final MethodHandle CREATE_ID = LIB.fn("rdma_create_id", true, JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
            JAVA_INT);
    private static final MethodHandle DESTROY_ID = LIB.fn("rdma_destroy_id", true, JAVA_INT, ADDRESS);
    private static final MethodHandle BIND_ADDR = LIB.fn("rdma_bind_addr", true, JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle LISTEN = LIB.fn("rdma_listen", true, JAVA_INT, ADDRESS, JAVA_INT);
    private static final MethodHandle RESOLVE_ADDR = LIB.fn("rdma_resolve_addr", true, JAVA_INT, ADDRESS, ADDRESS,
            ADDRESS, JAVA_INT);
    private static final MethodHandle RESOLVE_ROUTE = LIB.fn("rdma_resolve_route", true, JAVA_INT, ADDRESS, JAVA_INT);
    private static final MethodHandle CREATE_QP = LIB.fn("rdma_create_qp", true, JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
    private static final MethodHandle DESTROY_QP = LIB.fn("rdma_destroy_qp", false, null, ADDRESS);
    private static final MethodHandle CONNECT = LIB.fn("rdma_connect", true, JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle ACCEPT = LIB.fn("rdma_accept", true, JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle REJECT = LIB.fn("rdma_reject", true, JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE);
    private static final MethodHandle DISCONNECT = LIB.fn("rdma_disconnect", true, JAVA_INT, ADDRESS);
    private static final MethodHandle GET_CM_EVENT = LIB.fn("rdma_get_cm_event", true, JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle ACK_CM_EVENT = LIB.fn("rdma_ack_cm_event", true, JAVA_INT, ADDRESS);
    private static final MethodHandle INIT_QP_ATTR = LIB.fn("rdma_init_qp_attr", true, JAVA_INT, ADDRESS, ADDRESS,
            ADDRESS);
    private static final MethodHandle ESTABLISH = LIB.fn("rdma_establish", true, JAVA_INT, ADDRESS);
    private static final MethodHandle EVENT_STR = LIB.fn("rdma_event_str", false, ADDRESS, JAVA_INT);

    private static final String UNAVAILABLE = LIB.reason();

    /** True when librdmacm was found with every symbol jdoca binds. */
    public static boolean isAvailable() {
        return UNAVAILABLE == null && Verbs.isAvailable();
    }

    /** Why librdmacm (or libibverbs under it) is unusable, or {@code null}. */
    public static String unavailableReason() {
        return UNAVAILABLE != null ? UNAVAILABLE : Verbs.unavailableReason();
    }

    private static void require() {
        if (!isAvailable()) {
            throw new VerbsException("librdmacm", unavailableReason());
        }
    }

    private static void rc(String fn, int rc, MemorySegment cap) {
        if (rc != 0) {
            throw new VerbsException(fn, NativeLib.errno(cap));
        }
    }

    /** {@code rdma_create_event_channel}, sized to {@link VerbsLayouts#RDMA_EVENT_CHANNEL}. */
    public static MemorySegment createEventChannel() {
        require();
        MemorySegment cap = Verbs.capture();
        MemorySegment ch = call(() -> (MemorySegment) CREATE_EVENT_CHANNEL.invokeExact(cap));
        return Verbs.ptr("rdma_create_event_channel", ch, cap).reinterpret(VerbsLayouts.RDMA_EVENT_CHANNEL.byteSize());
    }

    /** The fd of an event channel: readable when {@link #getCmEvent} will not block. */
    public static int eventChannelFd(MemorySegment channel) {
        return channel.get(JAVA_INT, VerbsLayouts.EVENT_CHANNEL_FD);
    }

    /** {@code rdma_destroy_event_channel}. */
    public static void destroyEventChannel(MemorySegment channel) {
        call(() -> {
            DESTROY_EVENT_CHANNEL.invokeExact(channel);
            return null;
        });
    }

    /** {@code rdma_create_id} in port space {@code ps} (e.g. RDMA_PS_TCP); sized to {@link VerbsLayouts#RDMA_CM_ID}. */
    public static MemorySegment createId(MemorySegment channel, int ps) {
        require();
        MemorySegment cap = Verbs.capture();
        try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment cell = a.allocate(ADDRESS);
            rc("rdma_create_id", call(() -> (int) CREATE_ID.invokeExact(cap, channel, cell, MemorySegment.NULL, ps)),
                    cap);
            return cell.get(ADDRESS, 0).reinterpret(VerbsLayouts.RDMA_CM_ID.byteSize());
        }
    }

    /** {@code rdma_destroy_id}. */
    public static void destroyId(MemorySegment id) {
        MemorySegment cap = Verbs.capture();
        rc("rdma_destroy_id", call(() -> (int) DESTROY_ID.invokeExact(cap, id)), cap);
    }

    /** {@code rdma_bind_addr} to a {@link VerbsLayouts#SOCKADDR_IN} (see {@link #sockaddrIn}). */
    public static void bindAddr(MemorySegment id, MemorySegment sockaddr) {
        MemorySegment cap = Verbs.capture();
        rc("rdma_bind_addr", call(() -> (int) BIND_ADDR.invokeExact(cap, id, sockaddr)), cap);
    }

    /** {@code rdma_listen}. */
    public static void listen(MemorySegment id, int backlog) {
        MemorySegment cap = Verbs.capture();
        rc("rdma_listen", call(() -> (int) LISTEN.invokeExact(cap, id, backlog)), cap);
    }

    /** {@code rdma_resolve_addr} (source may be NULL); completes with ADDR_RESOLVED or ADDR_ERROR. */
    public static void resolveAddr(MemorySegment id, MemorySegment src, MemorySegment dst, int timeoutMs) {
        MemorySegment cap = Verbs.capture();
        rc("rdma_resolve_addr", call(() -> (int) RESOLVE_ADDR.invokeExact(cap, id, src, dst, timeoutMs)), cap);
    }

    /** {@code rdma_resolve_route}; completes with ROUTE_RESOLVED or ROUTE_ERROR. */
    public static void resolveRoute(MemorySegment id, int timeoutMs) {
        MemorySegment cap = Verbs.capture();
        rc("rdma_resolve_route", call(() -> (int) RESOLVE_ROUTE.invokeExact(cap, id, timeoutMs)), cap);
    }

    /** {@code rdma_create_qp}: a QP on the id's device, moved through states by the CM; {@code id->qp} after. */
    public static MemorySegment createQp(MemorySegment id, MemorySegment pd, MemorySegment initAttr) {
        MemorySegment cap = Verbs.capture();
        rc("rdma_create_qp", call(() -> (int) CREATE_QP.invokeExact(cap, id, pd, initAttr)), cap);
        return id.get(ADDRESS, VerbsLayouts.CM_ID_QP).reinterpret(VerbsLayouts.IBV_QP.byteSize());
    }

    /** {@code rdma_destroy_qp}. */
    public static void destroyQp(MemorySegment id) {
        call(() -> {
            DESTROY_QP.invokeExact(id);
            return null;
        });
    }

    /** {@code rdma_connect} with an {@link VerbsLayouts#RDMA_CONN_PARAM}. */
    public static void connect(MemorySegment id, MemorySegment connParam) {
        MemorySegment cap = Verbs.capture();
        rc("rdma_connect", call(() -> (int) CONNECT.invokeExact(cap, id, connParam)), cap);
    }

    /** {@code rdma_accept} (connParam may be NULL). */
    public static void accept(MemorySegment id, MemorySegment connParam) {
        MemorySegment cap = Verbs.capture();
        rc("rdma_accept", call(() -> (int) ACCEPT.invokeExact(cap, id, connParam)), cap);
    }

    /** {@code rdma_reject} with optional private data (NULL, 0 for none). */
    public static void reject(MemorySegment id, MemorySegment privateData, int len) {
        MemorySegment cap = Verbs.capture();
        rc("rdma_reject", call(() -> (int) REJECT.invokeExact(cap, id, privateData, (byte) len)), cap);
    }

    /**
     * {@code rdma_init_qp_attr}: the attributes (and in {@code maskCell}, an int, the attribute mask) that move a QP
     * the application created itself (not by {@link #createQp}) to {@code attr.qp_state} for this connection: the
     * route's address vector, the CM's PSNs and the peer's QP number for RTR, the CM's timeouts for RTS. Set
     * {@code qp_state} in {@code attr} before the call.
     */
    public static int initQpAttr(MemorySegment id, MemorySegment attr, MemorySegment maskCell) {
        MemorySegment cap = Verbs.capture();
        rc("rdma_init_qp_attr", call(() -> (int) INIT_QP_ATTR.invokeExact(cap, id, attr, maskCell)), cap);
        return maskCell.get(JAVA_INT, 0);
    }

    /**
     * {@code rdma_establish}: the active side of a connection whose QP the application owns completes it (sends the
     * RTU) after moving the QP to RTS on {@code RDMA_CM_EVENT_CONNECT_RESPONSE}.
     */
    public static void establish(MemorySegment id) {
        MemorySegment cap = Verbs.capture();
        rc("rdma_establish", call(() -> (int) ESTABLISH.invokeExact(cap, id)), cap);
    }

    /**
     * Fills an {@link VerbsLayouts#RDMA_CONN_PARAM} for {@link #connect} / {@link #accept}: private data
     * ({@code NULL}, 0 for none; at most 56 bytes in a request and 196 in an accept on RDMA_PS_TCP), RDMA read
     * depths, retry counts, and for a QP the application owns its number and whether it uses an SRQ.
     */
    public static MemorySegment connParam(MemorySegment cp, MemorySegment privateData, int privateDataLen,
            int responderResources, int initiatorDepth, int retryCount, int rnrRetryCount, int qpNum, boolean srq) {
        return connParam(cp, privateData, privateDataLen, responderResources, initiatorDepth, false, retryCount,
                rnrRetryCount, qpNum, srq);
    }

    /** {@link #connParam} with {@code flow_control} (end-to-end credits; NVMe/RDMA hosts set it). */
    public static MemorySegment connParam(MemorySegment cp, MemorySegment privateData, int privateDataLen,
            int responderResources, int initiatorDepth, boolean flowControl, int retryCount, int rnrRetryCount,
                    int qpNum,
            boolean srq) {
        cp.fill((byte) 0);
        cp.set(JAVA_BYTE, VerbsLayouts.offset(VerbsLayouts.RDMA_CONN_PARAM, "flow_control"), (byte) (flowControl ? 1
                : 0));
        cp.set(ADDRESS, VerbsLayouts.CP_PRIVATE_DATA, privateData);
        cp.set(JAVA_BYTE, VerbsLayouts.CP_PRIVATE_DATA_LEN, (byte) privateDataLen);
        cp.set(JAVA_BYTE, VerbsLayouts.CP_RESPONDER_RESOURCES, (byte) responderResources);
        cp.set(JAVA_BYTE, VerbsLayouts.CP_INITIATOR_DEPTH, (byte) initiatorDepth);
        cp.set(JAVA_BYTE, VerbsLayouts.CP_RETRY_COUNT, (byte) retryCount);
        cp.set(JAVA_BYTE, VerbsLayouts.CP_RNR_RETRY_COUNT, (byte) rnrRetryCount);
        cp.set(JAVA_BYTE, VerbsLayouts.CP_SRQ, (byte) (srq ? 1 : 0));
        cp.set(JAVA_INT, VerbsLayouts.CP_QP_NUM, qpNum);
        return cp;
    }

    /**
     * The local port an id is bound to ({@code route.addr.src_sin.sin_port}, network order), e.g. after a bind to 0.
     */
    public static int srcPort(MemorySegment id) {
        return Short.toUnsignedInt(id.get(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), VerbsLayouts.CM_ID_SRC_SIN
                + VerbsLayouts.offset(VerbsLayouts.SOCKADDR_IN, "sin_port")));
    }

    /** What an event of a client id means for the resolve → route → connect sequence ({@link #clientStep}). */
    public enum ClientStep {
        /** ADDR_RESOLVED: {@code rdma_resolve_route} was started. */
        ROUTE_PENDING,
        /** ROUTE_RESOLVED: set up (or move) the QP, then {@code rdma_connect}. */
        READY_TO_CONNECT,
        /** ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, REJECTED, CONNECT_ERROR: the connection cannot be made. */
        FAILED,
        /** Any other event: the caller's (CONNECT_RESPONSE, ESTABLISHED, DISCONNECTED, ...). */
        OTHER
    }

    /**
     * The client sequence's next step for {@code eventType} on {@code id}: ADDR_RESOLVED starts
     * {@code rdma_resolve_route} ({@code timeoutMs}). Throws {@link VerbsException} if that call fails.
     */
    public static ClientStep clientStep(MemorySegment id, int eventType, int timeoutMs) {
        return switch (eventType) {
            case VerbsConstants.RDMA_CM_EVENT_ADDR_RESOLVED -> {
                resolveRoute(id, timeoutMs);
                yield ClientStep.ROUTE_PENDING;
            }
            case VerbsConstants.RDMA_CM_EVENT_ROUTE_RESOLVED -> ClientStep.READY_TO_CONNECT;
            case VerbsConstants.RDMA_CM_EVENT_ADDR_ERROR, VerbsConstants.RDMA_CM_EVENT_ROUTE_ERROR,
                    VerbsConstants.RDMA_CM_EVENT_UNREACHABLE, VerbsConstants.RDMA_CM_EVENT_REJECTED,
                    VerbsConstants.RDMA_CM_EVENT_CONNECT_ERROR -> ClientStep.FAILED;
            default -> ClientStep.OTHER;
        };
    }

    /** {@code rdma_disconnect}. */
    public static void disconnect(MemorySegment id) {
        MemorySegment cap = Verbs.capture();
        rc("rdma_disconnect", call(() -> (int) DISCONNECT.invokeExact(cap, id)), cap);
    }

    /**
     * {@code rdma_get_cm_event}: the next event ({@link VerbsLayouts#RDMA_CM_EVENT}), blocking unless the
     * channel's fd is readable. Must be acknowledged with {@link #ackCmEvent}.
     */
    public static MemorySegment getCmEvent(MemorySegment channel, MemorySegment cell) {
        MemorySegment cap = Verbs.capture();
        rc("rdma_get_cm_event", call(() -> (int) GET_CM_EVENT.invokeExact(cap, channel, cell)), cap);
        return cell.get(ADDRESS, 0).reinterpret(VerbsLayouts.RDMA_CM_EVENT.byteSize());
    }

    /**
     * {@code rdma_get_cm_event} without throwing: 0 with the event's pointer in {@code cell}, or the errno
     * ({@code EAGAIN} on a non-blocking channel with nothing waiting). Allocation-free.
     */
    public static int tryGetCmEvent(MemorySegment channel, MemorySegment cell) {
        MemorySegment cap = Verbs.capture();
        int rc;
        try {
            rc = (int) GET_CM_EVENT.invokeExact(cap, channel, cell);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        return rc == 0 ? 0 : NativeLib.errno(cap);
    }

    /** {@code rdma_ack_cm_event}. */
    public static void ackCmEvent(MemorySegment event) {
        MemorySegment cap = Verbs.capture();
        rc("rdma_ack_cm_event", call(() -> (int) ACK_CM_EVENT.invokeExact(cap, event)), cap);
    }

    /** {@code rdma_event_str}. */
    public static String eventName(int event) {
        if (EVENT_STR == null) {
            return "event " + event;
        }
        MemorySegment p = call(() -> (MemorySegment) EVENT_STR.invokeExact(event));
        return p.equals(MemorySegment.NULL) ? "event " + event : p.reinterpret(64).getString(0);
    }

    /** The device context ({@code id->verbs}) an id was bound or resolved to; NULL before. */
    public static MemorySegment verbs(MemorySegment id) {
        MemorySegment v = id.get(ADDRESS, VerbsLayouts.CM_ID_VERBS);
        return v.equals(MemorySegment.NULL) ? v : v.reinterpret(VerbsLayouts.IBV_CONTEXT.byteSize());
    }

    /** Fills {@code sa} ({@link VerbsLayouts#SOCKADDR_IN}) with AF_INET, {@code addr} and {@code port}. */
    public static MemorySegment sockaddrIn(MemorySegment sa, Inet4Address addr, int port) {
        sa.fill((byte) 0);
        sa.set(JAVA_SHORT, 0, (short) 2); // AF_INET, host order
        sa.set(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), VerbsLayouts.offset(VerbsLayouts.SOCKADDR_IN, "sin_port"),
                (short) port);
        MemorySegment.copy(addr.getAddress(), 0, sa, JAVA_BYTE, VerbsLayouts.offset(VerbsLayouts.SOCKADDR_IN,
                "sin_addr"),
                4);
        return sa;
    }

    /**
     * The rdma-core device that owns IPv4 address {@code addr} (the device an {@code rdma_bind_addr}
     * to it selects), or null when no RDMA device serves that address. A throw-away event channel
     * and id; control path (an application choosing its devices before it starts).
     */
    public static String deviceNameOf(Inet4Address addr) {
        MemorySegment channel;
        try {
            channel = createEventChannel();
        } catch (VerbsException e) {
            return null; // no rdma_cm device at all
        }
        MemorySegment id = MemorySegment.NULL;
        try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
            id = createId(channel, VerbsConstants.RDMA_PS_TCP);
            bindAddr(id, sockaddrIn(a.allocate(VerbsLayouts.SOCKADDR_IN), addr, 0));
            MemorySegment ctx = verbs(id);
            return ctx.equals(MemorySegment.NULL) ? null : Verbs.contextDeviceName(ctx);
        } catch (VerbsException e) {
            return null; // no RDMA device has the address (rdma_bind_addr: EADDRNOTAVAIL / ENODEV)
        } finally {
            if (!id.equals(MemorySegment.NULL)) {
                destroyId(id);
            }
            destroyEventChannel(channel);
        }
    }
}
