package io.jdoca.nvmf.rpc;

import io.jdoca.nvmf.bdev.Bdev;
import io.jdoca.nvmf.config.JsonParams;
import io.jdoca.nvmf.tgt.NvmfSubsystem;
import io.jdoca.nvmf.tgt.EnginePause;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.nvmf.tgt.NvmfTargetOps;
import io.jdoca.sta.StaIo;
import io.jdoca.sta.StaNamespace;
import io.jdoca.sta.backend.StaStats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * SPDK's {@code nvmf_get_stats} ({@code lib/nvmf/nvmf_rpc.c}): one poll group per IO engine in
 * SPDK's shape, plus jdoca's own fields: each engine's longest pause and stall in microseconds
 * since start ({@code jdoca_max_pause_us}, {@code jdoca_max_stall_us}) and since
 * {@code jdoca_reset_engine_pauses} ({@code jdoca_window_max_pause_us},
 * {@code jdoca_window_max_stall_us}; see the target's {@code PauseMeter}), every STA counter
 * ({@code jdoca}) and the back-end latency
 * of each namespace ({@code jdoca_latency}). {@code jdoca_reset_engine_pauses} (jdoca's, after
 * SPDK's {@code bdev_reset_iostat} of max/min values) starts a new window.
 *
 * <p>Threads: handlers on the RPC client's thread; the view is taken as one {@code sta-main}
 * command (engine counters are single-writer fields read racily).
 */
final class NvmfStatsRpcs implements RpcRegistry.Family {
    static final long TICK_RATE = 1_000_000_000L; // ticks are nanoseconds

    private final Supplier<NvmfTarget> target;

    NvmfStatsRpcs(Supplier<NvmfTarget> target) {
        this.target = target;
    }

    @Override
    public void registerWith(RpcRegistry r) {
        r.register("nvmf_get_stats", p -> {
            JsonParams a = new JsonParams(p, "", "tgt_name");
            a.noTarget();
            return a;
        }, a -> {
            NvmfTarget t = target.get();
            return t.query("nvmf_get_stats", () -> stats(t));
        });
        r.register("jdoca_reset_engine_pauses", FrameworkRpcs::none, a -> {
            target.get().resetEnginePauses();
            return true;
        });
    }

    private static Map<String, Object> stats(NvmfTarget t) {
        List<long[]> qpairs = NvmfTargetOps.qpairCounts(t);
        List<EnginePause> pauses = t.enginePauses();
        List<Map<String, Object>> groups = new ArrayList<>();
        for (StaIo io : t.ioContexts()) {
            StaStats s = io.stats();
            long[] n = qpairs.get(groups.size()); // SPDK's admin_qpairs / io_qpairs count since start; current_* now
            Map<String, Object> g = new LinkedHashMap<>();
            g.put("name", NvmfTargetOps.pollGroupName(groups.size()));
            g.put("admin_qpairs", n[0]);
            g.put("io_qpairs", n[1]);
            g.put("current_admin_qpairs", n[2]);
            g.put("current_io_qpairs", n[3]);
            g.put("pending_bdev_io", 0);
            g.put("completed_nvme_io", s.get("reads") + s.get("writes"));
            EnginePause pause = pauses.get(groups.size());
            g.put("jdoca_max_pause_us", pause.maxNanos() / 1000);
            g.put("jdoca_window_max_pause_us", pause.windowMaxNanos() / 1000);
            g.put("jdoca_max_stall_us", pause.maxStallNanos() / 1000);
            g.put("jdoca_window_max_stall_us", pause.windowMaxStallNanos() / 1000);
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
}
