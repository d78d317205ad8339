package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One opened RDMA device as jdoca uses it: the {@code ibv_context}, one protection domain shared by every
 * memory registration and queue pair made on the device in this process (an lkey/rkey is only valid with
 * QPs of its PD), its data-path {@link ContextOps}, and what the transport needs to address a peer: the
 * port, its active MTU, LID and link layer, and the default GID index (a RoCE v2 IPv4-mapped GID when there is
 * one, {@code -Djdoca.verbs.gidIndex=N} to choose the default); a context may use another index ({@link #gid(int)},
 * DOCA's {@code doca_rdma_set_gid_index}). {@link #verbs()} and {@link #protectionDomain()} give the same handles
 * as objects of the verbs layer.
 *
 * <p>Thread rules: immutable after {@link #open}; the handles are used by any thread under libibverbs'
 * rules. Opened once per device per process (Core keeps it for the process lifetime).
 */
public final class VerbsDeviceContext implements AutoCloseable {
    private final String name;
    private final MemorySegment context;
    private final MemorySegment pd;
    private final ContextOps ops;
    private final VerbsContext verbs;
    private final ProtectionDomain pdObject;
    private final int port;
    private final int activeMtu;
    private final int lid;
    private final int linkLayer;
    private final int gidIndex;
    private final byte[] gid;
    private final int maxQpWr;
    private final int maxSge;
    private final int maxCqe;
    private final int maxQpRdAtom;
    private final int maxQpInitRdAtom;
    private final int atomicCap;

    private VerbsDeviceContext(String name, MemorySegment context, MemorySegment pd, int port, int activeMtu, int lid,
            int linkLayer, int gidIndex, byte[] gid, int maxQpWr, int maxSge, int maxCqe, int maxQpRdAtom,
            int maxQpInitRdAtom, int atomicCap) {
        this.name = name;
        this.context = context;
        this.pd = pd;
        this.verbs = VerbsContext.of(context);
        this.ops = verbs.ops();
        this.pdObject = ProtectionDomain.wrap(verbs, pd);
        this.port = port;
        this.activeMtu = activeMtu;
        this.lid = lid;
        this.linkLayer = linkLayer;
        this.gidIndex = gidIndex;
        this.gid = gid;
        this.maxQpWr = maxQpWr;
        this.maxSge = maxSge;
        this.maxCqe = maxCqe;
        this.maxQpRdAtom = maxQpRdAtom;
        this.maxQpInitRdAtom = maxQpInitRdAtom;
        this.atomicCap = atomicCap;
    }

    /** The names {@code ibv_get_device_list} reports (empty without libibverbs or devices); never throws. */
    public static List<String> deviceNames() {
        if (!Verbs.isAvailable()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        try (Verbs.DeviceList dl = Verbs.deviceList()) {
            for (MemorySegment d : dl.devices()) {
                out.add(Verbs.deviceName(d));
            }
        } catch (RuntimeException e) {
            return List.of();
        }
        return List.copyOf(out);
    }

    /** Opens device {@code name}: context, PD, port and GID choice. Throws {@link VerbsException}. */
    public static VerbsDeviceContext open(String name) {
        Verbs.require();
        MemorySegment ctx = null;
        try (Verbs.DeviceList dl = Verbs.deviceList()) {
            for (MemorySegment d : dl.devices()) {
                if (Verbs.deviceName(d).equals(name)) {
                    ctx = Verbs.openDevice(d);
                    break;
                }
            }
        }
        if (ctx == null) {
            throw new VerbsException("ibv_open_device", "no RDMA device named " + name);
        }
        MemorySegment pd = null;
        try (Arena a = Arena.ofConfined()) {
            pd = Verbs.allocPd(ctx);
            MemorySegment da = a.allocate(VerbsLayouts.IBV_DEVICE_ATTR);
            Verbs.queryDevice(ctx, da);
            int ports = da.get(JAVA_BYTE, VerbsLayouts.offset(VerbsLayouts.IBV_DEVICE_ATTR, "phys_port_cnt")) & 0xff;
            MemorySegment pa = a.allocate(VerbsLayouts.PORT_ATTR_BUFFER, 8);
            int port = 1;
            for (int p = 1; p <= ports; p++) {
                Verbs.queryPort(ctx, p, pa);
                if (pa.get(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_PORT_ATTR,
                        "state")) == VerbsConstants.IBV_PORT_ACTIVE) {
                    port = p;
                    break;
                }
            }
            Verbs.queryPort(ctx, port, pa);
            int mtu = pa.get(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_PORT_ATTR, "active_mtu"));
            int lid = pa.get(JAVA_SHORT, VerbsLayouts.offset(VerbsLayouts.IBV_PORT_ATTR, "lid")) & 0xffff;
            int ll = pa.get(JAVA_BYTE, VerbsLayouts.offset(VerbsLayouts.IBV_PORT_ATTR, "link_layer")) & 0xff;
            int gidLen = pa.get(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_PORT_ATTR, "gid_tbl_len"));
            int gidIndex = chooseGid(ctx, name, port, gidLen, a);
            MemorySegment g = a.allocate(VerbsLayouts.IBV_GID);
            if (gidIndex >= 0) {
                Verbs.queryGid(ctx, port, gidIndex, g);
            }
            return new VerbsDeviceContext(name, ctx, pd, port, mtu, lid, ll, Math.max(gidIndex, 0),
                    g.toArray(JAVA_BYTE),
                    i(da, "max_qp_wr"), i(da, "max_sge"), i(da, "max_cqe"), i(da, "max_qp_rd_atom"),
                    i(da, "max_qp_init_rd_atom"), i(da, "atomic_cap"));
        } catch (RuntimeException e) {
            if (pd != null) {
                try {
                    Verbs.deallocPd(pd);
                } catch (RuntimeException ignored) {
                    // already failing
                }
            }
            Verbs.closeDevice(ctx);
            throw e;
        }
    }

    /**
     * The GID index to address peers with: {@code -Djdoca.verbs.gidIndex}, else the first RoCE v2 entry with an
     * IPv4-mapped address (what rdma_cm picks for an IPv4 peer), else the first RoCE v2 entry, else the first
     * non-zero entry; -1 if the table is empty. RoCE v1/v2 types come from sysfs (absent on IB: any entry).
     */
    private static int chooseGid(MemorySegment ctx, String dev, int port, int len, Arena a) {
        String forced = VerbsProperties.GID_INDEX.asString();
        if (!forced.isBlank()) {
            try {
                return Integer.parseInt(forced.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("-D" + VerbsProperties.GID_INDEX.name() + "=" + forced
                        + " is not a GID index");
            }
        }
        MemorySegment g = a.allocate(VerbsLayouts.IBV_GID);
        int v2 = -1;
        int any = -1;
        for (int i = 0; i < Math.min(len, 64); i++) {
            try {
                Verbs.queryGid(ctx, port, i, g);
            } catch (VerbsException e) {
                continue;
            }
            if (g.get(JAVA_LONG, 0) == 0 && g.get(JAVA_LONG, 8) == 0) {
                continue;
            }
            String type = gidType(dev, port, i);
            boolean isV2 = type == null || type.contains("v2");
            boolean v4 = g.get(JAVA_LONG, 0) == 0 && g.get(JAVA_INT, 8) == 0xffff0000;
            if (isV2 && v4) {
                return i;
            }
            if (isV2 && v2 < 0) {
                v2 = i;
            }
            if (any < 0) {
                any = i;
            }
        }
        return v2 >= 0 ? v2 : any;
    }

    private static String gidType(String dev, int port, int index) {
        Path p = Path.of("/sys/class/infiniband", dev, "ports", Integer.toString(port), "gid_attrs", "types",
                Integer.toString(index));
        try {
            return Files.readString(p).trim();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static int i(MemorySegment da, String field) {
        return da.get(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_DEVICE_ATTR, field));
    }

    public String name() {
        return name;
    }

    /** The {@code struct ibv_context *}. */
    public MemorySegment context() {
        return context;
    }

    /** The process-wide protection domain of this device. */
    public MemorySegment pd() {
        return pd;
    }

    public ContextOps ops() {
        return ops;
    }

    /** The device context as a verbs-layer object (CQs, channels). */
    public VerbsContext verbs() {
        return verbs;
    }

    /** The process-wide protection domain as a verbs-layer object (not closed by its {@code close()}). */
    public ProtectionDomain protectionDomain() {
        return pdObject;
    }

    /**
     * The 16 bytes of GID table entry {@code index} of the port ({@code ibv_query_gid}); throws
     * {@link VerbsException} for an index the table does not have or an all-zero (unused) entry.
     */
    public byte[] gid(int index) {
        if (index == gidIndex) {
            return gid.clone();
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment g = a.allocate(VerbsLayouts.IBV_GID);
            Verbs.queryGid(context, port, index, g);
            if (g.get(JAVA_LONG, 0) == 0 && g.get(JAVA_LONG, 8) == 0) {
                throw new VerbsException("ibv_query_gid", "GID index " + index + " of " + name + " port " + port
                        + " is unused");
            }
            return g.toArray(JAVA_BYTE);
        }
    }

    public int port() {
        return port;
    }

    /** {@code enum ibv_mtu} of the port. */
    public int activeMtu() {
        return activeMtu;
    }

    public int lid() {
        return lid;
    }

    /** {@code IBV_LINK_LAYER_*}. */
    public int linkLayer() {
        return linkLayer;
    }

    public int gidIndex() {
        return gidIndex;
    }

    /** The 16 bytes of the chosen GID (a copy). */
    public byte[] gid() {
        return gid.clone();
    }

    public int maxQpWr() {
        return maxQpWr;
    }

    public int maxSge() {
        return maxSge;
    }

    public int maxCqe() {
        return maxCqe;
    }

    public int maxQpRdAtom() {
        return maxQpRdAtom;
    }

    public int maxQpInitRdAtom() {
        return maxQpInitRdAtom;
    }

    /** {@code enum ibv_atomic_cap}. */
    public int atomicCap() {
        return atomicCap;
    }

    @Override
    public void close() {
        Verbs.deallocPd(pd);
        Verbs.closeDevice(context);
    }

    @Override
    public String toString() {
        return name + " port " + port + " gid[" + gidIndex + "] " + VerbsDevices.gidString(gid) + " mtu "
                + VerbsConstants.mtuBytes(activeMtu);
    }
}
