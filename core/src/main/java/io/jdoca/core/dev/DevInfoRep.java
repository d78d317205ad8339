package io.jdoca.core.dev;

/**
 * A representor ({@code doca_devinfo_rep}): the DPU-side proxy of one host function, e.g.
 * {@code hpf0} for the host's PF0 at {@code 0b:00.0}. The host device and its representor share
 * the PCI address. Immutable.
 */
public record DevInfoRep(String name, PciAddress pciAddress, PciFuncType funcType, String parent) {
    /** {@code doca_dev_rep_open}. */
    public DevRep open() {
        return new DevRep(this);
    }

    public boolean matches(String selector) {
        PciAddress p = PciAddress.parse(selector);
        return selector.trim().equals(name) || (p != null && p.equals(pciAddress));
    }
}
