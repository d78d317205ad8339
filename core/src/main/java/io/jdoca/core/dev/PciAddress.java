package io.jdoca.core.dev;

/**
 * A PCI bus/device/function address ({@code BB:DD.F}, optionally with a {@code DDDD:} domain), as
 * DOCA's {@code -d 03:00.0} flags take it.
 */
public record PciAddress(int domain, int bus, int device, int function) {
    public PciAddress {
        if (domain < 0 || domain > 0xffff || bus < 0 || bus > 0xff || device < 0 || device > 0x1f
                || function < 0 || function > 7) {
            throw new IllegalArgumentException("PCI address out of range");
        }
    }

    /** Parses {@code 03:00.0} or {@code 0000:03:00.0}; null if the text is not a PCI address. */
    public static PciAddress parse(String s) {
        String t = s.trim().toLowerCase();
        int domain = 0;
        String[] parts = t.split(":");
        try {
            if (parts.length == 3) {
                domain = Integer.parseInt(parts[0], 16);
                parts = new String[] {parts[1], parts[2]};
            }
            if (parts.length != 2) {
                return null;
            }
            int dot = parts[1].indexOf('.');
            if (dot < 0) {
                return null;
            }
            return new PciAddress(domain, Integer.parseInt(parts[0], 16),
                    Integer.parseInt(parts[1].substring(0, dot), 16), Integer.parseInt(parts[1].substring(dot + 1),
                            16));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Short form {@code 03:00.0} (domain omitted when 0). */
    @Override
    public String toString() {
        String bdf = String.format("%02x:%02x.%x", bus, device, function);
        return domain == 0 ? bdf : String.format("%04x:%s", domain, bdf);
    }
}
