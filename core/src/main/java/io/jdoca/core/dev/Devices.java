package io.jdoca.core.dev;

import io.jdoca.core.config.CoreProperties;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The device list ({@code doca_devinfo_create_list}): the machine's RDMA devices (rdma-core,
 * {@link DevInfo#isVerbs()}), then jdoca's software devices; by default two, laid out like a BlueField's two ports:
 *
 * <pre>
 *   sw0  mlx5_0  p0  03:00.0   representors hpf0 0b:00.0 (PF), hpf0vf0 0b:00.2, hpf0vf1 0b:00.3, pf0sf0 (SF)
 *   sw1  mlx5_1  p1  03:00.1   representors hpf1 0b:00.1 (PF), hpf1vf0 0b:00.4, pf1sf0 (SF)
 * </pre>
 * The system property {@code jdoca.devices} (e.g. {@code sw0@03:00.0,sw1@03:00.1,sw2@04:00.0})
 * replaces the list. Thread-safe.
 */
public final class Devices {
    private static volatile List<DevInfo> cached;

    private Devices() {
    }

    public static List<DevInfo> list() {
        List<DevInfo> l = cached;
        if (l == null) {
            List<DevInfo> all = new ArrayList<>(verbsDevices());
            all.addAll(build(CoreProperties.DEVICES.asString()));
            l = List.copyOf(all);
            cached = l;
        }
        return l;
    }

    /**
     * The machine's rdma-core devices ({@code ibv_get_device_list}), listed before the software devices so a
     * real {@code -d mlx5_0} selects the hardware rather than the software device's ibdev alias. None without
     * libibverbs or devices, or with {@code -Djdoca.verbs=false}.
     */
    static List<DevInfo> verbsDevices() {
        if (!CoreProperties.VERBS.asBoolean()) {
            return List.of();
        }
        List<DevInfo> out = new ArrayList<>();
        for (String n : io.jdoca.verbs.VerbsDeviceContext.deviceNames()) {
            out.add(DevInfo.verbs(n));
        }
        return out;
    }

    static List<DevInfo> build(String spec) {
        List<DevInfo> out = new ArrayList<>();
        if (spec.isBlank()) {
            out.add(new DevInfo("sw0", "mlx5_0", "p0", PciAddress.parse("03:00.0"), List.of(
                    new DevInfoRep("hpf0", PciAddress.parse("0b:00.0"), PciFuncType.PF, "sw0"),
                    new DevInfoRep("hpf0vf0", PciAddress.parse("0b:00.2"), PciFuncType.VF, "sw0"),
                    new DevInfoRep("hpf0vf1", PciAddress.parse("0b:00.3"), PciFuncType.VF, "sw0"),
                    new DevInfoRep("pf0sf0", PciAddress.parse("03:00.2"), PciFuncType.SF, "sw0"))));
            out.add(new DevInfo("sw1", "mlx5_1", "p1", PciAddress.parse("03:00.1"), List.of(
                    new DevInfoRep("hpf1", PciAddress.parse("0b:00.1"), PciFuncType.PF, "sw1"),
                    new DevInfoRep("hpf1vf0", PciAddress.parse("0b:00.4"), PciFuncType.VF, "sw1"),
                    new DevInfoRep("pf1sf0", PciAddress.parse("03:00.3"), PciFuncType.SF, "sw1"))));
            return List.copyOf(out);
        }
        int i = 0;
        for (String item : spec.split(",")) {
            String[] nv = item.trim().split("@");
            PciAddress p = nv.length > 1 ? PciAddress.parse(nv[1]) : null;
            if (p == null) {
                throw new IllegalArgumentException(CoreProperties.DEVICES.name() + " entry '" + item
                        + "' is not NAME@BB:DD.F");
            }
            out.add(new DevInfo(nv[0], "mlx5_" + i, "p" + i, p, List.of()));
            i++;
        }
        return List.copyOf(out);
    }

    /** Finds a device by name, ibdev name, interface or PCI address; throws NOT_FOUND. */
    public static DevInfo find(String selector) {
        for (DevInfo d : list()) {
            if (d.matches(selector)) {
                return d;
            }
        }
        throw DevInfo.notFound(selector);
    }

    /** Opens the device {@code selector} names ({@code -d} flags). */
    public static Dev open(String selector) {
        return find(selector).open();
    }

    /** Finds a representor by name or PCI address on any device; throws NOT_FOUND. */
    public static DevInfoRep findRepresentor(String selector) {
        for (DevInfo d : list()) {
            for (DevInfoRep r : d.representors(DevInfo.RepFilter.ALL)) {
                if (r.matches(selector)) {
                    return r;
                }
            }
        }
        throw DevInfo.notFound(selector);
    }

    /** Every library's capabilities for {@code info}, through {@link CapabilityProvider}s on the class path. */
    public static List<Capability> capabilities(DevInfo info) {
        List<Capability> out = new ArrayList<>();
        for (CapabilityProvider p : ServiceLoader.load(CapabilityProvider.class)) {
            out.addAll(p.capabilities(info));
        }
        return out;
    }
}
