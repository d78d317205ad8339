package io.jdoca.nvmf.rpc;

import io.jdoca.argp.DocaFlags;
import io.jdoca.nvmf.bdev.Bdev;
import io.jdoca.nvmf.config.JsonParams;
import io.jdoca.nvmf.tgt.NvmfSubsystem;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.nvmf.tgt.NvmfTargetOps;
import io.jdoca.sta.StaNamespace;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * SPDK's framework methods ({@code lib/rpc/rpc.c}, {@code lib/init/subsystem_rpc.c},
 * {@code lib/event/app_rpc.c}): {@code rpc_get_methods} (the registry's names),
 * {@code spdk_get_version}, {@code framework_wait_init}, {@code framework_get_subsystems},
 * {@code framework_get_config} and {@code save_config} (the config rpc.py writes and
 * {@code sta-target -c} replays: the bdev subsystem, then the nvmf one).
 *
 * <p>Threads: handlers on the RPC client's thread; a configuration is read as one command on the
 * target's {@code sta-main} (a consistent view).
 */
final class FrameworkRpcs implements RpcRegistry.Family {
    private final Supplier<NvmfTarget> target;
    private final RpcRegistry registry;
    private final RpcFramework framework;

    FrameworkRpcs(Supplier<NvmfTarget> target, RpcRegistry registry, RpcFramework framework) {
        this.target = target;
        this.registry = registry;
        this.framework = framework;
    }

    @Override
    public void registerWith(RpcRegistry r) {
        int any = RpcRegistry.STARTUP | RpcRegistry.RUNTIME;
        r.register("rpc_get_methods", any, p -> {
            JsonParams a = new JsonParams(p, "", "current", "include_aliases");
            a.bool("include_aliases");
            return Boolean.TRUE.equals(a.bool("current"));
        }, current -> current ? registry.names(framework.state()) : registry.names());
        r.register("spdk_get_version", any, FrameworkRpcs::none, a -> {
            Map<String, Object> fields = new LinkedHashMap<>();
            fields.put("major", 25);
            fields.put("minor", 9);
            fields.put("patch", 0);
            fields.put("suffix", "-jdoca-" + DocaFlags.jdocaVersion());
            return Map.of("version", "SPDK v25.09 RPC dialect (jdoca " + DocaFlags.jdocaVersion() + ")", "fields",
                    fields);
        });
        // As SPDK's: answers once the target is up (at once unless --wait-for-rpc still waits).
        r.register("framework_wait_init", any, FrameworkRpcs::none, a -> {
            if (!framework.awaitInit(NvmfNamespaceRpcs.DRAIN_SECONDS)) {
                throw new RpcError(-32603, "Internal error: framework_start_init has not been called");
            }
            return true;
        });
        // rpc.py's save_config asks framework_get_config for each subsystem listed here, in this order: the keyring
        // first, or a saved configuration would name keys it never adds.
        r.register("framework_get_subsystems", any, FrameworkRpcs::none, a -> List.of(
                Map.of("subsystem", "keyring", "depends_on", List.of()),
                Map.of("subsystem", "bdev", "depends_on", List.of()),
                Map.of("subsystem", "nvmf", "depends_on", List.of("bdev", "keyring"))));
        r.register("framework_get_config", p -> new JsonParams(p, "", "name").str("name", true), name -> {
            NvmfTarget t = target.get();
            return switch (name) {
                case "bdev" -> t.query("framework_get_config", () -> bdevConfig(t));
                case "nvmf" -> t.query("framework_get_config", () -> nvmfConfig(t));
                case "keyring" -> t.query("framework_get_config", () -> keyringConfig(t));
                default -> throw new RpcError(-19, "No such device: jdoca has the subsystems keyring, bdev and "
                        + "nvmf, not " + name);
            };
        });
        r.register("save_config", FrameworkRpcs::none, a -> {
            NvmfTarget t = target.get();
            return t.query("save_config", () -> saveConfig(t));
        });
    }

    /** Params of a method that takes none. */
    static JsonParams none(com.fasterxml.jackson.databind.JsonNode p) {
        return new JsonParams(p, "");
    }

    static Map<String, Object> saveConfig(NvmfTarget t) {
        return Map.of("subsystems", List.of(subsystem("keyring", keyringConfig(t)), subsystem("bdev", bdevConfig(t)),
                subsystem("nvmf", nvmfConfig(t))));
    }

    private static Map<String, Object> subsystem(String name, List<Map<String, Object>> config) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("subsystem", name);
        m.put("config", config);
        return m;
    }

    private static Map<String, Object> entry(String method, Map<String, Object> params) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("method", method);
        if (params != null) {
            m.put("params", params);
        }
        return m;
    }

    /** The keys as keyring_file_add_key entries: name and path, as SPDK saves them (never the secret). */
    static List<Map<String, Object>> keyringConfig(NvmfTarget t) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Object> k : NvmfTargetOps.keys(t)) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("name", k.get("name"));
            p.put("path", k.get("path"));
            out.add(entry("keyring_file_add_key", p));
        }
        return out;
    }

    static List<Map<String, Object>> bdevConfig(NvmfTarget t) {
        List<Map<String, Object>> out = new ArrayList<>(RbdRpcs.clusterEntries(t)); // before the bdevs using them
        for (Bdev d : t.bdevs()) {
            out.add(d.configEntry());
        }
        out.add(entry("bdev_wait_for_examine", null));
        return out;
    }

    /**
     * The ANA states that differ from the default (optimized), as nvmf_subsystem_listener_set_ana_state
     * entries after the listeners (SPDK's save_config leaves them out; a restart would lose them).
     */
    private static List<Map<String, Object>> anaStates(NvmfTarget t, NvmfSubsystem s) {
        List<Map<String, Object>> out = new ArrayList<>();
        if (!s.anaReporting()) {
            return out;
        }
        for (Map<String, Object> l : NvmfTargetOps.listeners(t, s.nqn())) {
            Object states = l.get("ana_states");
            if (!(states instanceof List<?> list)) {
                continue;
            }
            for (Object o : list) {
                Map<?, ?> g = (Map<?, ?>) o;
                if (!"optimized".equals(g.get("ana_state"))) {
                    Map<String, Object> p = new LinkedHashMap<>();
                    p.put("nqn", s.nqn());
                    p.put("listen_address", l.get("address"));
                    p.put("ana_state", g.get("ana_state"));
                    p.put("anagrpid", g.get("ana_group"));
                    out.add(entry("nvmf_subsystem_listener_set_ana_state", p));
                }
            }
        }
        return out;
    }

    static List<Map<String, Object>> nvmfConfig(NvmfTarget t) {
        List<Map<String, Object>> out = new ArrayList<>();
        Map<String, Object> set = NvmfConfigRpcs.savedParams(t);
        if (set != null) {
            out.add(entry("nvmf_set_config", set)); // a startup method: first, as SPDK saves it
        }
        for (var e : NvmfTransportRpcs.effectiveTransports(t).entrySet()) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("trtype", e.getKey());
            p.putAll(e.getValue());
            out.add(entry("nvmf_create_transport", p));
        }
        for (NvmfSubsystem s : t.subsystems()) {
            if (s.isDiscovery()) {
                continue;
            }
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("nqn", s.nqn());
            c.put("allow_any_host", s.allowAnyHost());
            c.put("serial_number", s.serial());
            c.put("model_number", s.model());
            c.put("max_namespaces", s.maxNamespaces());
            c.put("min_cntlid", s.minCntlid());
            c.put("max_cntlid", s.maxCntlid());
            c.put("ana_reporting", s.anaReporting());
            out.add(entry("nvmf_create_subsystem", c));
            for (Map<String, Object> a : t.listenAddresses(s)) {
                Map<String, Object> l = new LinkedHashMap<>();
                l.put("nqn", s.nqn());
                l.put("secure_channel", Boolean.TRUE.equals(a.remove("secure_channel")));
                l.put("listen_address", a);
                out.add(entry("nvmf_subsystem_add_listener", l));
            }
            out.addAll(anaStates(t, s));
            for (String h : s.hosts().stream().sorted().toList()) {
                Map<String, Object> p = new LinkedHashMap<>(Map.of("nqn", s.nqn(), "host", h));
                String[] keys = NvmfTargetOps.hostKeys(s, h);
                if (keys != null) {
                    p.put("dhchap_key", keys[0]);
                    if (keys[1] != null) {
                        p.put("dhchap_ctrlr_key", keys[1]);
                    }
                }
                if (NvmfTargetOps.hostPsk(s, h) != null) {
                    p.put("psk", NvmfTargetOps.hostPsk(s, h));
                }
                out.add(entry("nvmf_subsystem_add_host", p));
            }
            for (StaNamespace ns : s.sta().namespaces()) {
                Bdev d = t.bdevOf(ns.backend());
                Map<String, Object> n = new LinkedHashMap<>();
                n.put("nsid", ns.nsid());
                n.put("bdev_name", d != null ? d.name() : ns.backend().name());
                n.put("nguid", HexFormat.of().withUpperCase().formatHex(s.nguid(ns.nsid())));
                n.put("uuid", s.uuid(ns.nsid()).toString());
                n.put("anagrpid", ns.anaGroup());
                String ptpl = NvmfTargetOps.ptplFile(s, ns.nsid());
                if (ptpl != null) {
                    n.put("ptpl_file", ptpl); // the file's name, as SPDK's save_config
                }
                n.put("no_auto_visible", false);
                Map<String, Object> a = new LinkedHashMap<>();
                a.put("nqn", s.nqn());
                a.put("namespace", n);
                out.add(entry("nvmf_subsystem_add_ns", a));
            }
        }
        return out;
    }
}
