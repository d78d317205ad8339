package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * libibverbs ({@code libibverbs.so.1}, rdma-core) through {@code java.lang.foreign}: the control-path
 * verbs jdoca uses, as thin static wrappers over the C functions of the same name. Pointers are
 * {@link MemorySegment}s (zero-length as returned by C; {@link VerbsLayouts} gives the struct layouts);
 * failures throw {@link VerbsException} with errno. The data-path verbs are static inline in
 * {@code verbs.h}; {@link ContextOps} calls them through the provider's function pointers.
 *
 * <p>Loading fails soft: on a machine without libibverbs (or with one lacking a symbol) nothing throws
 * at class initialization; {@link #isAvailable()} is false and {@link #unavailableReason()} says why,
 * and every wrapper then throws {@link VerbsException}.
 *
 * <p>Thread rules: the functions are as thread-safe as libibverbs (objects may be used from any thread;
 * one thread per CQ poller is the caller's business); errno is captured per thread.
 */
// FFM: this class is a native binding; its downcall handles and reinterpreted segments are the point
@SuppressWarnings("restricted")
public final class Verbs {
    private Verbs() {
    }

    private static final NativeLib LIB = NativeLib.open("libibverbs.so.1", "libibverbs1 ibverbs-providers");

    private static final MethodHandle GET_DEVICE_LIST = LIB.fn("ibv_get_device_list", true, ADDRESS, ADDRESS);
    private static final MethodHandle FREE_DEVICE_LIST = LIB.fn("ibv_free_device_list", false, null, ADDRESS);
    private static final MethodHandle GET_DEVICE_NAME = LIB.fn("ibv_get_device_name", false, ADDRESS, ADDRESS);
    private static final MethodHandle GET_DEVICE_GUID = LIB.fn("ibv_get_device_guid", false, JAVA_LONG, ADDRESS);
    private static final MethodHandle OPEN_DEVICE = LIB.fn("ibv_open_device", true, ADDRESS, ADDRESS);
    private static final MethodHandle CLOSE_DEVICE = LIB.fn("ibv_close_device", true, JAVA_INT, ADDRESS);
    private static final MethodHandle QUERY_DEVICE = LIB.fn("ibv_query_device", true, JAVA_INT, ADDRESS, ADDRESS);
    // The exported compat entry point (the header's ibv_query_port is a macro over ibv_query_port_ex).
    private static final MethodHandle QUERY_PORT = LIB.fn("ibv_query_port", true, JAVA_INT, ADDRESS, JAVA_BYTE,
            ADDRESS);
    private static final MethodHandle QUERY_GID = LIB.fn("ibv_query_gid", true, JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT,
            ADDRESS);
    private static final MethodHandle ALLOC_PD = LIB.fn("ibv_alloc_pd", true, ADDRESS, ADDRESS);
    private static final MethodHandle DEALLOC_PD = LIB.fn("ibv_dealloc_pd", true, JAVA_INT, ADDRESS);
    private static final MethodHandle REG_MR = LIB.fn("ibv_reg_mr", true, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG,
            JAVA_INT);
    private static final MethodHandle DEREG_MR = LIB.fn("ibv_dereg_mr", true, JAVA_INT, ADDRESS);
    // Exported since rdma-core 22 (IBVERBS_1.7); the header's ibv_reg_mr_iova macro only picks it or _iova2.
    private static final MethodHandle REG_MR_IOVA = LIB.fn("ibv_reg_mr_iova", true, ADDRESS, ADDRESS, ADDRESS,
            JAVA_LONG,
            JAVA_LONG, JAVA_INT);
    private static final MethodHandle CREATE_COMP_CHANNEL = LIB.fn("ibv_create_comp_channel", true, ADDRESS, ADDRESS);
    private static final MethodHandle DESTROY_COMP_CHANNEL = LIB.fn("ibv_destroy_comp_channel", true, JAVA_INT,
            ADDRESS);
    private static final MethodHandle CREATE_CQ = LIB.fn("ibv_create_cq", true, ADDRESS, ADDRESS, JAVA_INT, ADDRESS,
            ADDRESS, JAVA_INT);
    private static final MethodHandle DESTROY_CQ = LIB.fn("ibv_destroy_cq", true, JAVA_INT, ADDRESS);
    private static final MethodHandle GET_CQ_EVENT = LIB.fn("ibv_get_cq_event", true, JAVA_INT, ADDRESS, ADDRESS,
            ADDRESS);
    private static final MethodHandle ACK_CQ_EVENTS = LIB.fn("ibv_ack_cq_events", false, null, ADDRESS, JAVA_INT);
    private static final MethodHandle CREATE_QP = LIB.fn("ibv_create_qp", true, ADDRESS, ADDRESS, ADDRESS);
    private static final MethodHandle MODIFY_QP = LIB.fn("ibv_modify_qp", true, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
    private static final MethodHandle DESTROY_QP = LIB.fn("ibv_destroy_qp", true, JAVA_INT, ADDRESS);
    private static final MethodHandle CREATE_SRQ = LIB.fn("ibv_create_srq", true, ADDRESS, ADDRESS, ADDRESS);
    private static final MethodHandle DESTROY_SRQ = LIB.fn("ibv_destroy_srq", true, JAVA_INT, ADDRESS);
    private static final MethodHandle WC_STATUS_STR = LIB.fn("ibv_wc_status_str", false, ADDRESS, JAVA_INT);

    private static final String UNAVAILABLE = LIB.reason();

    private static final ThreadLocal<MemorySegment> CAPTURE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(NativeLib.CAPTURE));

    /** True when libibverbs was found with every symbol jdoca binds (devices may still be absent). */
    public static boolean isAvailable() {
        return UNAVAILABLE == null;
    }

    /** Why libibverbs is unusable, or {@code null} when {@link #isAvailable()}. */
    public static String unavailableReason() {
        return UNAVAILABLE;
    }

    static void require() {
        if (UNAVAILABLE != null) {
            throw new VerbsException("libibverbs", UNAVAILABLE);
        }
    }

    /** This thread's errno capture segment (control path). */
    static MemorySegment capture() {
        return CAPTURE.get();
    }

    /** A native call that may throw anything (invokeExact declares Throwable). */
    @FunctionalInterface
    interface Call<T> {
        T run() throws Throwable;
    }

    static <T> T call(Call<T> c) {
        try {
            return c.run();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static MemorySegment ptr(String fn, MemorySegment p, MemorySegment cap) {
        if (p.equals(MemorySegment.NULL)) {
            throw new VerbsException(fn, NativeLib.errno(cap));
        }
        return p;
    }

    /** libibverbs returns errno itself from most int functions; some return -1 and set errno. */
    static void rc(String fn, int rc, MemorySegment cap) {
        if (rc != 0) {
            throw new VerbsException(fn, rc > 0 ? rc : NativeLib.errno(cap));
        }
    }

    // ---- devices -------------------------------------------------------------------------------

    /**
     * The devices of {@code ibv_get_device_list}; closing it calls {@code ibv_free_device_list}
     * (device pointers stay valid for contexts already opened from them).
     */
    public static final class DeviceList implements AutoCloseable {
        private final MemorySegment list;
        private final MemorySegment[] devices;

        private DeviceList(MemorySegment list, MemorySegment[] devices) {
            this.list = list;
            this.devices = devices;
        }

        /** The {@code struct ibv_device *} pointers (empty when the machine has no RDMA device). */
        public MemorySegment[] devices() {
            return devices.clone();
        }

        @Override
        public void close() {
            if (!list.equals(MemorySegment.NULL)) {
                call(() -> {
                    FREE_DEVICE_LIST.invokeExact(list);
                    return null;
                });
            }
        }
    }

    /** {@code ibv_get_device_list}. No kernel RDMA support (ENOSYS) is an empty list, not an error. */
    public static DeviceList deviceList() {
        require();
        MemorySegment cap = capture();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment num = a.allocate(JAVA_INT);
            MemorySegment list = call(() -> (MemorySegment) GET_DEVICE_LIST.invokeExact(cap, num));
            if (list.equals(MemorySegment.NULL)) {
                int e = NativeLib.errno(cap);
                if (e == 38 /* ENOSYS */ || e == 2 /* ENOENT */) {
                    return new DeviceList(MemorySegment.NULL, new MemorySegment[0]);
                }
                throw new VerbsException("ibv_get_device_list", e);
            }
            int n = num.get(JAVA_INT, 0);
            list = list.reinterpret((n + 1) * ADDRESS.byteSize());
            MemorySegment[] devs = new MemorySegment[n];
            for (int i = 0; i < n; i++) {
                devs[i] = list.getAtIndex(ADDRESS, i);
            }
            return new DeviceList(list, devs);
        }
    }

    /** {@code ibv_get_device_name}. */
    public static String deviceName(MemorySegment dev) {
        require();
        MemorySegment p = call(() -> (MemorySegment) GET_DEVICE_NAME.invokeExact(dev));
        return p.equals(MemorySegment.NULL) ? "" : p.reinterpret(256).getString(0);
    }

    /**
     * The name of the device a {@code struct ibv_context *} was opened on ({@code ibv_get_device_name(ctx->device)}).
     */
    public static String contextDeviceName(MemorySegment ctx) {
        MemorySegment c = ctx.reinterpret(VerbsLayouts.IBV_CONTEXT.byteSize());
        return deviceName(c.get(ADDRESS, VerbsLayouts.offset(VerbsLayouts.IBV_CONTEXT, "device")));
    }

    /** {@code ibv_get_device_guid}, as the host-order value of the big-endian GUID. */
    public static long deviceGuid(MemorySegment dev) {
        require();
        return Long.reverseBytes(call(() -> (long) GET_DEVICE_GUID.invokeExact(dev)));
    }

    /** {@code ibv_open_device}: the {@code struct ibv_context *}, sized to {@link VerbsLayouts#IBV_CONTEXT}. */
    public static MemorySegment openDevice(MemorySegment dev) {
        require();
        MemorySegment cap = capture();
        MemorySegment ctx = call(() -> (MemorySegment) OPEN_DEVICE.invokeExact(cap, dev));
        return ptr("ibv_open_device", ctx, cap).reinterpret(VerbsLayouts.IBV_CONTEXT.byteSize());
    }

    /** {@code ibv_close_device}. */
    public static void closeDevice(MemorySegment ctx) {
        MemorySegment cap = capture();
        rc("ibv_close_device", call(() -> (int) CLOSE_DEVICE.invokeExact(cap, ctx)), cap);
    }

    /** {@code ibv_query_device} into {@code attr} (at least {@link VerbsLayouts#IBV_DEVICE_ATTR} bytes). */
    public static void queryDevice(MemorySegment ctx, MemorySegment attr) {
        require();
        MemorySegment cap = capture();
        rc("ibv_query_device", call(() -> (int) QUERY_DEVICE.invokeExact(cap, ctx, attr)), cap);
    }

    /** {@code ibv_query_port} into {@code attr} ({@link VerbsLayouts#PORT_ATTR_BUFFER} bytes; zeroed here). */
    public static void queryPort(MemorySegment ctx, int port, MemorySegment attr) {
        require();
        attr.fill((byte) 0);
        MemorySegment cap = capture();
        rc("ibv_query_port", call(() -> (int) QUERY_PORT.invokeExact(cap, ctx, (byte) port, attr)), cap);
    }

    /** {@code ibv_query_gid} into the 16 bytes of {@code gid}. */
    public static void queryGid(MemorySegment ctx, int port, int index, MemorySegment gid) {
        require();
        MemorySegment cap = capture();
        rc("ibv_query_gid", call(() -> (int) QUERY_GID.invokeExact(cap, ctx, (byte) port, index, gid)), cap);
    }

    // ---- protection domain, memory regions -----------------------------------------------------

    /** {@code ibv_alloc_pd}. */
    public static MemorySegment allocPd(MemorySegment ctx) {
        require();
        MemorySegment cap = capture();
        return ptr("ibv_alloc_pd", call(() -> (MemorySegment) ALLOC_PD.invokeExact(cap, ctx)), cap);
    }

    /** {@code ibv_dealloc_pd}. */
    public static void deallocPd(MemorySegment pd) {
        MemorySegment cap = capture();
        rc("ibv_dealloc_pd", call(() -> (int) DEALLOC_PD.invokeExact(cap, pd)), cap);
    }

    /**
     * {@code ibv_reg_mr} over a native segment with {@code IBV_ACCESS_*} flags: the {@code struct ibv_mr *},
     * sized to {@link VerbsLayouts#IBV_MR} (lkey/rkey at {@link VerbsLayouts#MR_LKEY} / {@link VerbsLayouts#MR_RKEY}).
     * Heap segments are refused: the device would DMA into memory the GC moves.
     */
    public static MemorySegment regMr(MemorySegment pd, MemorySegment buf, int access) {
        require();
        if (!buf.isNative()) {
            throw new VerbsException("ibv_reg_mr", "only native (off-heap) memory can be registered");
        }
        MemorySegment cap = capture();
        long len = buf.byteSize();
        MemorySegment mr = call(() -> (MemorySegment) REG_MR.invokeExact(cap, pd, buf, len, access));
        return ptr("ibv_reg_mr", mr, cap).reinterpret(VerbsLayouts.IBV_MR.byteSize());
    }

    /**
     * {@code ibv_reg_mr_iova}: registers {@code buf} so that peers and local SGEs address it as
     * {@code [iova, iova + size)} instead of its virtual address in this process. A process that maps
     * another process's memory (the zero-copy relay mapping the initiator's shared memory) registers it
     * under the owner's addresses, which are the ones on the wire. Native segments only.
     */
    public static MemorySegment regMrIova(MemorySegment pd, MemorySegment buf, long iova, int access) {
        require();
        if (!buf.isNative()) {
            throw new VerbsException("ibv_reg_mr_iova", "only native (off-heap) memory can be registered");
        }
        MemorySegment cap = capture();
        long len = buf.byteSize();
        MemorySegment mr = call(() -> (MemorySegment) REG_MR_IOVA.invokeExact(cap, pd, buf, len, iova, access));
        return ptr("ibv_reg_mr_iova", mr, cap).reinterpret(VerbsLayouts.IBV_MR.byteSize());
    }

    /** {@code ibv_dereg_mr}. */
    public static void deregMr(MemorySegment mr) {
        MemorySegment cap = capture();
        rc("ibv_dereg_mr", call(() -> (int) DEREG_MR.invokeExact(cap, mr)), cap);
    }

    /** The lkey of a registered region. */
    public static int lkey(MemorySegment mr) {
        return mr.get(JAVA_INT, VerbsLayouts.MR_LKEY);
    }

    /** The rkey of a registered region. */
    public static int rkey(MemorySegment mr) {
        return mr.get(JAVA_INT, VerbsLayouts.MR_RKEY);
    }

    // ---- completion channel and queue ----------------------------------------------------------

    /** {@code ibv_create_comp_channel}, sized to {@link VerbsLayouts#IBV_COMP_CHANNEL}. */
    public static MemorySegment createCompChannel(MemorySegment ctx) {
        require();
        MemorySegment cap = capture();
        MemorySegment ch = call(() -> (MemorySegment) CREATE_COMP_CHANNEL.invokeExact(cap, ctx));
        return ptr("ibv_create_comp_channel", ch, cap).reinterpret(VerbsLayouts.IBV_COMP_CHANNEL.byteSize());
    }

    /** The fd of a completion channel: readable when a CQ armed with req_notify_cq has an event. */
    public static int compChannelFd(MemorySegment channel) {
        return channel.get(JAVA_INT, VerbsLayouts.COMP_CHANNEL_FD);
    }

    /** {@code ibv_destroy_comp_channel}. */
    public static void destroyCompChannel(MemorySegment channel) {
        MemorySegment cap = capture();
        rc("ibv_destroy_comp_channel", call(() -> (int) DESTROY_COMP_CHANNEL.invokeExact(cap, channel)), cap);
    }

    /** {@code ibv_create_cq} with {@code cqe} entries, an optional channel (NULL for none) and vector. */
    public static MemorySegment createCq(MemorySegment ctx, int cqe, MemorySegment channel, int vector) {
        require();
        MemorySegment cap = capture();
        MemorySegment cq = call(() -> (MemorySegment) CREATE_CQ.invokeExact(cap, ctx, cqe, MemorySegment.NULL,
                channel, vector));
        return ptr("ibv_create_cq", cq, cap).reinterpret(VerbsLayouts.IBV_CQ.byteSize());
    }

    /** {@code ibv_destroy_cq}. */
    public static void destroyCq(MemorySegment cq) {
        MemorySegment cap = capture();
        rc("ibv_destroy_cq", call(() -> (int) DESTROY_CQ.invokeExact(cap, cq)), cap);
    }

    /**
     * {@code ibv_get_cq_event}: blocks until the channel has an event (poll its fd first to avoid
     * blocking); {@code cqOut} and {@code ctxOut} are pointer-sized out cells. Returns 0 or errno.
     */
    public static int getCqEvent(MemorySegment channel, MemorySegment cqOut, MemorySegment ctxOut) {
        MemorySegment cap = capture();
        int rc;
        try { // no lambda: notification-mode engines call this per wake-up and must not allocate
            rc = (int) GET_CQ_EVENT.invokeExact(cap, channel, cqOut, ctxOut);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        return rc == 0 ? 0 : NativeLib.errno(cap);
    }

    /** {@code ibv_ack_cq_events}: every event {@link #getCqEvent} returned must be acknowledged. */
    public static void ackCqEvents(MemorySegment cq, int n) {
        try {
            ACK_CQ_EVENTS.invokeExact(cq, n);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    // ---- queue pairs ---------------------------------------------------------------------------

    /** {@code ibv_create_qp} from an {@link VerbsLayouts#IBV_QP_INIT_ATTR}; sized to {@link VerbsLayouts#IBV_QP}. */
    public static MemorySegment createQp(MemorySegment pd, MemorySegment initAttr) {
        require();
        MemorySegment cap = capture();
        MemorySegment qp = call(() -> (MemorySegment) CREATE_QP.invokeExact(cap, pd, initAttr));
        return ptr("ibv_create_qp", qp, cap).reinterpret(VerbsLayouts.IBV_QP.byteSize());
    }

    /** {@code ibv_modify_qp} with an {@link VerbsLayouts#IBV_QP_ATTR} and an {@code IBV_QP_*} mask. */
    public static void modifyQp(MemorySegment qp, MemorySegment attr, int mask) {
        require();
        MemorySegment cap = capture();
        rc("ibv_modify_qp", call(() -> (int) MODIFY_QP.invokeExact(cap, qp, attr, mask)), cap);
    }

    /** {@code ibv_destroy_qp}. */
    public static void destroyQp(MemorySegment qp) {
        MemorySegment cap = capture();
        rc("ibv_destroy_qp", call(() -> (int) DESTROY_QP.invokeExact(cap, qp)), cap);
    }

    /** The QP number of a {@code struct ibv_qp *}. */
    public static int qpNum(MemorySegment qp) {
        return qp.reinterpret(VerbsLayouts.IBV_QP.byteSize()).get(JAVA_INT, VerbsLayouts.QP_QP_NUM);
    }

    /** {@code ibv_wc_status_str}: libibverbs' name for a work-completion status. */
    public static String wcStatusString(int status) {
        if (WC_STATUS_STR == null) {
            return "status " + status;
        }
        MemorySegment p = call(() -> (MemorySegment) WC_STATUS_STR.invokeExact(status));
        return p.equals(MemorySegment.NULL) ? "status " + status : p.reinterpret(256).getString(0);
    }

    // ---- shared receive queues (the verbs transport: one per RDMA context, receives of every connection) ----

    /** {@code ibv_create_srq} with room for {@code maxWr} receives of {@code maxSge} elements. */
    public static MemorySegment createSrq(MemorySegment pd, int maxWr, int maxSge) {
        require();
        MemorySegment cap = capture();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment init = a.allocate(VerbsLayouts.IBV_SRQ_INIT_ATTR);
            init.set(JAVA_INT, VerbsLayouts.SRQ_INIT_MAX_WR, maxWr);
            init.set(JAVA_INT, VerbsLayouts.SRQ_INIT_MAX_SGE, maxSge);
            return ptr("ibv_create_srq", call(() -> (MemorySegment) CREATE_SRQ.invokeExact(cap, pd, init)), cap);
        }
    }

    /** {@code ibv_destroy_srq}. */
    public static void destroySrq(MemorySegment srq) {
        MemorySegment cap = capture();
        rc("ibv_destroy_srq", call(() -> (int) DESTROY_SRQ.invokeExact(cap, srq)), cap);
    }
}
