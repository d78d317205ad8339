package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The machine's RDMA devices as libibverbs reports them ({@code ibv_get_device_list},
 * {@code ibv_query_device}, {@code ibv_query_port}, {@code ibv_query_gid}), with the capabilities DOCA's
 * {@code doca_rdma_cap_*} / {@code doca_devinfo_*} queries derive from them. Never throws: a machine
 * without libibverbs or without devices gives an empty listing with a one-line note.
 * Thread rules: stateless; each call opens and closes the devices.
 */
public final class VerbsDevices {
    private VerbsDevices() {
    }

    /** One port of a device. {@code gids} lists the non-zero GID table entries as addresses. */
    public record Port(int num, int state, int maxMtu, int activeMtu, int gidTblLen, long maxMsgSz, int linkLayer,
            int lid, List<String> gids) {
        /** "ACTIVE" etc. */
        public String stateName() {
            return VerbsConstants.portStateName(state);
        }

        /** "Ethernet" (RoCE) or "InfiniBand". */
        public String linkLayerName() {
            return VerbsConstants.linkLayerName(linkLayer);
        }
    }

    /** One device: identity, {@code ibv_device_attr} limits, its ports; {@code error} when it could not be opened. */
    public record Device(String name, long nodeGuid, String fwVer, int vendorId, int vendorPartId, int maxQp,
            int maxQpWr, int maxSge, int maxSgeRd, int maxCq, int maxCqe, int maxMr, long maxMrSize, int maxPd,
            int maxQpRdAtom, int maxQpInitRdAtom, int atomicCap, int maxSrqWr, int physPortCnt, List<Port> ports,
            String error) {
        /** The first ACTIVE port, or the first port, or null. */
        public Port primaryPort() {
            for (Port p : ports) {
                if (p.state() == VerbsConstants.IBV_PORT_ACTIVE) {
                    return p;
                }
            }
            return ports.isEmpty() ? null : ports.get(0);
        }

        /**
         * Largest message one work request may carry: the smallest max_msg_sz over the ports (2 GiB per IB spec if
         * none).
         */
        public long maxMessageSize() {
            long m = Long.MAX_VALUE;
            for (Port p : ports) {
                if (p.maxMsgSz() > 0) {
                    m = Math.min(m, p.maxMsgSz());
                }
            }
            return m == Long.MAX_VALUE ? 1L << 31 : m;
        }
    }

    /** A listing: the devices, and a note when there are none (why). */
    public record Listing(List<Device> devices, String note) {
    }

    /** Lists every device; never throws. */
    public static Listing list() {
        if (!Verbs.isAvailable()) {
            return new Listing(List.of(), "no RDMA devices: " + Verbs.unavailableReason());
        }
        List<Device> out = new ArrayList<>();
        try (Verbs.DeviceList dl = Verbs.deviceList()) {
            for (MemorySegment dev : dl.devices()) {
                out.add(describe(dev));
            }
        } catch (RuntimeException e) {
            return new Listing(List.copyOf(out), "no RDMA devices: " + e.getMessage());
        }
        return new Listing(List.copyOf(out), out.isEmpty()
                ? "no RDMA devices: libibverbs is installed but found no device (no RDMA NIC, no rxe/siw link, "
                        + "or no provider package such as ibverbs-providers)"
                : null);
    }

    private static Device describe(MemorySegment dev) {
        String name = Verbs.deviceName(dev);
        long guid = Verbs.deviceGuid(dev);
        MemorySegment ctx;
        try {
            ctx = Verbs.openDevice(dev);
        } catch (VerbsException e) {
            return new Device(name, guid, "", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of(),
                    e.getMessage());
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment da = a.allocate(VerbsLayouts.IBV_DEVICE_ATTR);
            Verbs.queryDevice(ctx, da);
            int ports = da.get(JAVA_BYTE, off(VerbsLayouts.IBV_DEVICE_ATTR, "phys_port_cnt")) & 0xff;
            List<Port> portList = new ArrayList<>();
            MemorySegment pa = a.allocate(VerbsLayouts.PORT_ATTR_BUFFER, 8);
            MemorySegment gid = a.allocate(VerbsLayouts.IBV_GID);
            for (int p = 1; p <= ports; p++) {
                Verbs.queryPort(ctx, p, pa);
                int gidLen = pa.get(JAVA_INT, off(VerbsLayouts.IBV_PORT_ATTR, "gid_tbl_len"));
                List<String> gids = new ArrayList<>();
                for (int g = 0; g < Math.min(gidLen, 16); g++) {
                    try {
                        Verbs.queryGid(ctx, p, g, gid);
                    } catch (VerbsException e) {
                        break;
                    }
                    if (gid.get(JAVA_LONG, 0) == 0 && gid.get(JAVA_LONG, 8) == 0) {
                        continue;
                    }
                    gids.add("gid[" + g + "] " + gidString(gid.toArray(JAVA_BYTE)));
                }
                portList.add(new Port(p,
                        pa.get(JAVA_INT, off(VerbsLayouts.IBV_PORT_ATTR, "state")),
                        pa.get(JAVA_INT, off(VerbsLayouts.IBV_PORT_ATTR, "max_mtu")),
                        pa.get(JAVA_INT, off(VerbsLayouts.IBV_PORT_ATTR, "active_mtu")),
                        gidLen,
                        Integer.toUnsignedLong(pa.get(JAVA_INT, off(VerbsLayouts.IBV_PORT_ATTR, "max_msg_sz"))),
                        pa.get(JAVA_BYTE, off(VerbsLayouts.IBV_PORT_ATTR, "link_layer")) & 0xff,
                        pa.get(JAVA_SHORT, off(VerbsLayouts.IBV_PORT_ATTR, "lid")) & 0xffff,
                        List.copyOf(gids)));
            }
            return new Device(name, guid, da.getString(0),
                    i(da, "vendor_id"), i(da, "vendor_part_id"), i(da, "max_qp"), i(da, "max_qp_wr"), i(da, "max_sge"),
                    i(da, "max_sge_rd"), i(da, "max_cq"), i(da, "max_cqe"), i(da, "max_mr"),
                    da.get(JAVA_LONG, off(VerbsLayouts.IBV_DEVICE_ATTR, "max_mr_size")), i(da, "max_pd"),
                    i(da, "max_qp_rd_atom"), i(da, "max_qp_init_rd_atom"), i(da, "atomic_cap"), i(da, "max_srq_wr"),
                    ports, List.copyOf(portList), null);
        } catch (VerbsException e) {
            return new Device(name, guid, "", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of(),
                    e.getMessage());
        } finally {
            try {
                Verbs.closeDevice(ctx);
            } catch (VerbsException ignored) {
                // listing only: a close failure changes nothing the caller sees
            }
        }
    }

    private static int i(MemorySegment da, String field) {
        return da.get(JAVA_INT, off(VerbsLayouts.IBV_DEVICE_ATTR, field));
    }

    private static long off(java.lang.foreign.GroupLayout g, String f) {
        return VerbsLayouts.offset(g, f);
    }

    /** A GID as an IPv6 address ({@code ::ffff:a.b.c.d} for an IPv4-mapped RoCEv2 GID). */
    public static String gidString(byte[] raw) {
        boolean v4mapped = true;
        for (int k = 0; k < 10; k++) {
            v4mapped &= raw[k] == 0;
        }
        v4mapped &= raw[10] == (byte) 0xff && raw[11] == (byte) 0xff;
        if (v4mapped) {
            return "::ffff:" + (raw[12] & 0xff) + "." + (raw[13] & 0xff) + "." + (raw[14] & 0xff) + "."
                    + (raw[15] & 0xff);
        }
        try {
            return InetAddress.getByAddress(raw).getHostAddress();
        } catch (UnknownHostException e) {
            return "?";
        }
    }
}
