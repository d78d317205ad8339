package io.jdoca.nvmf.tgt;

import io.jdoca.sta.StaQp;
import java.net.Inet6Address;
import java.util.ArrayList;
import java.util.List;

/**
 * The discovery service (SPDK's {@code lib/nvmf/ctrlr_discovery.c}): the generation counter that
 * moves whenever a listener, subsystem, host or referral changes, and the discovery log page a
 * discovery controller returns: for every listener that passes the discovery filter, the
 * subsystems reachable there that allow the host, then the referrals to other discovery services
 * or subsystems ({@code nvmf_discovery_add_referral}), newest first as SPDK lists them. The
 * filter is SPDK's {@code discovery_filter} ({@code nvmf_set_config}): which of transport, address
 * and service id of a listener must equal those of the connection; jdoca's default is all three
 * (only the port the host connected to, as Linux nvmet answers), SPDK's default {@code match_any}
 * (every listener) is a {@code nvmf_set_config} away. The page format is {@link DiscoveryLog}'s.
 *
 * <p>Threads: {@code sta-main} only.
 */
final class NvmfDiscovery {
    /** discovery_filter bits: the listener's transport, address, service id must match the connection's. */
    static final int FILTER_TRANSPORT = 1;
    static final int FILTER_ADDRESS = 2;
    static final int FILTER_SVCID = 4;
    static final int FILTER_MATCH_ANY = 0;

    /** A referral (SPDK's {@code spdk_nvmf_referral}): trtype and adrfam as SPDK spells them. */
    record Referral(String trtype, String adrfam, String traddr, String trsvcid, String subnqn,
                    boolean secureChannel) {
        boolean sameTrid(Referral o) {
            return trtype.equalsIgnoreCase(o.trtype) && adrfam.equalsIgnoreCase(o.adrfam) && traddr.equals(o.traddr)
                    && trsvcid.equals(o.trsvcid) && subnqn.equals(o.subnqn);
        }
    }

    private final NvmfSubsystems subsystems;
    private final NvmfListeners listeners;
    private final List<Referral> referrals = new ArrayList<>();
    private long generation = 1;
    private int filter = FILTER_TRANSPORT | FILTER_ADDRESS | FILTER_SVCID;

    NvmfDiscovery(NvmfSubsystems subsystems, NvmfListeners listeners) {
        this.subsystems = subsystems;
        this.listeners = listeners;
    }

    /** A listener, subsystem, host or referral changed: the log's generation counter (GENCTR) moves. */
    void changed() {
        generation++;
    }

    void setFilter(int bits) {
        filter = bits;
        changed();
    }

    int filter() {
        return filter;
    }

    /** Adds a referral; false (nothing changes) when one with the same address and NQN exists, as SPDK. */
    boolean addReferral(Referral r) {
        for (Referral o : referrals) {
            if (o.sameTrid(r)) {
                return false;
            }
        }
        referrals.addFirst(r);
        changed();
        return true;
    }

    /** Removes the referral with {@code r}'s address and NQN; false if there is none. */
    boolean removeReferral(Referral r) {
        if (referrals.removeIf(o -> o.sameTrid(r))) {
            changed();
            return true;
        }
        return false;
    }

    List<Referral> referrals() {
        return List.copyOf(referrals);
    }

    /** The discovery log page for {@code c}'s host, as the listener its admin queue came in on and the filter say. */
    byte[] log(NvmfController c) {
        List<DiscoveryLog.Entry> entries = new ArrayList<>();
        NvmfListeners.Listener in = listeners.listenerOf(c.adminQp());
        if (in != null) {
            for (NvmfListeners.Listener l : listeners.open()) {
                if (!passes(l, in)) {
                    continue;
                }
                for (NvmfSubsystem s : subsystems.all()) {
                    if (!s.isDiscovery() && s.hostAllowed(c.hostNqn()) && NvmfListeners.reachableOn(s, l)) {
                        entries.add(new DiscoveryLog.Entry(s.nqn(), l.address(), l.port(), l.portId(),
                                StaQp.TRTYPE_RDMA.equals(l.trtype()) ? DiscoveryLog.TRTYPE_RDMA
                                        : DiscoveryLog.TRTYPE_TCP,
                                l.ip() instanceof Inet6Address ? DiscoveryLog.ADRFAM_IPV6 : DiscoveryLog.ADRFAM_IPV4,
                                DiscoveryLog.SUBTYPE_NVME, l.secure() ? DiscoveryLog.TREQ_REQUIRED
                                        | DiscoveryLog.TREQ_TLS13 : DiscoveryLog.TREQ_NOT_SPECIFIED));
                    }
                }
            }
        }
        for (Referral r : referrals) {
            entries.add(new DiscoveryLog.Entry(r.subnqn(), r.traddr(), Integer.parseInt(r.trsvcid()), 0,
                    r.trtype().equalsIgnoreCase("RDMA") ? DiscoveryLog.TRTYPE_RDMA : DiscoveryLog.TRTYPE_TCP,
                    r.adrfam().equalsIgnoreCase("IPv6") ? DiscoveryLog.ADRFAM_IPV6 : DiscoveryLog.ADRFAM_IPV4,
                    r.subnqn().equals(NvmfSubsystem.DISCOVERY_NQN) ? DiscoveryLog.SUBTYPE_DISCOVERY
                            : DiscoveryLog.SUBTYPE_NVME,
                    r.secureChannel() ? DiscoveryLog.TREQ_REQUIRED | DiscoveryLog.TREQ_TLS13
                            : DiscoveryLog.TREQ_NOT_REQUIRED));
        }
        return DiscoveryLog.build(generation, entries);
    }

    /** Whether listener {@code l} is listed to a host connected on {@code in} (SPDK's discovery filter). */
    private boolean passes(NvmfListeners.Listener l, NvmfListeners.Listener in) {
        return ((filter & FILTER_TRANSPORT) == 0 || l.trtype().equals(in.trtype()))
                && ((filter & FILTER_ADDRESS) == 0 || l.ip().equals(in.ip()))
                && ((filter & FILTER_SVCID) == 0 || l.port() == in.port());
    }
}
