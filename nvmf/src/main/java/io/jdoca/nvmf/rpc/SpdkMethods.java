package io.jdoca.nvmf.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.argp.DocaFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.util.DocaLogLevel;
import io.jdoca.sta.Sta;
import io.jdoca.sta.StaIo;
import io.jdoca.sta.StaNamespace;
import io.jdoca.sta.StaStats;
import io.jdoca.nvmf.bdev.Bdev;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.tgt.NvmfController;
import io.jdoca.nvmf.tgt.NvmfSubsystem;
import io.jdoca.nvmf.tgt.NvmfTarget;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * SPDK's methods beyond the nvmf basics in {@link RpcServer}: the bdev layer ({@code bdev_malloc_*},
 * {@code bdev_null_*}, {@code bdev_aio_*}, {@code bdev_get_bdevs}, {@code bdev_get_iostat}),
 * {@code spdk_get_version}, {@code framework_*}, {@code save_config} (and what rpc.py's
 * save_config calls: {@code framework_get_subsystems}, {@code framework_get_config}),
 * {@code nvmf_create_transport} / {@code nvmf_get_transports},
 * {@code nvmf_subsystem_remove_listener}, {@code nvmf_get_stats} and {@code log_*_level}, with
 * SPDK's parameter names, result shapes and error codes. What jdoca cannot do is refused with a
 * message that says so.
 *
 * <p>Threads: called from RPC client threads; target state is guarded by {@link NvmfTarget}.
 */
final class SpdkMethods {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SpdkMethods.class);
    static final List<String> METHODS = List.of("spdk_get_version", "framework_wait_init", "framework_get_subsystems",
            "framework_get_config", "save_config", "log_set_level", "log_get_level", "log_set_print_level",
            "log_get_print_level", "nvmf_create_transport", "nvmf_get_transports", "nvmf_subsystem_remove_listener",
            "bdev_malloc_create", "bdev_malloc_delete", "bdev_null_create", "bdev_null_delete", "bdev_aio_create",
            "bdev_aio_delete", "bdev_get_bdevs", "bdev_get_iostat", "bdev_wait_for_examine");
    /** SPDK's log levels, mapped to DOCA's. */
    private static final Map<String, Integer> LEVELS = Map.of("ERROR", 30, "WARNING", 40, "NOTICE", 50, "INFO", 50,
            "DEBUG", 60);
    private static final long TICK_RATE = 1_000_000_000L; // ticks are nanoseconds

    private final Supplier<NvmfTarget> target;
    private volatile String logLevel = "NOTICE";
    private volatile String printLevel = "NOTICE";

    SpdkMethods(Supplier<NvmfTarget> target) {
        this.target = target;
    }

    Object call(String method, JsonNode params) throws Exception {
        NvmfTarget t = target.get();
        switch (method) {
            case "spdk_get_version": {
                new RpcServer.Params(params, "");
                Map<String, Object> fields = new LinkedHashMap<>();
                fields.put("major", 25);
                fields.put("minor", 9);
                fields.put("patch", 0);
                fields.put("suffix", "-jdoca-" + DocaFlags.jdocaVersion());
                return Map.of("version", "SPDK v25.09 RPC dialect (jdoca " + DocaFlags.jdocaVersion() + ")", "fields", fields);
            }
            case "framework_wait_init", "bdev_wait_for_examine": {
                new RpcServer.Params(params, "");
                return true; // the target is up before its socket answers; jdoca examines nothing
            }
            case "framework_get_subsystems": {
                new RpcServer.Params(params, "");
                return List.of(Map.of("subsystem", "bdev", "depends_on", List.of()),
                        Map.of("subsystem", "nvmf", "depends_on", List.of("bdev")));
            }
            case "framework_get_config": {
                RpcServer.Params p = new RpcServer.Params(params, "", "name");
                String name = p.str("name", true);
                return switch (name) {
                    case "bdev" -> t.query("framework_get_config", () -> bdevConfig(t));
                    case "nvmf" -> t.query("framework_get_config", () -> nvmfConfig(t));
                    default -> throw new RpcError(-19, "No such device: jdoca has the subsystems bdev and nvmf, not " + name);
                };
            }
            case "save_config": {
                new RpcServer.Params(params, "");
                return t.query("save_config", () -> saveConfig(t));
            }
            case "log_set_level", "log_set_print_level": {
                RpcServer.Params p = new RpcServer.Params(params, "", "level");
                String l = p.str("level", true).toUpperCase(Locale.ROOT);
                Integer doca = LEVELS.get(l);
                if (doca == null) {
                    throw new ConfigException("level", "\"" + l + "\" is not one of ERROR, WARNING, NOTICE, INFO, DEBUG");
                }
                if (method.equals("log_set_level")) {
                    logLevel = l;
                } else {
                    printLevel = l;
                }
                DocaLogLevel.apply(doca);
                return true;
            }
            case "log_get_level": {
                new RpcServer.Params(params, "");
                return logLevel;
            }
            case "log_get_print_level": {
                new RpcServer.Params(params, "");
                return printLevel;
            }
            case "nvmf_create_transport":
                return createTransport(t, params);
            case "nvmf_get_transports": {
                RpcServer.Params p = new RpcServer.Params(params, "", "trtype", "tgt_name");
                p.noTarget();
                String only = p.str("trtype", false);
                List<Map<String, Object>> out = new ArrayList<>();
                for (var e : effectiveTransports(t).entrySet()) {
                    if (only == null || only.equalsIgnoreCase(e.getKey())) {
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("trtype", e.getKey());
                        m.putAll(e.getValue());
                        out.add(m);
                    }
                }
                if (only != null && out.isEmpty()) {
                    throw new RpcError(-19, "No such device: no transport " + only);
                }
                return out;
            }
            case "nvmf_subsystem_remove_listener": {
                RpcServer.Params p = new RpcServer.Params(params, "", "nqn", "listen_address", "tgt_name");
                p.noTarget();
                String nqn = p.str("nqn", true);
                if (!p.has("listen_address")) {
                    throw new ConfigException("listen_address", "missing (required)");
                }
                RpcServer.Params a = new RpcServer.Params(p.node("listen_address"), "listen_address", "trtype", "adrfam",
                        "traddr", "trsvcid");
                String trtype = a.str("trtype", false);
                if (trtype != null && !trtype.equalsIgnoreCase("tcp") && !trtype.equalsIgnoreCase("rdma")) {
                    throw new ConfigException("listen_address.trtype", "\"" + trtype + "\": jdoca's target speaks TCP and RDMA");
                }
                String addr = a.str("traddr", true);
                int port = RpcServer.port(a.str("trsvcid", true));
                try {
                    t.removeSubsystemListener(nqn, trtype == null ? "TCP" : trtype.toUpperCase(Locale.ROOT), addr, port);
                } catch (DocaException e) {
                    throw new RpcError(-32602, "Invalid parameters: " + errno(e).getMessage().replaceFirst("^[^:]*: ", ""));
                }
                return true;
            }
            case "nvmf_get_stats":
                return t.query("nvmf_get_stats", () -> stats(t, params));
            case "bdev_malloc_create", "bdev_null_create":
                return createMallocOrNull(t, method.equals("bdev_malloc_create") ? Bdev.Module.MALLOC : Bdev.Module.NULL, params);
            case "bdev_aio_create": {
                RpcServer.Params p = new RpcServer.Params(params, "", "filename", "name", "block_size", "readonly", "fallocate", "uuid");
                p.onlyDefault("readonly", false);
                p.onlyDefault("fallocate", false);
                Long bs = p.integer("block_size", false, 0, 1 << 20);
                Path f = Path.of(p.str("filename", true));
                return bdevCall(() -> t.createBdev(Bdev.Module.AIO, p.str("name", true), bs == null || bs == 0 ? 512 : bs.intValue(),
                        0, uuid(p, "uuid"), f).name());
            }
            case "bdev_malloc_delete", "bdev_null_delete", "bdev_aio_delete": {
                RpcServer.Params p = new RpcServer.Params(params, "", "name");
                String name = p.str("name", true);
                Bdev.Module m = method.startsWith("bdev_malloc") ? Bdev.Module.MALLOC
                        : method.startsWith("bdev_null") ? Bdev.Module.NULL : Bdev.Module.AIO;
                return bdevCall(() -> {
                    t.deleteBdev(m, name);
                    return true;
                });
            }
            case "bdev_get_bdevs": {
                RpcServer.Params p = new RpcServer.Params(params, "", "name", "timeout");
                p.integer("timeout", false, 0, Integer.MAX_VALUE);
                String name = p.str("name", false);
                List<Map<String, Object>> out = new ArrayList<>();
                for (Bdev d : t.bdevs()) {
                    if (name == null || name.equals(d.name())) {
                        out.add(d.describe());
                    }
                }
                if (name != null && out.isEmpty()) {
                    throw new RpcError(-19, "No such device: no bdev " + name);
                }
                return out;
            }
            case "bdev_get_iostat": {
                RpcServer.Params p = new RpcServer.Params(params, "", "name", "per_channel");
                p.onlyDefault("per_channel", false);
                String name = p.str("name", false);
                List<Map<String, Object>> out = new ArrayList<>();
                for (Bdev d : t.bdevs()) {
                    if (name == null || name.equals(d.name())) {
                        out.add(d.iostat());
                    }
                }
                if (name != null && out.isEmpty()) {
                    throw new RpcError(-19, "No such device: no bdev " + name);
                }
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("tick_rate", TICK_RATE);
                r.put("ticks", System.nanoTime());
                r.put("bdevs", out);
                return r;
            }
            default:
                throw new NoSuchMethodException(method);
        }
    }

    /** Runs a bdev operation, answering DOCA errors with SPDK's errno codes. */
    private static Object bdevCall(Supplier<Object> op) {
        try {
            return op.get();
        } catch (DocaException e) {
            throw errno(e);
        }
    }

    static RpcError errno(DocaException ex) {
        DocaError d = ex.error();
        String msg = ex.getMessage().replaceAll(" \\(DOCA_ERROR_[A-Z_]+: [^)]*\\)$", "");
        RuntimeException e = new RuntimeException(msg);
        if (d == DocaError.NOT_FOUND) {
            return new RpcError(-19, "No such device: " + e.getMessage());
        } else if (d == DocaError.IN_USE) {
            return new RpcError(-16, "Device or resource busy: " + e.getMessage());
        } else if (d == DocaError.ALREADY_EXIST) {
            return new RpcError(-17, "File exists: " + e.getMessage());
        } else if (d == DocaError.NO_MEMORY || d == DocaError.FULL) {
            return new RpcError(-12, "Cannot allocate memory: " + e.getMessage());
        }
        return new RpcError(-5, "Input/output error: " + e.getMessage());
    }

    private static Object createMallocOrNull(NvmfTarget t, Bdev.Module m, JsonNode params) {
        RpcServer.Params p = m == Bdev.Module.MALLOC
                ? new RpcServer.Params(params, "", "name", "num_blocks", "block_size", "physical_block_size", "uuid",
                        "optimal_io_boundary", "md_size", "md_interleave", "dif_type", "dif_is_head_of_md", "dif_pi_format")
                : new RpcServer.Params(params, "", "name", "num_blocks", "block_size", "physical_block_size", "uuid",
                        "md_size", "dif_type", "dif_is_head_of_md", "dif_pi_format", "preferred_write_alignment",
                        "preferred_write_granularity", "optimal_write_size");
        for (String k : List.of("md_size", "dif_type")) {
            p.onlyDefault(k, 0);
        }
        p.onlyDefault("md_interleave", false);
        p.onlyDefault("dif_is_head_of_md", false);
        long blocks = p.integer("num_blocks", true, 1, Long.MAX_VALUE);
        int bs = p.integer("block_size", true, 1, 1 << 20).intValue();
        Long pbs = p.integer("physical_block_size", false, 0, 1 << 20);
        if (pbs != null && pbs != 0 && pbs != bs) {
            throw new ConfigException("physical_block_size", "jdoca bdevs have physical_block_size = block_size");
        }
        // SPDK names an unnamed malloc bdev MallocN.
        String name = p.str("name", m == Bdev.Module.NULL);
        if (name == null) {
            int i = 0;
            while (t.bdev("Malloc" + i) != null) {
                i++;
            }
            name = "Malloc" + i;
        }
        String n = name;
        UUID u = uuid(p, "uuid");
        return bdevCall(() -> t.createBdev(m, n, bs, blocks, u, null).name());
    }

    private static UUID uuid(RpcServer.Params p, String k) {
        String s = p.str(k, false);
        if (s == null) {
            return null;
        }
        try {
            return UUID.fromString(s);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(k, "\"" + s + "\" is not a UUID");
        }
    }

    // ------------------------------------------------------------------ transports

    /** The options both transports report: SPDK's names, jdoca's values where they are fixed at start. */
    private static Map<String, Object> commonDefaults(NvmfTarget t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("max_queue_depth", Sta.MAX_IO_QUEUE_SIZE);
        m.put("max_io_qpairs_per_ctrlr", NvmfTarget.MAX_IO_QUEUES);
        m.put("in_capsule_data_size", t.sta().inCapsuleDataSize());
        m.put("max_io_size", t.sta().getMaxIoSize());
        m.put("io_unit_size", t.sta().getMaxIoSize());
        m.put("max_aq_depth", 128);
        m.put("num_shared_buffers", 511);
        m.put("buf_cache_size", 4294967295L);
        m.put("dif_insert_or_strip", false);
        m.put("zcopy", false);
        return m;
    }

    /** SPDK's TCP defaults, with the values jdoca actually uses where they are fixed. */
    private static Map<String, Object> tcpDefaults(NvmfTarget t) {
        Map<String, Object> m = commonDefaults(t);
        m.put("c2h_success", true);
        m.put("sock_priority", 0);
        m.put("abort_timeout_sec", 1);
        m.put("ack_timeout", 0);
        m.put("data_wr_pool_size", 0);
        return m;
    }

    /** The transports as reported: those created, plus TCP / RDMA with their defaults once a listener of theirs exists. */
    private static Map<String, Map<String, Object>> effectiveTransports(NvmfTarget t) {
        Map<String, Map<String, Object>> tr = t.transports();
        for (String type : List.of("TCP", "RDMA")) {
            if (!tr.containsKey(type) && t.listeners().stream().anyMatch(l -> type.equals(l.get("trtype")))) {
                tr.put(type, type.equals("TCP") ? tcpDefaults(t) : rdmaDefaults(t));
            }
        }
        return tr;
    }

    /** SPDK's RDMA defaults, with jdoca's values where they are fixed (queue depth from the host, 32 data buffers per queue pair). */
    private static Map<String, Object> rdmaDefaults(NvmfTarget t) {
        Map<String, Object> m = commonDefaults(t);
        m.put("max_srq_depth", 0);
        m.put("no_srq", true);
        m.put("acceptor_backlog", 128);
        m.put("no_wr_batching", false);
        m.put("abort_timeout_sec", 1);
        return m;
    }

    private static Object createTransport(NvmfTarget t, JsonNode params) {
        RpcServer.Params p = new RpcServer.Params(params, "", "trtype", "tgt_name", "max_queue_depth", "max_io_qpairs_per_ctrlr",
                "max_qpairs_per_ctrlr", "in_capsule_data_size", "max_io_size", "io_unit_size", "max_aq_depth", "num_shared_buffers",
                "buf_cache_size", "zcopy", "num_cqe", "max_srq_depth", "no_srq", "c2h_success", "dif_insert_or_strip",
                "sock_priority", "acceptor_backlog", "abort_timeout_sec", "no_wr_batching", "control_msg_num",
                "disable_mappable_bar0", "disable_adaptive_irq", "disable_shadow_doorbells", "acceptor_poll_rate",
                "ack_timeout", "data_wr_pool_size", "disable_command_passthru", "kas", "min_kato");
        p.noTarget();
        String tr = p.str("trtype", true).toUpperCase(Locale.ROOT);
        if (!tr.equals("TCP") && !tr.equals("RDMA")) {
            throw new RpcError(-32602, "Invalid parameters: trtype: transport type '" + tr + "' not found (jdoca's target speaks TCP and RDMA)");
        }
        Map<String, Object> opts = tr.equals("RDMA") ? rdmaDefaults(t) : tcpDefaults(t);
        if (tr.equals("RDMA") && Boolean.FALSE.equals(p.bool("no_srq"))) {
            // rpc.py sends no_srq=false unless --no-srq is given (SPDK's default): refusing it would make the
            // plain `rpc.py nvmf_create_transport -t RDMA` fail. jdoca's queue pairs have receive queues of
            // their own (no SRQ); that changes resource use, not behaviour, so it is accepted and reported.
            LOG.info("nvmf_create_transport no_srq=false: jdoca's RDMA transport has no shared receive queue; "
                    + "each queue pair posts its own receives (reported as no_srq=true)");
        }
        p.onlyDefault("zcopy", false);
        p.onlyDefault("dif_insert_or_strip", false);
        // Limits jdoca fixes at start: the value in effect, or SPDK's own default (so a config saved
        // from SPDK loads; jdoca's value is what is reported), else refused.
        Map<String, Long> spdkDefault = Map.of("max_queue_depth", 128L, "max_io_qpairs_per_ctrlr", 127L,
                "in_capsule_data_size", 4096L, "max_io_size", 131072L, "io_unit_size", 131072L, "max_aq_depth", 128L);
        Map<String, Object> fixed = new LinkedHashMap<>();
        for (String k : spdkDefault.keySet()) {
            Long v = p.integer(k, false, 0, Integer.MAX_VALUE);
            long eff = ((Number) opts.get(k)).longValue();
            if (v != null && v != eff) {
                if (!v.equals(spdkDefault.get(k)) && !k.equals("io_unit_size")) {
                    throw new ConfigException(k, v + ": jdoca's target uses " + eff + " (fixed at start"
                            + (k.equals("max_io_size") ? "; max_io_size in the -j config)" : ")"));
                }
                LOG.info("nvmf_create_transport {}={}: jdoca uses {}", k, v, eff);
            }
            fixed.put(k, v == null || !k.equals("io_unit_size") ? eff : v);
        }
        if (p.has("max_qpairs_per_ctrlr")) {
            long v = p.integer("max_qpairs_per_ctrlr", false, 1, 65535);
            if (v > NvmfTarget.MAX_IO_QUEUES + 1 && v != 128) {
                throw new ConfigException("max_qpairs_per_ctrlr", v + ": jdoca's controllers have 1 admin and at most "
                        + NvmfTarget.MAX_IO_QUEUES + " I/O queues");
            }
        }
        // Accepted and reported; TCP-irrelevant or tuning-only in jdoca.
        for (var it = params == null ? java.util.Collections.<String>emptyIterator() : params.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!k.equals("trtype") && !k.equals("tgt_name") && !k.equals("max_qpairs_per_ctrlr")) {
                opts.put(k, RpcServer.MAPPER.convertValue(params.get(k), Object.class));
            }
        }
        opts.putAll(fixed);
        if (tr.equals("RDMA")) {
            opts.put("no_srq", true); // what jdoca runs, whatever was asked (see above)
        }
        try {
            t.createTransport(tr, opts);
        } catch (DocaException e) {
            throw new RpcError(-32602, "Invalid parameters: " + e.getMessage());
        }
        return true;
    }

    // ------------------------------------------------------------------ stats

    private static Object stats(NvmfTarget t, JsonNode params) {
        RpcServer.Params p = new RpcServer.Params(params, "", "tgt_name");
        p.noTarget();
        List<NvmfController> ctrls = t.controllers();
        List<Map<String, Object>> groups = new ArrayList<>();
        for (StaIo io : t.ioContexts()) {
            StaStats s = io.stats();
            long admin = ctrls.stream().filter(c -> c.adminQp().io() == io).count();
            Map<String, Object> g = new LinkedHashMap<>();
            g.put("name", "nvmf_tgt_poll_group_" + String.format("%03d", groups.size()));
            g.put("admin_qpairs", admin);
            g.put("io_qpairs", Math.max(0, s.get("qps_live") - admin));
            g.put("current_admin_qpairs", admin);
            g.put("current_io_qpairs", Math.max(0, s.get("qps_live") - admin));
            g.put("pending_bdev_io", 0);
            g.put("completed_nvme_io", s.get("reads") + s.get("writes"));
            Map<String, Object> tr = new LinkedHashMap<>();
            tr.put("trtype", "TCP");
            tr.put("jdoca_engine", io.name());
            tr.putAll(s.values());
            g.put("transports", List.of(tr));
            groups.add(g);
        }
        List<Map<String, Object>> detail = new ArrayList<>();
        for (StaStats s : t.stats()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("scope", s.scope());
            m.put("name", s.name());
            m.putAll(s.values());
            detail.add(m);
        }
        // jdoca's addition: back-end (bdev) latency per namespace, from the engines' HdrHistograms.
        List<Map<String, Object>> lat = new ArrayList<>();
        for (NvmfSubsystem sub : t.subsystems()) {
            if (sub.isDiscovery()) {
                continue;
            }
            for (StaNamespace ns : sub.sta().namespaces()) {
                Bdev b = t.bdevOf(ns.backend());
                if (b != null && b.latencyUs("read") != null) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("nqn", sub.nqn());
                    m.put("nsid", ns.nsid());
                    m.put("bdev_name", b.name());
                    m.put("read", b.latencyUs("read"));
                    m.put("write", b.latencyUs("write"));
                    lat.add(m);
                }
            }
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("tick_rate", TICK_RATE);
        r.put("poll_groups", groups);
        r.put("jdoca_latency", lat);
        r.put("jdoca", detail);
        return r;
    }

    // ------------------------------------------------------------------ save_config

    static Map<String, Object> saveConfig(NvmfTarget t) {
        return Map.of("subsystems", List.of(
                subsystem("bdev", bdevConfig(t)),
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

    static List<Map<String, Object>> bdevConfig(NvmfTarget t) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Bdev d : t.bdevs()) {
            out.add(d.configEntry());
        }
        out.add(entry("bdev_wait_for_examine", null));
        return out;
    }

    static List<Map<String, Object>> nvmfConfig(NvmfTarget t) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (var e : effectiveTransports(t).entrySet()) {
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
            c.put("min_cntlid", 1);
            c.put("max_cntlid", 0xffef);
            c.put("ana_reporting", false);
            out.add(entry("nvmf_create_subsystem", c));
            for (Map<String, Object> a : t.listenAddresses(s)) {
                Map<String, Object> l = new LinkedHashMap<>();
                l.put("nqn", s.nqn());
                l.put("secure_channel", false);
                l.put("listen_address", a);
                out.add(entry("nvmf_subsystem_add_listener", l));
            }
            for (String h : s.hosts().stream().sorted().toList()) {
                out.add(entry("nvmf_subsystem_add_host", new LinkedHashMap<>(Map.of("nqn", s.nqn(), "host", h))));
            }
            for (StaNamespace ns : s.sta().namespaces()) {
                Bdev d = t.bdevOf(ns.backend());
                Map<String, Object> n = new LinkedHashMap<>();
                n.put("nsid", ns.nsid());
                n.put("bdev_name", d != null ? d.name() : ns.backend().name());
                n.put("nguid", HexFormat.of().withUpperCase().formatHex(s.nguid(ns.nsid())));
                n.put("uuid", s.uuid(ns.nsid()).toString());
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
