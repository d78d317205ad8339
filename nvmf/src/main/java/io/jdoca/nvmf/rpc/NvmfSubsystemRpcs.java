package io.jdoca.nvmf.rpc;

import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.JsonParams;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.nvmf.tgt.NvmfTargetOps;
import io.jdoca.sta.Sta;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * SPDK's subsystem methods ({@code lib/nvmf/nvmf_rpc.c}): {@code nvmf_get_subsystems},
 * {@code nvmf_create_subsystem}, {@code nvmf_delete_subsystem}, {@code nvmf_subsystem_add_host},
 * {@code nvmf_subsystem_remove_host}, {@code nvmf_subsystem_allow_any_host} and the inspection
 * methods {@code nvmf_subsystem_get_controllers}, {@code _get_qpairs}, {@code _get_listeners},
 * with SPDK's parameter names and result shapes; what jdoca does not implement
 * (passthrough, authentication) is accepted only at SPDK's default.
 *
 * <p>Threads: handlers on the RPC client's thread; each target call is a {@code sta-main} command.
 */
final class NvmfSubsystemRpcs implements RpcRegistry.Family {
    private final Supplier<NvmfTarget> target;

    NvmfSubsystemRpcs(Supplier<NvmfTarget> target) {
        this.target = target;
    }

    /** nvmf_create_subsystem's params. */
    private record Create(TargetConfig.SubsystemConfig config, int maxNamespaces) {
    }

    /** A host of a subsystem, with its DH-HMAC-CHAP key names (null: none). */
    private record Host(String nqn, String host, String dhchapKey, String ctrlrKey, String psk) {
    }

    @Override
    public void registerWith(RpcRegistry r) {
        r.register("nvmf_get_subsystems", p -> {
            JsonParams a = new JsonParams(p, "", "nqn", "tgt_name");
            a.noTarget();
            return java.util.Optional.ofNullable(a.str("nqn", false));
        }, nqn -> {
            List<Map<String, Object>> l = target.get().describeSubsystems(nqn.orElse(null));
            if (nqn.isPresent() && l.isEmpty()) {
                throw new ConfigException("nqn", "no subsystem " + nqn.get());
            }
            return l;
        });
        r.register("nvmf_create_subsystem", NvmfSubsystemRpcs::create, c -> {
            target.get().createSubsystem(c.config(), false, c.maxNamespaces());
            return true;
        });
        r.register("nvmf_delete_subsystem", p -> {
            JsonParams a = new JsonParams(p, "", "nqn", "tgt_name");
            a.noTarget();
            return a.str("nqn", true);
        }, nqn -> {
            target.get().deleteSubsystem(nqn);
            return true;
        });
        r.register("nvmf_subsystem_add_host", p -> {
            JsonParams a = new JsonParams(p, "", "nqn", "host", "tgt_name", "psk", "dhchap_key", "dhchap_ctrlr_key");
            a.noTarget();
            String nqn = a.str("nqn", true);
            return new Host(nqn, a.nqn("host"), a.str("dhchap_key", false), a.str("dhchap_ctrlr_key", false),
                    a.str("psk", false));
        }, h -> {
            NvmfTargetOps.addHost(target.get(), h.nqn(), h.host(), h.dhchapKey(), h.ctrlrKey(), h.psk());
            return true;
        });
        r.register("nvmf_subsystem_set_keys", p -> {
            JsonParams a = new JsonParams(p, "", "nqn", "host", "tgt_name", "dhchap_key", "dhchap_ctrlr_key");
            a.noTarget();
            return new Host(a.str("nqn", true), a.str("host", true), a.str("dhchap_key", false),
                    a.str("dhchap_ctrlr_key", false), null);
        }, h -> {
            NvmfTargetOps.setKeys(target.get(), h.nqn(), h.host(), h.dhchapKey(), h.ctrlrKey());
            return true;
        });
        r.register("nvmf_subsystem_remove_host", p -> {
            JsonParams a = new JsonParams(p, "", "nqn", "host", "tgt_name");
            a.noTarget();
            String nqn = a.str("nqn", true);
            return new Host(nqn, a.str("host", true), null, null, null);
        }, h -> {
            target.get().removeHost(h.nqn(), h.host());
            return true;
        });
        inspection(r);
    }

    /** The allow_any_host switch of a subsystem. */
    private record AnyHost(String nqn, boolean allow) {
    }

    /** The methods that read one subsystem: {nqn, tgt_name}. */
    private void inspection(RpcRegistry r) {
        r.register("nvmf_subsystem_allow_any_host", p -> {
            JsonParams a = new JsonParams(p, "", "nqn", "allow_any_host", "tgt_name");
            a.noTarget();
            String nqn = a.str("nqn", true);
            Boolean allow = a.bool("allow_any_host");
            if (allow == null) {
                throw new ConfigException("allow_any_host", "missing (required)");
            }
            return new AnyHost(nqn, allow);
        }, h -> {
            NvmfTargetOps.setAllowAnyHost(target.get(), h.nqn(), h.allow());
            return true;
        });
        r.register("nvmf_subsystem_get_controllers", NvmfSubsystemRpcs::nqnOnly,
                nqn -> NvmfTargetOps.controllers(target.get(), nqn));
        r.register("nvmf_subsystem_get_qpairs", NvmfSubsystemRpcs::nqnOnly,
                nqn -> NvmfTargetOps.qpairs(target.get(), nqn));
        r.register("nvmf_subsystem_get_listeners", NvmfSubsystemRpcs::nqnOnly,
                nqn -> NvmfTargetOps.listeners(target.get(), nqn));
    }

    private static String nqnOnly(com.fasterxml.jackson.databind.JsonNode p) {
        JsonParams a = new JsonParams(p, "", "nqn", "tgt_name");
        a.noTarget();
        return a.str("nqn", true);
    }

    private static Create create(com.fasterxml.jackson.databind.JsonNode params) {
        JsonParams p = new JsonParams(params, "", "nqn", "serial_number", "model_number", "allow_any_host",
                "max_namespaces", "tgt_name", "ana_reporting", "min_cntlid", "max_cntlid", "max_discard_size_kib",
                "max_write_zeroes_size_kib", "passthrough", "enable_nssr");
        p.noTarget();
        String nqn = p.nqn("nqn");
        Long maxNs = p.integer("max_namespaces", false, 0, Sta.MAX_NS_PER_SUBSYSTEM);
        Boolean ana = p.bool("ana_reporting");
        Long min = p.integer("min_cntlid", false, TargetConfig.SubsystemConfig.CNTLID_MIN,
                TargetConfig.SubsystemConfig.CNTLID_MAX);
        Long max = p.integer("max_cntlid", false, TargetConfig.SubsystemConfig.CNTLID_MIN,
                TargetConfig.SubsystemConfig.CNTLID_MAX);
        p.onlyDefault("max_discard_size_kib", 0);
        p.onlyDefault("max_write_zeroes_size_kib", 0);
        p.onlyDefault("passthrough", false);
        p.onlyDefault("enable_nssr", false);
        Boolean any = p.bool("allow_any_host");
        return new Create(new TargetConfig.SubsystemConfig(nqn, p.str("serial_number", false),
                p.str("model_number", false), any != null && any, null, null, null, ana,
                min == null ? null : min.intValue(), max == null ? null : max.intValue()),
                maxNs == null ? 0 : maxNs.intValue());
    }
}
