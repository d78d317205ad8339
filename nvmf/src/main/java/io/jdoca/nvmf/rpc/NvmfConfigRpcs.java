package io.jdoca.nvmf.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.core.util.CpuAffinity;
import io.jdoca.nvmf.auth.DhchapPolicy;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.JsonParams;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.nvmf.tgt.NvmfTargetOps;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * SPDK's nvmf target configuration method ({@code module/event/subsystems/nvmf/nvmf_rpc.c}):
 * {@code nvmf_set_config}, callable only before the target starts ({@code sta-target
 * --wait-for-rpc}, or a {@code -c} config, whose startup methods run before the start) as in
 * SPDK. {@code poll_groups_mask} pins the IO engines (SPDK's poll groups) to those CPUs,
 * {@code discovery_filter} is the discovery log's filter; admin command passthrough and
 * DH-HMAC-CHAP are not in jdoca and are refused unless off.
 *
 * <p>Threads: handlers on the RPC client's thread, before the target's threads exist.
 */
final class NvmfConfigRpcs implements RpcRegistry.Family {
    private final Supplier<NvmfTarget> target;

    NvmfConfigRpcs(Supplier<NvmfTarget> target) {
        this.target = target;
    }

    /** nvmf_set_config's params, checked. */
    private record Config(List<Integer> cpus, boolean[] filter, DhchapPolicy dhchap) {
    }

    @Override
    public void registerWith(RpcRegistry r) {
        r.register("nvmf_set_config", RpcRegistry.STARTUP, NvmfConfigRpcs::parse, c -> {
            NvmfTarget t = target.get();
            if (c.cpus() != null) {
                t.setCpus(c.cpus());
            }
            if (c.filter() != null) {
                NvmfTargetOps.setDiscoveryFilter(t, c.filter()[0], c.filter()[1], c.filter()[2]);
            }
            if (c.dhchap() != null) {
                NvmfTargetOps.setDhchapPolicy(t, c.dhchap());
            }
            return true;
        });
    }

    private static Config parse(JsonNode params) {
        JsonParams p = new JsonParams(params, "", "admin_cmd_passthru", "poll_groups_mask", "discovery_filter",
                "discovery_filters", "dhchap_digests", "dhchap_dhgroups");
        if (p.has("admin_cmd_passthru")) {
            JsonParams a = new JsonParams(p.node("admin_cmd_passthru"), "admin_cmd_passthru", "identify_ctrlr",
                    "vendor_specific");
            for (String k : a.allowed()) {
                if (Boolean.TRUE.equals(a.bool(k))) {
                    throw new ConfigException(a.name(k), "jdoca has no NVMe passthrough bdev for admin commands");
                }
            }
        }
        DhchapPolicy dhchap = null;
        if (p.has("dhchap_digests") || p.has("dhchap_dhgroups")) {
            List<String> digests = names(p, "dhchap_digests");
            List<String> groups = names(p, "dhchap_dhgroups");
            try {
                dhchap = DhchapPolicy.ofNames(digests, groups);
            } catch (IllegalArgumentException e) {
                // ofNames names the list it refuses ("unknown digest ..." / "unknown DH group ...").
                throw new ConfigException(e.getMessage().startsWith("unknown DH group") ? "dhchap_dhgroups"
                        : "dhchap_digests", e.getMessage());
            }
        }
        List<Integer> cpus = null;
        String mask = p.str("poll_groups_mask", false);
        if (mask != null) {
            try {
                cpus = CpuAffinity.parseCoreMask("poll_groups_mask", mask);
                CpuAffinity.check("poll_groups_mask", cpus);
            } catch (IllegalArgumentException e) {
                throw new ConfigException("poll_groups_mask", e.getMessage().replaceFirst("^poll_groups_mask:? ?", ""));
            }
        }
        String f = p.has("discovery_filters") ? p.str("discovery_filters", false) : p.str("discovery_filter", false);
        return new Config(cpus, f == null ? null : filter(f, p.has("discovery_filters") ? "discovery_filters"
                : "discovery_filter"), dhchap);
    }

    /** A list of names (SPDK's dhchap_digests / dhchap_dhgroups arrays); absent: empty (all allowed). */
    private static List<String> names(JsonParams p, String k) {
        if (!p.has(k)) {
            return List.of();
        }
        JsonNode n = p.node(k);
        if (!n.isArray()) {
            throw new ConfigException(k, "must be an array of names");
        }
        List<String> out = new java.util.ArrayList<>();
        for (JsonNode e : n) {
            if (!e.isTextual()) {
                throw new ConfigException(k, "must be an array of names");
            }
            out.add(e.asText().toLowerCase(Locale.ROOT));
        }
        return out;
    }

    /** save_config's nvmf_set_config entry: the DH-HMAC-CHAP lists when they differ from all; else null. */
    static java.util.Map<String, Object> savedParams(NvmfTarget t) {
        DhchapPolicy p = NvmfTargetOps.dhchapPolicy(t);
        if (p.equals(DhchapPolicy.strongestFirst())) {
            return null;
        }
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("dhchap_digests", p.hashes().stream().map(DhchapPolicy::spdkName).toList());
        m.put("dhchap_dhgroups", p.dhGroups().stream().map(Object::toString).toList());
        return m;
    }

    /** SPDK's discovery filter: "match_any", or a comma list of transport, address, svcid. */
    static boolean[] filter(String value, String field) {
        boolean[] f = new boolean[3];
        for (String tok : value.toLowerCase(Locale.ROOT).split(",")) {
            switch (tok.trim()) {
                case "match_any" -> {
                    // nothing to match: every listener
                }
                case "transport" -> f[0] = true;
                case "address" -> f[1] = true;
                case "svcid" -> f[2] = true;
                default -> throw new ConfigException(field, "\"" + tok + "\" is not one of match_any, transport, "
                        + "address, svcid");
            }
        }
        return f;
    }
}
