package io.jdoca.core.dev;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.verbs.VerbsDeviceContext;
import io.jdoca.verbs.VerbsException;
import java.util.List;

/**
 * Properties of one local device ({@code doca_devinfo}): a software device in jdoca, with a name
 * ({@code sw0}), the InfiniBand-style name DOCA users type ({@code mlx5_0}), a network interface
 * name ({@code p0}) and a PCI address ({@code 03:00.0}); or an RDMA device of rdma-core
 * ({@link #isVerbs()}: {@code rxe0}, a real {@code mlx5_0}) named by its ibdev name. Open it to get a {@link Dev}.
 *
 * <p>Immutable; thread-safe.
 */
public final class DevInfo {
    private final String name;
    private final String ibdevName;
    private final String ifaceName;
    private final PciAddress pci;
    private final List<DevInfoRep> representors;
    /** True for an RDMA device of rdma-core (libibverbs), false for a jdoca software device. */
    private final boolean verbs;
    /** The opened verbs device (context + PD), opened on first use and kept for the process lifetime. */
    private volatile VerbsDeviceContext verbsContext;

    DevInfo(String name, String ibdevName, String ifaceName, PciAddress pci, List<DevInfoRep> representors) {
        this(name, ibdevName, ifaceName, pci, representors, false);
    }

    private DevInfo(String name, String ibdevName, String ifaceName, PciAddress pci, List<DevInfoRep> representors,
            boolean verbs) {
        this.name = name;
        this.ibdevName = ibdevName;
        this.ifaceName = ifaceName;
        this.pci = pci;
        this.representors = List.copyOf(representors);
        this.verbs = verbs;
    }

    /** An rdma-core device ({@code ibv_get_device_list} name, e.g. {@code rxe0}, {@code mlx5_0}). */
    static DevInfo verbs(String ibdev) {
        return new DevInfo(ibdev, ibdev, netdevOf(ibdev), null, List.of(), true);
    }

    /**
     * The network interface of an RDMA device, from sysfs ({@code /sys/class/infiniband/DEV/device/net}); "" if
     * unknown.
     */
    private static String netdevOf(String ibdev) {
        try (var s = java.nio.file.Files.list(java.nio.file.Path.of("/sys/class/infiniband", ibdev, "ports", "1",
                "gid_attrs", "ndevs"))) {
            for (java.nio.file.Path p : (Iterable<java.nio.file.Path>) s.sorted()::iterator) {
                String n = java.nio.file.Files.readString(p).trim();
                if (!n.isEmpty()) {
                    return n;
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            // no sysfs entry (IB, or no netdev): matched by its ibdev name only
        }
        return "";
    }

    /** True for an RDMA device of rdma-core: memory maps register on it and RDMA contexts use the verbs transport. */
    public boolean isVerbs() {
        return verbs;
    }

    /**
     * The verbs device context (ibv_context + the process's PD on it), opened on first call. Control path;
     * throws {@link DocaException} (NOT_SUPPORTED for a software device, DRIVER if the device cannot be opened).
     */
    public VerbsDeviceContext verbsContext() {
        if (!verbs) {
            throw new DocaException(DocaError.NOT_SUPPORTED, name + " is a software device, not an RDMA device");
        }
        VerbsDeviceContext c = verbsContext;
        if (c == null) {
            synchronized (this) {
                c = verbsContext;
                if (c == null) {
                    try {
                        c = VerbsDeviceContext.open(ibdevName);
                    } catch (VerbsException e) {
                        throw new DocaException(DocaError.DRIVER, "cannot open RDMA device " + name + ": "
                                + e.getMessage());
                    }
                    verbsContext = c;
                }
            }
        }
        return c;
    }

    public String name() {
        return name;
    }

    /** {@code doca_devinfo_get_ibdev_name}. */
    public String ibdevName() {
        return ibdevName;
    }

    /** {@code doca_devinfo_get_iface_name}. */
    public String ifaceName() {
        return ifaceName;
    }

    /** {@code doca_devinfo_get_pci_addr_str}. */
    public PciAddress pciAddress() {
        return pci;
    }

    /** True if {@code selector} names this device by name, ibdev name, interface or PCI address. */
    public boolean matches(String selector) {
        String s = selector.trim();
        PciAddress p = PciAddress.parse(s);
        return s.equals(name) || s.equals(ibdevName) || (!ifaceName.isEmpty() && s.equals(ifaceName))
                || (p != null && p.equals(pci));
    }

    /** Software devices can export and import memory maps for PCI and RDMA. */
    public boolean isMmapExportPciSupported() {
        return true;
    }

    public boolean isMmapFromExportPciSupported() {
        return true;
    }

    /** {@code doca_devinfo_rep_create_list}: the representors this device sees (DPU side), filtered. */
    public List<DevInfoRep> representors(RepFilter filter) {
        return representors.stream().filter(filter::accepts).toList();
    }

    /** {@code doca_dev_open}. */
    public Dev open() {
        return new Dev(this);
    }

    @Override
    public String toString() {
        return verbs ? name + " (RDMA device" + (ifaceName.isEmpty() ? "" : ", " + ifaceName) + ")"
                : name + " (" + ibdevName + ", " + ifaceName + ", " + pci + ")";
    }

    /** {@code doca_devinfo_rep_filter}. */
    public enum RepFilter {
        ALL,
        NET,
        EMULATED;

        boolean accepts(DevInfoRep r) {
            return switch (this) {
                case ALL -> true;
                case NET -> r.funcType() != PciFuncType.SF || r.name().contains("sf");
                case EMULATED -> false;
            };
        }
    }

    static DocaException notFound(String selector) {
        return new DocaException(DocaError.NOT_FOUND, "no device matches '" + selector + "' (see ./jdoca devices)");
    }
}
