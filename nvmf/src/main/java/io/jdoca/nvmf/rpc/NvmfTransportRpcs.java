package io.jdoca.nvmf.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.core.DocaException;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.JsonParams;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.sta.Sta;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SPDK's transport methods ({@code lib/nvmf/nvmf_rpc.c}): {@code nvmf_create_transport} (TCP or
 * RDMA; the limits jdoca fixes at start are accepted at their value or at SPDK's default, which is
 * what configs saved from SPDK carry, and reported with jdoca's) and {@code nvmf_get_transports}
 * (those created, plus TCP and RDMA with their defaults once a listener of theirs exists).
 *
 * <p>Threads: handlers on the RPC client's thread; each target call is a {@code sta-main} command.
 */
final class NvmfTransportRpcs implements RpcRegistry.Family {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfTransportRpcs.class);
    /** Limits jdoca fixes at start, with SPDK's defaults (accepted, jdoca's value reported). */
    private static final Map<String, Long> SPDK_DEFAULTS = Map.of("max_queue_depth", 128L, "max_io_qpairs_per_ctrlr",
            127L, "in_capsule_data_size", 4096L, "max_io_size", 131072L, "io_unit_size", 131072L, "max_aq_depth", 128L);

    private final Supplier<NvmfTarget> target;

    NvmfTransportRpcs(Supplier<NvmfTarget> target) {
        this.target = target;
    }

    @Override
    public void registerWith(RpcRegistry r) {
        r.register("nvmf_create_transport", NvmfTransportRpcs::parseCreate, this::createTransport);
        r.register("nvmf_get_transports", p -> {
            JsonParams a = new JsonParams(p, "", "trtype", "tgt_name");
            a.noTarget();
            return Optional.ofNullable(a.str("trtype", false));
        }, only -> {
            List<Map<String, Object>> out = new ArrayList<>();
            for (var e : effectiveTransports(target.get()).entrySet()) {
                if (only.isEmpty() || only.get().equalsIgnoreCase(e.getKey())) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("trtype", e.getKey());
                    m.putAll(e.getValue());
                    out.add(m);
                }
            }
            if (only.isPresent() && out.isEmpty()) {
                throw new RpcError(-19, "No such device: no transport " + only.get());
            }
            return out;
        });
    }

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

    /** SPDK's RDMA defaults, with jdoca's values where fixed (queue depth from the host, no SRQ). */
    private static Map<String, Object> rdmaDefaults(NvmfTarget t) {
        Map<String, Object> m = commonDefaults(t);
        m.put("max_srq_depth", 0);
        m.put("no_srq", true);
        m.put("acceptor_backlog", 128);
        m.put("no_wr_batching", false);
        m.put("abort_timeout_sec", 1);
        return m;
    }

    /**
     * The transports as reported: those created, plus TCP / RDMA with their defaults once a
     * listener of theirs exists.
     */
    static Map<String, Map<String, Object>> effectiveTransports(NvmfTarget t) {
        Map<String, Map<String, Object>> tr = t.transports();
        List<Map<String, Object>> listeners = t.listeners();
        for (String type : List.of("TCP", "RDMA")) {
            if (!tr.containsKey(type) && listeners.stream().anyMatch(l -> type.equals(l.get("trtype")))) {
                tr.put(type, type.equals("TCP") ? tcpDefaults(t) : rdmaDefaults(t));
            }
        }
        return tr;
    }

    /** nvmf_create_transport's params, with the transport type checked (the options need the target). */
    private record Create(JsonParams p, String trtype) {
    }

    private static Create parseCreate(JsonNode params) {
        JsonParams p = new JsonParams(params, "", "trtype", "tgt_name", "max_queue_depth", "max_io_qpairs_per_ctrlr",
                "max_qpairs_per_ctrlr", "in_capsule_data_size", "max_io_size", "io_unit_size", "max_aq_depth",
                "num_shared_buffers", "buf_cache_size", "zcopy", "num_cqe", "max_srq_depth", "no_srq", "c2h_success",
                "dif_insert_or_strip", "sock_priority", "acceptor_backlog", "abort_timeout_sec", "no_wr_batching",
                "control_msg_num", "disable_mappable_bar0", "disable_adaptive_irq", "disable_shadow_doorbells",
                "acceptor_poll_rate", "ack_timeout", "data_wr_pool_size", "disable_command_passthru", "kas",
                "min_kato");
        p.noTarget();
        String tr = p.str("trtype", true).toUpperCase(Locale.ROOT);
        if (!tr.equals("TCP") && !tr.equals("RDMA")) {
            throw new RpcError(-32602, "Invalid parameters: trtype: transport type '" + tr
                    + "' not found (jdoca's target speaks TCP and RDMA)");
        }
        return new Create(p, tr);
    }

    private Object createTransport(Create c) {
        NvmfTarget t = target.get();
        JsonParams p = c.p();
        JsonNode params = p.tree();
        String tr = c.trtype();
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
        Map<String, Object> fixed = new LinkedHashMap<>();
        for (String k : SPDK_DEFAULTS.keySet()) {
            Long v = p.integer(k, false, 0, Integer.MAX_VALUE);
            long eff = ((Number) opts.get(k)).longValue();
            if (v != null && v != eff) {
                if (!v.equals(SPDK_DEFAULTS.get(k)) && !k.equals("io_unit_size")) {
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
        Iterator<String> it = params == null ? Collections.emptyIterator() : params.fieldNames();
        while (it.hasNext()) {
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
            throw new RpcError(-32602, "Invalid parameters: " + RpcError.plain(e));
        }
        return true;
    }
}
