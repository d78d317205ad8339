package io.jdoca.nvmf.tgt;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.DevInfo;
import io.jdoca.core.dev.Devices;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.sta.Sta;
import io.jdoca.sta.StaQp;
import io.jdoca.verbs.RdmaCm;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which network devices sta-target gives its STA main context ({@code doca_sta_add_dev}, before
 * start, as the seed wants): the software device for NVMe/TCP, and for NVMe/RDMA the rdma-core device
 * that owns each RDMA listener's address in the configuration. A configuration without RDMA listeners
 * gets every rdma-core device of the machine, so that RDMA listeners added later over RPC work (as
 * SPDK's RDMA transport opens every device). An RDMA listener added over RPC on an address whose
 * device was not added is refused with one line ({@link #checkRdmaListener}).
 *
 * <p>Control path: {@link #addTo} while the main context is IDLE; {@link #checkRdmaListener} any thread.
 */
final class NvmfNetworkDevices {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfNetworkDevices.class);

    private NvmfNetworkDevices() {
    }

    /** Adds the devices {@code config} needs to {@code sta} (IDLE); throws with one line on a device STA refuses. */
    static void addTo(Sta sta, Dev software, TargetConfig config) {
        check(sta.addDev(software), software.devInfo().name());
        Set<String> rdma = new LinkedHashSet<>();
        boolean rdmaListeners = false;
        for (TargetConfig.ListenerConfig l : allListeners(config)) {
            if (!StaQp.TRTYPE_RDMA.equals(l.trtype())) {
                continue;
            }
            rdmaListeners = true;
            String dev = owner(l.address());
            if (dev == null) {
                throw new DocaException(DocaError.NOT_FOUND, "no RDMA device has address " + l.address()
                        + " (NVMe/RDMA listener): ./jdoca devices lists the RDMA devices and their interfaces");
            }
            rdma.add(dev);
        }
        if (!rdmaListeners) {
            for (DevInfo d : Devices.list()) {
                if (d.isVerbs()) {
                    rdma.add(d.ibdevName());
                }
            }
        }
        for (String name : rdma) {
            Dev d = Devices.open(name);
            if (!Sta.capIsSupported(d.devInfo(), StaQp.TRTYPE_RDMA)) {
                throw new DocaException(DocaError.NOT_SUPPORTED, Sta.capWhyNot(d.devInfo(), StaQp.TRTYPE_RDMA));
            }
            check(sta.addDev(d), name);
        }
        LOG.info("STA network devices: {}", sta.devs().stream().map(d -> d.devInfo().name()).toList());
    }

    /** Refuses (IOException, one line) an RDMA listener on {@code ip} when its device is not one of {@code sta}'s. */
    static void checkRdmaListener(Sta sta, InetAddress ip) throws IOException {
        String dev = owner(ip.getHostAddress());
        if (dev == null || !sta.hasRdmaDev(dev)) {
            throw new IOException("cannot listen for NVMe/RDMA on " + ip.getHostAddress() + ": " + (dev == null
                    ? "no RDMA device has that address" : "its device " + dev + " was not given to the target "
                    + "at start (declare an RDMA listener on it in the configuration)"));
        }
    }

    private static String owner(String address) {
        InetAddress ip = TargetConfig.ipLiteral("listen_address.traddr", address);
        return ip instanceof Inet4Address v4 && RdmaCm.isAvailable() ? RdmaCm.deviceNameOf(v4) : null;
    }

    private static List<TargetConfig.ListenerConfig> allListeners(TargetConfig config) {
        List<TargetConfig.ListenerConfig> all = new ArrayList<>(config.listeners());
        for (TargetConfig.SubsystemConfig s : config.subsystems()) {
            if (s.listeners() != null) {
                all.addAll(s.listeners());
            }
        }
        return all;
    }

    private static void check(DocaError e, String dev) {
        if (e != DocaError.SUCCESS) {
            throw new DocaException(e, "add network device " + dev + ": " + e.description());
        }
    }
}
