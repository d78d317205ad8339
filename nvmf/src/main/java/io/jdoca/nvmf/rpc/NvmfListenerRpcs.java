package io.jdoca.nvmf.rpc;

import io.jdoca.core.DocaException;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.JsonParams;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.nvmf.tgt.NvmfTargetOps;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * SPDK's listener methods ({@code lib/nvmf/nvmf_rpc.c}): {@code nvmf_subsystem_add_listener} and
 * {@code nvmf_subsystem_remove_listener}, {@code listen_address: {trtype, adrfam, traddr,
 * trsvcid}} with TCP and RDMA, and {@code nvmf_subsystem_listener_set_ana_state} (a listener's ANA
 * state per group); {@code secure_channel: true} makes an NVMe/TCP listener TLS 1.3 only (hosts need a PSK:
 * {@code nvmf_subsystem_add_host --psk}); socket implementations are not supported and said so.
 *
 * <p>Threads: handlers on the RPC client's thread; each target call is a {@code sta-main} command.
 */
final class NvmfListenerRpcs implements RpcRegistry.Family {
    private final Supplier<NvmfTarget> target;

    NvmfListenerRpcs(Supplier<NvmfTarget> target) {
        this.target = target;
    }

    /** A subsystem's listen address: trtype "TCP" or "RDMA"; {@code anaState} 0 = not given. */
    private record Address(String nqn, String trtype, String traddr, int port, int anaState, boolean secure) {
        Address(String nqn, String trtype, String traddr, int port, int anaState) {
            this(nqn, trtype, traddr, port, anaState, false);
        }
    }

    /** nvmf_subsystem_listener_set_ana_state's params ({@code anagrpid} 0: every group). */
    private record AnaState(Address address, int state, int anagrpid) {
    }

    @Override
    public void registerWith(RpcRegistry r) {
        r.register("nvmf_subsystem_add_listener", NvmfListenerRpcs::parseAdd, a -> {
            NvmfTarget t = target.get();
            if (t.subsystem(a.nqn()) == null) {
                throw new ConfigException("nqn", "no subsystem " + a.nqn());
            }
            try {
                int port = a.secure() ? NvmfTargetOps.addSecureListener(t, a.nqn(), a.traddr(), a.port())
                        : t.addSubsystemListener(a.nqn(), a.trtype(), a.traddr(), a.port());
                if (a.anaState() != 0) {
                    NvmfTargetOps.setAnaState(t, a.nqn(), a.trtype(), a.traddr(), port, a.anaState(), 0);
                }
            } catch (IOException e) {
                throw new ConfigException("listen_address", e.getMessage());
            }
            return true;
        });
        r.register("nvmf_subsystem_listener_set_ana_state", NvmfListenerRpcs::parseAnaState, a -> {
            NvmfTarget t = target.get();
            if (t.subsystem(a.address().nqn()) == null) {
                throw new ConfigException("nqn", "no subsystem " + a.address().nqn());
            }
            try {
                NvmfTargetOps.setAnaState(t, a.address().nqn(), a.address().trtype(), a.address().traddr(),
                        a.address().port(), a.state(), a.anagrpid());
            } catch (DocaException e) {
                throw new RpcError(-32602, "Invalid parameters: "
                        + RpcError.errno(e).getMessage().replaceFirst("^[^:]*: ", ""));
            }
            return true;
        });
        r.register("nvmf_subsystem_remove_listener", NvmfListenerRpcs::parseRemove, a -> {
            try {
                target.get().removeSubsystemListener(a.nqn(), a.trtype(), a.traddr(), a.port());
            } catch (DocaException e) {
                throw new RpcError(-32602, "Invalid parameters: "
                        + RpcError.errno(e).getMessage().replaceFirst("^[^:]*: ", ""));
            }
            return true;
        });
    }

    private static Address parseAdd(com.fasterxml.jackson.databind.JsonNode params) {
        JsonParams p = new JsonParams(params, "", "nqn", "listen_address", "tgt_name", "secure_channel", "sock_impl",
                "ana_state");
        p.noTarget();
        if (p.has("sock_impl")) {
            throw new ConfigException("sock_impl", "not supported by jdoca");
        }
        int ana = p.has("ana_state") ? anaState(p.str("ana_state", true)) : 0;
        String nqn = p.str("nqn", true);
        JsonParams a = listenAddress(p);
        String tr = trtype(a);
        String addr = a.str("traddr", true);
        InetAddress ip = TargetConfig.ipLiteral("listen_address.traddr", addr);
        if (tr.equals("RDMA") && !(ip instanceof Inet4Address)) {
            throw new ConfigException("listen_address.traddr", addr + ": NVMe/RDMA listeners take an IPv4 address");
        }
        String adrfam = a.str("adrfam", false);
        if (adrfam != null && !adrfam.equalsIgnoreCase(ip instanceof Inet6Address ? "ipv6" : "ipv4")) {
            throw new ConfigException("listen_address.adrfam", "\"" + adrfam + "\" does not match traddr " + addr);
        }
        boolean secure = Boolean.TRUE.equals(p.bool("secure_channel"));
        if (secure && !tr.equals("TCP")) {
            throw new ConfigException("secure_channel", "only NVMe/TCP listeners have TLS");
        }
        return new Address(nqn, tr, addr, port(a.str("trsvcid", true)), ana, secure);
    }

    private static AnaState parseAnaState(com.fasterxml.jackson.databind.JsonNode params) {
        JsonParams p = new JsonParams(params, "", "nqn", "listen_address", "ana_state", "anagrpid", "tgt_name");
        p.noTarget();
        String nqn = p.str("nqn", true);
        JsonParams a = listenAddress(p);
        String tr = trtype(a);
        Address at = new Address(nqn, tr, a.str("traddr", true), port(a.str("trsvcid", true)), 0);
        Long g = p.integer("anagrpid", false, 1, io.jdoca.sta.Sta.MAX_NS_PER_SUBSYSTEM);
        return new AnaState(at, anaState(p.str("ana_state", true)), g == null ? 0 : g.intValue());
    }

    /** SPDK's ANA state names (rpc.py -n): optimized, non_optimized, inaccessible. */
    static int anaState(String name) {
        return NvmfTargetOps.anaState(name);
    }

    private static Address parseRemove(com.fasterxml.jackson.databind.JsonNode params) {
        JsonParams p = new JsonParams(params, "", "nqn", "listen_address", "tgt_name");
        p.noTarget();
        String nqn = p.str("nqn", true);
        JsonParams a = listenAddress(p);
        String tr = trtype(a);
        String addr = a.str("traddr", true);
        return new Address(nqn, tr, addr, port(a.str("trsvcid", true)), 0);
    }

    private static JsonParams listenAddress(JsonParams p) {
        if (!p.has("listen_address")) {
            throw new ConfigException("listen_address", "missing (required)");
        }
        return new JsonParams(p.node("listen_address"), "listen_address", "trtype", "adrfam", "traddr", "trsvcid");
    }

    /** The transport: TCP (the default) or RDMA, upper case. */
    private static String trtype(JsonParams a) {
        String trtype = a.str("trtype", false);
        if (trtype != null && !trtype.equalsIgnoreCase("tcp") && !trtype.equalsIgnoreCase("rdma")) {
            throw new ConfigException("listen_address.trtype", "\"" + trtype
                    + "\": jdoca's target speaks TCP and RDMA");
        }
        return trtype == null ? "TCP" : trtype.toUpperCase(Locale.ROOT);
    }

    /** A trsvcid: a port number 0..65535. */
    static int port(String svc) {
        int port;
        try {
            port = Integer.parseInt(svc);
        } catch (NumberFormatException e) {
            throw new ConfigException("listen_address.trsvcid", "\"" + svc + "\" is not a port number");
        }
        if (port < 0 || port > 65535) {
            throw new ConfigException("listen_address.trsvcid", port + " is out of range 0..65535");
        }
        return port;
    }
}
