package io.jdoca.nvmf.tgt;

import io.jdoca.sta.StaQp;
import java.util.ArrayList;
import java.util.List;

/**
 * The discovery service (SPDK's {@code lib/nvmf/ctrlr_discovery.c}): the generation counter that
 * moves whenever a listener, subsystem or host changes, and the discovery log page a discovery
 * controller returns, built as Linux nvmet builds it: only the port the host connected to, and on
 * it only the subsystems that have that listener and allow that host. The page format is
 * {@link DiscoveryLog}'s.
 *
 * <p>Threads: {@code sta-main} only.
 */
final class NvmfDiscovery {
    private final NvmfSubsystems subsystems;
    private final NvmfListeners listeners;
    private long generation = 1;

    NvmfDiscovery(NvmfSubsystems subsystems, NvmfListeners listeners) {
        this.subsystems = subsystems;
        this.listeners = listeners;
    }

    /** A listener, subsystem or host changed: the log's generation counter (GENCTR) moves. */
    void changed() {
        generation++;
    }

    /** The discovery log page for {@code c}'s host on the listener its admin queue came in on. */
    byte[] log(NvmfController c) {
        List<DiscoveryLog.Entry> entries = new ArrayList<>();
        NvmfListeners.Listener l = listeners.listenerOf(c.adminQp());
        if (l != null) {
            for (NvmfSubsystem s : subsystems.all()) {
                if (!s.isDiscovery() && s.hostAllowed(c.hostNqn()) && NvmfListeners.reachableOn(s, l)) {
                    entries.add(new DiscoveryLog.Entry(s.nqn(), l.address(), l.port(), l.portId(),
                            StaQp.TRTYPE_RDMA.equals(l.trtype()) ? DiscoveryLog.TRTYPE_RDMA : DiscoveryLog.TRTYPE_TCP));
                }
            }
        }
        return DiscoveryLog.build(generation, entries);
    }
}
