package io.jdoca.nvmf.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.core.DocaException;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.JsonParams;
import io.jdoca.nvmf.config.Nqn;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.tgt.NvmfSubsystem;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.nvmf.tgt.NvmfTargetOps;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * SPDK's discovery referral methods ({@code lib/nvmf/nvmf_rpc.c}): {@code nvmf_discovery_add_referral},
 * {@code nvmf_discovery_remove_referral} and {@code nvmf_discovery_get_referrals}. A referral is
 * an entry of the discovery log page that sends hosts to another discovery service (subnqn
 * omitted or the discovery NQN: SUBTYPE 1) or subsystem (SUBTYPE 2) at an NVMe/TCP or NVMe/RDMA
 * address given as an IP literal; adding one moves the log's generation counter.
 *
 * <p>Threads: handlers on the RPC client's thread; each target call is a {@code sta-main} command.
 */
final class NvmfDiscoveryRpcs implements RpcRegistry.Family {
    private final Supplier<NvmfTarget> target;

    NvmfDiscoveryRpcs(Supplier<NvmfTarget> target) {
        this.target = target;
    }

    @Override
    public void registerWith(RpcRegistry r) {
        r.register("nvmf_discovery_add_referral", p -> referral(p, true), ref -> {
            NvmfTargetOps.addReferral(target.get(), ref);
            return true;
        });
        r.register("nvmf_discovery_remove_referral", p -> referral(p, false), ref -> {
            try {
                NvmfTargetOps.removeReferral(target.get(), ref);
            } catch (DocaException e) {
                throw new RpcError(-32603, "Unable to remove a referral: " + RpcError.plain(e));
            }
            return true;
        });
        r.register("nvmf_discovery_get_referrals", p -> {
            new JsonParams(p, "", "tgt_name").noTarget();
            return p;
        }, p -> NvmfTargetOps.referrals(target.get()));
    }

    private static NvmfTargetOps.Referral referral(JsonNode params, boolean add) {
        JsonParams p = add ? new JsonParams(params, "", "address", "secure_channel", "subnqn", "tgt_name")
                : new JsonParams(params, "", "address", "subnqn", "tgt_name");
        p.noTarget();
        if (!p.has("address")) {
            throw new ConfigException("address", "missing (required)");
        }
        JsonParams a = new JsonParams(p.node("address"), "address", "trtype", "adrfam", "traddr", "trsvcid");
        String tr = a.str("trtype", true).toUpperCase(Locale.ROOT);
        if (!tr.equals("TCP") && !tr.equals("RDMA")) {
            throw new ConfigException("address.trtype", "\"" + tr + "\": jdoca's discovery log refers to TCP and "
                    + "RDMA addresses");
        }
        String addr = a.str("traddr", true);
        InetAddress ip = TargetConfig.ipLiteral("address.traddr", addr);
        String fam = ip instanceof Inet6Address ? "IPv6" : "IPv4";
        String adrfam = a.str("adrfam", false);
        if (adrfam != null && !adrfam.equalsIgnoreCase(fam)) {
            throw new ConfigException("address.adrfam", "\"" + adrfam + "\" does not match traddr " + addr);
        }
        String svc = a.str("trsvcid", false);
        if (svc == null) {
            throw new ConfigException("address.trsvcid", "missing (required for TCP and RDMA)");
        }
        NvmfListenerRpcs.port(svc);
        String subnqn = p.has("subnqn") ? p.str("subnqn", false) : NvmfSubsystem.DISCOVERY_NQN;
        Nqn.check("subnqn", subnqn);
        boolean secure = add && Boolean.TRUE.equals(p.bool("secure_channel"));
        return new NvmfTargetOps.Referral(tr, fam, TargetConfig.ipText(ip), svc, subnqn, secure);
    }
}
