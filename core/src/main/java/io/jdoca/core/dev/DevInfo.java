package io.jdoca.core.dev;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import java.util.List;

/**
 * Properties of one local device ({@code doca_devinfo}): a software device in jdoca, with a name
 * ({@code sw0}), the InfiniBand-style name DOCA users type ({@code mlx5_0}), a network interface
 * name ({@code p0}) and a PCI address ({@code 03:00.0}). Open it to get a {@link Dev}.
 *
 * <p>Immutable; thread-safe.
 */
public final class DevInfo {
    private final String name;
    private final String ibdevName;
    private final String ifaceName;
    private final PciAddress pci;
    private final List<DevInfoRep> representors;

    DevInfo(String name, String ibdevName, String ifaceName, PciAddress pci, List<DevInfoRep> representors) {
        this.name = name;
        this.ibdevName = ibdevName;
        this.ifaceName = ifaceName;
        this.pci = pci;
        this.representors = List.copyOf(representors);
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
        return s.equals(name) || s.equals(ibdevName) || s.equals(ifaceName) || (p != null && p.equals(pci));
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
        return name + " (" + ibdevName + ", " + ifaceName + ", " + pci + ")";
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
