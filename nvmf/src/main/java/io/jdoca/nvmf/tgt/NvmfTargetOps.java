package io.jdoca.nvmf.tgt;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.sta.StaIo;
import io.jdoca.sta.StaNamespace;
import io.jdoca.sta.StaQp;
import io.jdoca.sta.nvmf.NvmfListenerAna;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The target's management operations behind SPDK's inspection and discovery methods
 * ({@code nvmf_subsystem_get_controllers}, {@code _get_qpairs}, {@code _get_listeners},
 * {@code nvmf_subsystem_allow_any_host}, the referrals, the discovery filter, the threads and the
 * cumulative queue-pair counts), each one command on {@code sta-main} ({@link NvmfTarget#query}),
 * results in SPDK's shapes ({@code lib/nvmf/nvmf_rpc.c}'s dump functions).
 *
 * <p>Threads: any caller; every operation runs on {@code sta-main}, the target state's only writer.
 */
public final class NvmfTargetOps {
    /** A referral as the RPC gives it (SPDK's {@code nvmf_listen_address} plus subnqn and secure_channel). */
    public record Referral(String trtype, String adrfam, String traddr, String trsvcid, String subnqn,
                           boolean secureChannel) {
    }

    private NvmfTargetOps() {
    }

    /** The subsystem named {@code nqn} (the discovery one too), or ConfigException on field nqn (-32602). */
    private static NvmfSubsystem subsystem(NvmfTarget t, String nqn) {
        NvmfSubsystem s = t.subsystemOnMain(nqn);
        if (s == null) {
            throw new ConfigException("nqn", "no subsystem " + nqn);
        }
        return s;
    }

    /** SPDK's {@code nvmf_subsystem_allow_any_host}: the host list is enforced (false) or not (true). */
    public static void setAllowAnyHost(NvmfTarget t, String nqn, boolean allow) {
        t.query("nvmf_subsystem_allow_any_host", () -> {
            NvmfSubsystem s = subsystem(t, nqn);
            if (s.isDiscovery()) {
                throw new ConfigException("nqn", "the discovery subsystem admits every host");
            }
            s.setAllowAnyHost(allow);
            t.discoveryChanged();
            return null;
        });
    }

    /**
     * SPDK's {@code nvmf_subsystem_listener_set_ana_state}: group {@code anagrpid} (0: every group)
     * of {@code nqn} is in {@code state} through the listener trtype address:port.
     */
    public static void setAnaState(NvmfTarget t, String nqn, String trtype, String address, int port, int state,
                                   int anagrpid) {
        t.query("nvmf_subsystem_listener_set_ana_state", () -> {
            t.subsystemTable().setAnaState(nqn, trtype, address, port, state, anagrpid, true);
            return null;
        });
    }

    /**
     * The target's state of a bdev module ({@link io.jdoca.nvmf.bdev.BdevModule.States}: e.g. the rbd
     * clusters), made by {@code make} on first use. On {@code sta-main} only (inside {@link NvmfTarget#query}).
     */
    public static <T> T bdevModuleState(NvmfTarget t, Class<T> type, java.util.function.Supplier<T> make) {
        return t.bdevTable().state(type, make);
    }

    /**
     * The one seam of a bdev resize (SPDK's {@code spdk_bdev_notify_blockcnt_change}): the caller
     * grew bdev {@code d}'s back-end ({@link io.jdoca.sta.backend.StaBackend#grow}, off
     * {@code sta-main}); this command on {@code sta-main} grows the bdev, the namespace exposing it
     * and tells its hosts (Namespace Attribute Changed). Returns the new block count.
     */
    public static long bdevGrown(NvmfTarget t, io.jdoca.nvmf.bdev.Bdev d) {
        return t.query("bdev grown", () -> t.bdevTable().grown(d));
    }

    /** The ptpl_file of namespace {@code nsid} of {@code s}, or null. sta-main (inside a query). */
    public static String ptplFile(NvmfSubsystem s, int nsid) {
        var r = s.reservation(nsid);
        return r == null || r.store() == null ? null : r.store().file().toString();
    }

    /** SPDK's {@code keyring_file_add_key}: key {@code name} is the DHHC-1 secret in file {@code path} (0600). */
    public static void addKey(NvmfTarget t, String name, String path) {
        t.query("keyring_file_add_key", () -> {
            t.subsystemTable().keyring().add(name, path);
            return null;
        });
    }

    /** SPDK's {@code keyring_file_remove_key}. */
    public static void removeKey(NvmfTarget t, String name) {
        t.query("keyring_file_remove_key", () -> {
            t.subsystemTable().keyring().remove(name);
            return null;
        });
    }

    /** SPDK's {@code keyring_get_keys}: names and paths, no secret. */
    public static List<Map<String, Object>> keys(NvmfTarget t) {
        return t.query("keyring_get_keys", () -> t.subsystemTable().keyring().describe());
    }

    /** SPDK's {@code nvmf_subsystem_add_host} with {@code --dhchap-key} / {@code --dhchap-ctrlr-key} (key names). */
    public static void addHost(NvmfTarget t, String nqn, String host, String dhchapKey, String ctrlrKey) {
        t.query("nvmf_subsystem_add_host", () -> {
            t.subsystemTable().addHost(nqn, host, dhchapKey, ctrlrKey);
            return null;
        });
    }

    /**
     * SPDK's {@code nvmf_subsystem_add_host} with {@code --psk} too: the host's NVMe/TCP TLS key (a keyring name
     * whose file holds {@code NVMeTLSkey-1:...}); null keys are not set.
     */
    public static void addHost(NvmfTarget t, String nqn, String host, String dhchapKey, String ctrlrKey, String psk) {
        t.query("nvmf_subsystem_add_host", () -> {
            if (psk != null) {
                t.subsystemTable().setHostPsk(nqn, host, psk);
            }
            t.subsystemTable().addHost(nqn, host, dhchapKey, ctrlrKey);
            return null;
        });
    }

    /** The TLS key name of a host of {@code s} (save_config's add_host psk), or null. */
    public static String hostPsk(NvmfSubsystem s, String host) {
        return s.hostPsk(host);
    }

    /**
     * SPDK's {@code nvmf_subsystem_add_listener} with {@code secure_channel: true}: an NVMe/TCP listener where
     * every connection starts with a TLS 1.3 PSK handshake; returns its port.
     */
    public static int addSecureListener(NvmfTarget t, String nqn, String address, int port) throws java.io.IOException {
        try {
            return t.query("nvmf_subsystem_add_listener", () -> {
                try {
                    return t.subsystemTable().addListener(nqn, StaQp.TRTYPE_TCP, address, port, true);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** SPDK's {@code nvmf_subsystem_set_keys}: a host's keys for its next authentications. */
    public static void setKeys(NvmfTarget t, String nqn, String host, String dhchapKey, String ctrlrKey) {
        t.query("nvmf_subsystem_set_keys", () -> {
            t.subsystemTable().setKeys(nqn, host, dhchapKey, ctrlrKey);
            return null;
        });
    }

    /** nvmf_set_config's dhchap_digests and dhchap_dhgroups: what later DH-HMAC-CHAP transactions may choose. */
    public static void setDhchapPolicy(NvmfTarget t, io.jdoca.nvmf.auth.DhchapPolicy p) {
        t.query("nvmf_set_config", () -> {
            t.subsystemTable().dhchapPolicy(p);
            return null;
        });
    }

    /** The DH-HMAC-CHAP policy now, for save_config. sta-main (save_config runs there). */
    public static io.jdoca.nvmf.auth.DhchapPolicy dhchapPolicy(NvmfTarget t) {
        return t.subsystemTable().dhchapPolicy();
    }

    /** The key names of a host of {@code s}, for save_config: {dhchap_key, dhchap_ctrlr_key} or null. */
    public static String[] hostKeys(NvmfSubsystem s, String host) {
        NvmfSubsystem.HostKeys k = s.hostKeys(host);
        return k == null ? null : new String[] {k.dhchapKey(), k.ctrlrKey()};
    }

    /** An ANA state from SPDK's name (optimized, non_optimized, inaccessible); ConfigException otherwise. */
    public static int anaState(String name) {
        return NvmfSubsystems.anaState(name);
    }

    /** SPDK's {@code nvmf_subsystem_get_controllers}: cntlid, cntrltype, hostnqn, hostid, num_io_qpairs. */
    public static List<Map<String, Object>> controllers(NvmfTarget t, String nqn) {
        return t.query("nvmf_subsystem_get_controllers", () -> {
            NvmfSubsystem s = subsystem(t, nqn);
            List<Map<String, Object>> out = new ArrayList<>();
            for (NvmfController c : t.controllerRegistry().all()) {
                if (c.subsystem() == s) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("cntlid", c.cntlid());
                    m.put("cntrltype", s.isDiscovery() ? "discovery" : "io");
                    m.put("hostnqn", c.hostNqn());
                    m.put("hostid", hostId(c.hostId()).toString());
                    m.put("num_io_qpairs", c.ioQps().size());
                    out.add(m);
                }
            }
            return out;
        });
    }

    private static UUID hostId(byte[] id) {
        if (id == null || id.length != 16) {
            return new UUID(0, 0);
        }
        ByteBuffer b = ByteBuffer.wrap(id);
        return new UUID(b.getLong(), b.getLong());
    }

    /**
     * SPDK's {@code nvmf_subsystem_get_qpairs}: every queue pair of the subsystem's controllers,
     * admin first: cntlid, qid, state, thread (the IO engine's poll group, as nvmf_get_stats names
     * it), hostnqn, listen_address and peer_address.
     */
    public static List<Map<String, Object>> qpairs(NvmfTarget t, String nqn) {
        return t.query("nvmf_subsystem_get_qpairs", () -> {
            NvmfSubsystem s = subsystem(t, nqn);
            List<StaIo> ios = t.ioContexts();
            List<Map<String, Object>> out = new ArrayList<>();
            for (NvmfController c : t.controllerRegistry().all()) {
                if (c.subsystem() != s) {
                    continue;
                }
                List<StaQp> qps = new ArrayList<>();
                qps.add(c.adminQp());
                qps.addAll(c.ioQps());
                for (StaQp qp : qps) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("cntlid", c.cntlid());
                    m.put("qid", Math.max(0, qp.qid()));
                    m.put("state", state(qp));
                    m.put("thread", pollGroupName(ios.indexOf(qp.io())));
                    m.put("hostnqn", c.hostNqn());
                    m.put("listen_address", trid(qp.transportType(), qp.localAddress()));
                    m.put("peer_address", trid(qp.transportType(), qp.remoteAddress()));
                    out.add(m);
                }
            }
            return out;
        });
    }

    /** nvmf_get_stats' and get_qpairs' name of IO engine {@code i}'s poll group. */
    public static String pollGroupName(int i) {
        return String.format("nvmf_tgt_poll_group_%03d", Math.max(0, i));
    }

    /** SPDK's qpair state names ({@code nvmf_qpair_state_str}). */
    private static String state(StaQp qp) {
        return switch (qp.state()) {
            case ALLOCATED -> "uninitialized";
            case CONNECTING -> "connecting";
            case READY -> "enabled";
            case DISCONNECTING, CLOSED -> "deactivating";
            case TERMINATING -> "error";
        };
    }

    /** SPDK's transport ID object ({@code nvmf_transport_listen_dump_trid}): trtype, adrfam, traddr, trsvcid. */
    private static Map<String, Object> trid(String trtype, SocketAddress a) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("trtype", trtype == null ? StaQp.TRTYPE_TCP : trtype);
        if (a instanceof InetSocketAddress ia && ia.getAddress() != null) {
            m.put("adrfam", ia.getAddress() instanceof Inet6Address ? "IPv6" : "IPv4");
            m.put("traddr", TargetConfig.ipText(ia.getAddress()));
            m.put("trsvcid", Integer.toString(ia.getPort()));
        } else {
            m.put("adrfam", "IPv4");
            m.put("traddr", "");
            m.put("trsvcid", "");
        }
        return m;
    }

    /**
     * SPDK's {@code nvmf_subsystem_get_listeners}: {address, ana_state} for each listener the
     * subsystem is reachable on (the discovery subsystem: every listener). jdoca has no ANA groups:
     * every path is optimized, the state SPDK's documentation shows.
     */
    public static List<Map<String, Object>> listeners(NvmfTarget t, String nqn) {
        return t.query("nvmf_subsystem_get_listeners", () -> {
            NvmfSubsystem s = subsystem(t, nqn);
            List<Map<String, Object>> out = new ArrayList<>();
            for (NvmfListeners.Listener l : t.listenerTable().open()) {
                if (!NvmfListeners.reachableOn(s, l)) {
                    continue;
                }
                Map<String, Object> a = new LinkedHashMap<>();
                a.put("trtype", l.trtype());
                a.put("adrfam", l.ip() instanceof Inet6Address ? "IPv6" : "IPv4");
                a.put("traddr", l.address());
                a.put("trsvcid", Integer.toString(l.port()));
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("address", a);
                m.put("ana_state", "optimized");
                if (s.anaReporting()) {
                    // SPDK's shape: the state of every ANA group that holds a namespace.
                    NvmfListenerAna ana = s.anaOf(l.key());
                    List<Map<String, Object>> states = new ArrayList<>();
                    for (int g : s.sta().namespaces().stream().map(StaNamespace::anaGroup).distinct().sorted()
                            .toList()) {
                        // The state a group is going to during a transition: what the operator set.
                        states.add(Map.of("ana_group", g, "ana_state",
                                NvmfSubsystems.anaStateName(ana.settledState(g))));
                    }
                    m.put("ana_states", states);
                    if (!states.isEmpty()) {
                        m.put("ana_state", states.getFirst().get("ana_state"));
                    }
                }
                out.add(m);
            }
            return out;
        });
    }

    // ------------------------------------------------------------------ discovery

    /** SPDK's {@code nvmf_discovery_add_referral}; an existing one is left as it is (true either way). */
    public static void addReferral(NvmfTarget t, Referral r) {
        t.query("nvmf_discovery_add_referral", () -> t.discovery().addReferral(internal(r)));
    }

    /** SPDK's {@code nvmf_discovery_remove_referral}; NOT_FOUND when there is no such referral. */
    public static void removeReferral(NvmfTarget t, Referral r) {
        t.query("nvmf_discovery_remove_referral", () -> {
            if (!t.discovery().removeReferral(internal(r))) {
                throw new DocaException(DocaError.NOT_FOUND, "no referral " + r.traddr() + ":" + r.trsvcid() + " "
                        + r.subnqn());
            }
            return null;
        });
    }

    private static NvmfDiscovery.Referral internal(Referral r) {
        return new NvmfDiscovery.Referral(r.trtype(), r.adrfam(), r.traddr(), r.trsvcid(), r.subnqn(),
                r.secureChannel());
    }

    /** SPDK's {@code nvmf_discovery_get_referrals}: {address, secure_channel, subnqn}, newest first. */
    public static List<Map<String, Object>> referrals(NvmfTarget t) {
        return t.query("nvmf_discovery_get_referrals", () -> {
            List<Map<String, Object>> out = new ArrayList<>();
            for (NvmfDiscovery.Referral r : t.discovery().referrals()) {
                Map<String, Object> a = new LinkedHashMap<>();
                a.put("trtype", r.trtype());
                a.put("adrfam", r.adrfam());
                a.put("traddr", r.traddr());
                a.put("trsvcid", r.trsvcid());
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("address", a);
                m.put("secure_channel", r.secureChannel());
                m.put("subnqn", r.subnqn());
                out.add(m);
            }
            return out;
        });
    }

    /**
     * SPDK's discovery_filter ({@code nvmf_set_config}): which of the listener's transport,
     * address and service id must match the host's connection; none: {@code match_any}.
     */
    public static void setDiscoveryFilter(NvmfTarget t, boolean transport, boolean address, boolean svcid) {
        int bits = (transport ? NvmfDiscovery.FILTER_TRANSPORT : 0) | (address ? NvmfDiscovery.FILTER_ADDRESS : 0)
                | (svcid ? NvmfDiscovery.FILTER_SVCID : 0);
        t.query("nvmf_set_config", () -> {
            t.discovery().setFilter(bits);
            return null;
        });
    }

    // ------------------------------------------------------------------ threads and counts

    /** SPDK's threads: sta-main, then the IO engines ({@link NvmfThreads}). */
    public static List<NvmfThreads.ThreadStat> threads(NvmfTarget t) {
        return t.query("thread_get_stats", () -> NvmfThreads.of(t, t.engineList()));
    }

    /**
     * Per IO engine (in {@link NvmfTarget#ioContexts} order): {admin, io} queue pairs connected
     * since start, and {admin, io} connected now (nvmf_get_stats' admin_qpairs, io_qpairs and
     * current_*).
     */
    public static List<long[]> qpairCounts(NvmfTarget t) {
        return t.query("nvmf_get_stats", () -> {
            List<long[]> out = new ArrayList<>();
            List<NvmfController> ctrls = t.controllerRegistry().all();
            for (StaIo io : t.ioContexts()) {
                long[] total = t.controllerRegistry().connectedTotals(io);
                long admin = ctrls.stream().filter(c -> c.adminQp().io() == io).count();
                long ioq = ctrls.stream().mapToLong(c -> c.ioQps().stream().filter(q -> q.io() == io).count()).sum();
                out.add(new long[] {total[0], total[1], admin, ioq});
            }
            return out;
        });
    }
}
