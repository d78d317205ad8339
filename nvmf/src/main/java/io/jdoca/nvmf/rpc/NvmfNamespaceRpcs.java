package io.jdoca.nvmf.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.core.DocaException;
import io.jdoca.nvmf.bdev.Bdev;
import io.jdoca.nvmf.bdev.BdevModules;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.JsonParams;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.tgt.NvmfSubsystem;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.sta.Sta;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * SPDK's namespace methods ({@code lib/nvmf/nvmf_rpc.c}): {@code nvmf_subsystem_add_ns} (a bdev,
 * SPDK's form, or a back-end made for the namespace, jdoca's) and {@code nvmf_subsystem_remove_ns}
 * (answered once the namespace's in-flight I/O drained, at most {@link #DRAIN_SECONDS} s).
 *
 * <p>Threads: handlers on the RPC client's thread; each target call is a {@code sta-main} command.
 */
final class NvmfNamespaceRpcs implements RpcRegistry.Family {
    static final int DRAIN_SECONDS = 30;
    private static final String[] NS_KEYS = {"nsid", "backend", "size_mb", "block_size", "path", "uuid", "bdev_name",
        "nguid", "eui64", "anagrpid", "no_auto_visible", "hide_metadata", "ptpl_file"};

    private final Supplier<NvmfTarget> target;

    NvmfNamespaceRpcs(Supplier<NvmfTarget> target) {
        this.target = target;
    }

    /** add_ns's params: the request ({@code p}) and the namespace's fields ({@code n}: nested or flat). */
    private record AddNs(JsonParams p, JsonParams n, String nqn) {
    }

    /** remove_ns's params. */
    private record RemoveNs(String nqn, int nsid) {
    }

    @Override
    public void registerWith(RpcRegistry r) {
        r.register("nvmf_subsystem_add_ns", NvmfNamespaceRpcs::parseAddNs, this::addNs);
        r.register("nvmf_subsystem_remove_ns", p -> {
            JsonParams a = new JsonParams(p, "", "nqn", "nsid", "tgt_name");
            a.noTarget();
            String nqn = a.str("nqn", true);
            return new RemoveNs(nqn, a.integer("nsid", true, 1, Sta.MAX_NS_PER_SUBSYSTEM).intValue());
        }, this::removeNs);
    }

    /**
     * SPDK's {@code {nqn, namespace: {...}}} with jdoca's back-end fields ({@code backend},
     * {@code size_mb}, {@code block_size}, {@code path}, {@code nsid}, {@code uuid}), or the same
     * fields flat next to {@code nqn} (sta-rpc's key=value form).
     */
    private static AddNs parseAddNs(JsonNode params) {
        boolean nested = params != null && params.has("namespace");
        JsonParams p;
        JsonParams n;
        if (nested) {
            p = new JsonParams(params, "", "nqn", "namespace", "tgt_name", "no_auto_visible");
            n = new JsonParams(p.node("namespace"), "namespace", NS_KEYS);
        } else {
            List<String> keys = new ArrayList<>(List.of(NS_KEYS));
            keys.addAll(List.of("nqn", "tgt_name"));
            p = new JsonParams(params, "", keys.toArray(String[]::new));
            n = p;
        }
        p.noTarget();
        return new AddNs(p, n, p.str("nqn", true));
    }

    private Object addNs(AddNs a) {
        NvmfTarget t = target.get();
        JsonParams n = a.n();
        String nqn = a.nqn();
        NvmfSubsystem s = t.subsystem(nqn);
        if (s == null || s.isDiscovery()) {
            throw new ConfigException("nqn", "no subsystem " + nqn);
        }
        if (n.has("bdev_name")) {
            for (String k : List.of("backend", "size_mb", "block_size", "path")) {
                if (n.has(k)) {
                    throw new ConfigException(n.name(k), "give either bdev_name or jdoca's backend fields, not both");
                }
            }
        } else if (n.has("nguid")) {
            throw new ConfigException(n.name("nguid"), "only with bdev_name");
        }
        for (String k : List.of("eui64")) {
            if (n.has(k)) {
                throw new ConfigException(n.name(k), "not supported by jdoca");
            }
        }
        n.onlyDefault("no_auto_visible", false);
        n.onlyDefault("hide_metadata", false);
        a.p().onlyDefault("no_auto_visible", false);
        Long nsid = n.integer("nsid", false, 0, Sta.MAX_NS_PER_SUBSYSTEM);
        Long grp = n.integer("anagrpid", false, 1, Sta.MAX_NS_PER_SUBSYSTEM);
        int anagrpid = grp == null ? 0 : grp.intValue();
        if (n.has("bdev_name")) {
            UUID uuid = n.uuid("uuid");
            byte[] nguid = nguid(n);
            // SPDK answers every failure to add a namespace with -32602 Invalid parameters.
            String bdev = n.str("bdev_name", true);
            Bdev d = t.bdev(bdev);
            if (d == null) {
                throw new ConfigException(n.name("bdev_name"), "no bdev " + bdev + " (create it first: "
                        + String.join(", ", BdevModules.all().stream().map(m -> "bdev_" + m.name() + "_create")
                                .toList()) + ")");
            }
            if (d.claimedBy() != null) {
                throw new ConfigException(n.name("bdev_name"), "bdev " + bdev + " is already claimed by "
                        + d.claimedBy());
            }
            return t.addBdevNamespace(nqn, nsid == null ? 0 : nsid.intValue(), bdev, uuid, nguid, anagrpid,
                    n.str("ptpl_file", false));
        }
        Long size = n.integer("size_mb", false, 0, Long.MAX_VALUE >> 21);
        Long bs = n.integer("block_size", false, 0, Integer.MAX_VALUE);
        TargetConfig.NamespaceConfig nc = new TargetConfig.NamespaceConfig(nsid == null ? null : nsid.intValue(),
                n.str("backend", false), size, bs == null ? null : bs.intValue(), n.str("path", false),
                n.str("uuid", false), anagrpid, n.str("ptpl_file", false));
        return t.addNamespace(nqn, nc);
    }

    private static byte[] nguid(JsonParams n) {
        String g = n.str("nguid", false);
        if (g == null) {
            return null;
        }
        byte[] nguid;
        try {
            nguid = HexFormat.of().parseHex(g.replace("-", ""));
        } catch (IllegalArgumentException e) {
            nguid = null;
        }
        if (nguid == null || nguid.length != 16) {
            throw new ConfigException(n.name("nguid"), "\"" + g + "\" is not 16 bytes in hexadecimal");
        }
        return nguid;
    }

    private Object removeNs(RemoveNs r) throws InterruptedException {
        NvmfTarget t = target.get();
        NvmfSubsystem s = t.subsystem(r.nqn());
        if (s == null || s.isDiscovery()) {
            throw new ConfigException("nqn", "no subsystem " + r.nqn());
        }
        if (s.ns(r.nsid()) == null) {
            throw new ConfigException("nsid", "no namespace " + r.nsid() + " in " + r.nqn());
        }
        try {
            t.removeNamespace(r.nqn(), r.nsid()).get(DRAIN_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof DocaException d) {
                throw d;
            }
            throw new IllegalStateException(String.valueOf(e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("namespace " + r.nsid() + " of " + r.nqn() + " did not drain within "
                    + DRAIN_SECONDS + " s");
        }
        return true;
    }
}
