package io.jdoca.sta;

import io.jdoca.core.dev.Capability;
import io.jdoca.core.dev.CapabilityProvider;
import io.jdoca.core.dev.DevInfo;
import java.util.List;
import java.util.Locale;

/** Lists STA capabilities for {@code ./jdoca devices}. Stateless; any thread. */
public final class StaCapabilityProvider implements CapabilityProvider {
    @Override
    public List<Capability> capabilities(DevInfo devInfo) {
        return List.of(
                new Capability("sta", "cap_is_supported", String.valueOf(Sta.capIsSupported(devInfo))),
                transport(devInfo, StaQp.TRTYPE_TCP),
                transport(devInfo, StaQp.TRTYPE_RDMA),
                new Capability("sta", "max_subsys", String.valueOf(Sta.MAX_SUBSYSTEMS)),
                new Capability("sta", "max_ns_per_subs", String.valueOf(Sta.MAX_NS_PER_SUBSYSTEM)),
                new Capability("sta", "max_qps", String.valueOf(Sta.MAX_QPS)),
                new Capability("sta", "max_io_threads", String.valueOf(Sta.MAX_IO_THREADS)),
                new Capability("sta", "max_io_size", String.valueOf(Sta.DEFAULT_MAX_IO_SIZE)),
                new Capability("sta", "max_io_queue_size", String.valueOf(Sta.MAX_IO_QUEUE_SIZE)),
                new Capability("sta", "logical_block_sizes", "512,4096"));
    }

    /**
     * Whether the device serves a transport ({@link Sta#capIsSupported(DevInfo, String)}), with the reason when not.
     */
    private static Capability transport(DevInfo devInfo, String trtype) {
        String why = Sta.capWhyNot(devInfo, trtype);
        return new Capability("sta", "nvme-" + trtype.toLowerCase(Locale.ROOT),
                why == null ? "true" : "false (" + why + ")");
    }
}
