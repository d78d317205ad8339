package io.jdoca.cli;

import io.jdoca.argp.HelpVersionFlags;
import io.jdoca.core.dev.Capability;
import io.jdoca.core.dev.DevInfo;
import io.jdoca.core.dev.DevInfoRep;
import io.jdoca.core.dev.Devices;
import io.jdoca.verbs.VerbsConstants;
import io.jdoca.verbs.VerbsDevices;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./jdoca devices}: the software devices, their representors and every library's capabilities,
 * then the machine's RDMA devices (rdma-core: {@code ibv_get_device_list}) with the capabilities DOCA's
 * {@code cap_*} queries report. Runs on the caller's thread; no state.
 */
@Command(name = "devices",
        description = "Lists the software devices (name, ibdev, interface, PCI address), their representors and each "
                + "library's capabilities, then the RDMA devices rdma-core finds (e.g. mlx5_0, rxe0) with theirs.")
public final class DevicesCommand implements Callable<Integer> {
    /** -h/--help and -v/--version (the one version line of every app). */
    @Mixin
    HelpVersionFlags helpVersion;

    @Option(names = {"-d", "--device"},
            description = "only this device (name, ibdev name, interface or PCI address; or an RDMA device name such "
                    + "as rxe0)")
    String device;

    @Option(names = "--no-caps", description = "do not list capabilities")
    boolean noCaps;

    @Override
    public Integer call() {
        VerbsDevices.Listing rdma = VerbsDevices.list();
        List<VerbsDevices.Device> rdmaDevs = new ArrayList<>(rdma.devices());
        List<DevInfo> devs;
        if (device == null) {
            // RDMA devices are in Devices.list() too (so -d reaches them); they are printed below with their ports.
            devs = Devices.list().stream().filter(d -> !d.isVerbs()).toList();
        } else {
            rdmaDevs.removeIf(d -> !d.name().equals(device));
            devs = rdmaDevs.isEmpty() ? List.of(Devices.find(device)) : List.of();
        }
        if (!devs.isEmpty()) {
            printSoftware(devs);
        }
        if (device == null || !rdmaDevs.isEmpty()) {
            if (!devs.isEmpty()) {
                System.out.println();
            }
            printRdma(rdma, rdmaDevs);
        }
        return 0;
    }

    private void printSoftware(List<DevInfo> devs) {
        System.out.printf("%-6s %-8s %-6s %-8s%n", "name", "ibdev", "iface", "pci");
        for (DevInfo d : devs) {
            System.out.printf("%-6s %-8s %-6s %-8s%n", d.name(), d.ibdevName(), d.ifaceName(), d.pciAddress());
        }
        for (DevInfo d : devs) {
            System.out.println();
            System.out.println(d.name() + " representors (host functions as the DPU sees them):");
            for (DevInfoRep r : d.representors(DevInfo.RepFilter.ALL)) {
                System.out.printf("  %-8s %-8s %s%n", r.name(), r.pciAddress(), r.funcType());
            }
            if (!noCaps) {
                System.out.println(d.name() + " capabilities:");
                String lib = "";
                for (Capability c : Devices.capabilities(d)) {
                    if (!c.library().equals(lib)) {
                        lib = c.library();
                        System.out.println("  [" + lib + "]");
                    }
                    System.out.printf("    %-40s %s%n", c.name(), c.value());
                }
            }
        }
    }

    private void printRdma(VerbsDevices.Listing all, List<VerbsDevices.Device> devs) {
        System.out.println("RDMA devices (rdma-core):");
        if (devs.isEmpty()) {
            System.out.println("  " + all.note());
            return;
        }
        System.out.printf("  %-10s %-19s %-7s %-10s %-6s %s%n", "name", "node_guid", "port", "state", "mtu",
                "link_layer");
        for (VerbsDevices.Device d : devs) {
            if (d.error() != null) {
                System.out.printf("  %-10s (cannot open: %s)%n", d.name(), d.error());
                continue;
            }
            for (VerbsDevices.Port p : d.ports()) {
                System.out.printf("  %-10s %-19s %-7d %-10s %-6d %s%n", d.name(), guid(d.nodeGuid()), p.num(),
                        p.stateName(), VerbsConstants.mtuBytes(p.activeMtu()), p.linkLayerName());
            }
        }
        if (noCaps) {
            return;
        }
        for (VerbsDevices.Device d : devs) {
            if (d.error() != null) {
                continue;
            }
            System.out.println();
            System.out.println(d.name() + " capabilities (ibv_query_device / ibv_query_port):");
            if (!d.fwVer().isEmpty()) {
                cap("fw_ver", d.fwVer());
            }
            cap("vendor_id / vendor_part_id", String.format("0x%x / %d", d.vendorId(), d.vendorPartId()));
            cap("rdma.max_send_queue_size (max_qp_wr)", d.maxQpWr());
            cap("rdma.max_recv_queue_size (max_qp_wr)", d.maxQpWr());
            cap("rdma.max_send_buf_list_len (max_sge)", d.maxSge());
            cap("rdma.max_recv_buf_list_len (max_sge)", d.maxSge());
            cap("rdma.max_read_buf_list_len (max_sge_rd)", d.maxSgeRd());
            cap("rdma.max_message_size (port max_msg_sz)", d.maxMessageSize());
            cap("rdma.atomics (atomic_cap)", VerbsConstants.atomicCapName(d.atomicCap()));
            cap("rdma.max_rd_atomic (max_qp_rd_atom / init)", d.maxQpRdAtom() + " / " + d.maxQpInitRdAtom());
            cap("max_qp / max_cq / max_cqe", d.maxQp() + " / " + d.maxCq() + " / " + d.maxCqe());
            cap("max_mr / max_mr_size / max_pd", d.maxMr() + " / " + Long.toUnsignedString(d.maxMrSize()) + " / "
                    + d.maxPd());
            cap("max_srq_wr", d.maxSrqWr());
            for (VerbsDevices.Port p : d.ports()) {
                String k = "port " + p.num() + " ";
                cap(k + "state", p.stateName());
                cap(k + "link_layer (transport)", p.linkLayerName()
                        + (p.linkLayer() == VerbsConstants.IBV_LINK_LAYER_ETHERNET ? " (RoCE)" : ""));
                cap(k + "mtu (active / max)", VerbsConstants.mtuBytes(p.activeMtu()) + " / "
                        + VerbsConstants.mtuBytes(p.maxMtu()));
                cap(k + "lid", p.lid());
                cap(k + "gid_tbl_len", p.gidTblLen());
                for (String g : p.gids()) {
                    cap(k + g.substring(0, g.indexOf(' ')), g.substring(g.indexOf(' ') + 1));
                }
            }
        }
    }

    private static void cap(String name, Object value) {
        System.out.printf("    %-44s %s%n", name, value);
    }

    private static String guid(long g) {
        return String.format("%04x:%04x:%04x:%04x", (g >>> 48) & 0xffff, (g >>> 32) & 0xffff, (g >>> 16) & 0xffff,
                g & 0xffff);
    }
}
