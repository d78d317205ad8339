package io.jdoca.core.dev;

import java.util.List;

/** Core's capabilities ({@code doca_devinfo_cap_*}, {@code doca_mmap_cap_*}) for {@code ./jdoca devices}. */
public final class CoreCapabilities implements CapabilityProvider {
    @Override
    public List<Capability> capabilities(DevInfo d) {
        return List.of(
                new Capability("core", "mmap_export_pci_supported", String.valueOf(d.isMmapExportPciSupported())),
                new Capability("core", "mmap_from_export_pci_supported",
                        String.valueOf(d.isMmapFromExportPciSupported())),
                new Capability("core", "mmap_export_rdma_supported", "true"),
                new Capability("core", "num_representors",
                        String.valueOf(d.representors(DevInfo.RepFilter.ALL).size())));
    }
}
