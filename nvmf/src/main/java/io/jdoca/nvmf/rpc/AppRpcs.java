package io.jdoca.nvmf.rpc;

import io.jdoca.nvmf.config.JsonParams;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.nvmf.tgt.NvmfTargetOps;
import io.jdoca.nvmf.tgt.NvmfThreads;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * SPDK's application methods ({@code lib/event/app_rpc.c} and {@code lib/event/app.c}):
 * {@code spdk_kill_instance} (the signal taken as the process takes it: SIGINT, SIGTERM and SIGHUP
 * stop the target gracefully, SIGKILL ends the process at once), {@code framework_start_init}
 * ({@code sta-target --wait-for-rpc}: starts the target), {@code framework_get_reactors} and
 * {@code thread_get_stats} (sta-main and the IO engines as SPDK's reactors and threads; ticks are
 * nanoseconds).
 *
 * <p>Threads: handlers on the RPC client's thread; thread figures are read as one {@code sta-main}
 * command; the application's hooks are {@link RpcFramework}'s.
 */
final class AppRpcs implements RpcRegistry.Family {
    /** SPDK's signals and numbers ({@code rpc_spdk_kill_instance}). */
    private static final Map<String, Integer> SIGNALS = Map.of("SIGINT", 2, "SIGTERM", 15, "SIGQUIT", 3, "SIGHUP", 1,
            "SIGKILL", 9, "SIGUSR1", 10);

    private final Supplier<NvmfTarget> target;
    private final RpcFramework framework;

    AppRpcs(Supplier<NvmfTarget> target, RpcFramework framework) {
        this.target = target;
        this.framework = framework;
    }

    @Override
    public void registerWith(RpcRegistry r) {
        r.register("spdk_kill_instance", AppRpcs::signal, sig -> {
            RpcFramework.App app = app();
            if (sig.equals("SIGQUIT") || sig.equals("SIGUSR1")) {
                throw new RpcError(-95, "Operation not supported: " + sig + " would not end jdoca as it ends SPDK "
                        + "(the JVM takes SIGQUIT as a thread dump); use SIGTERM, SIGINT, SIGHUP or SIGKILL");
            }
            return new RpcFramework.AfterAnswer(true, () -> app.kill(sig));
        });
        r.register("framework_start_init", RpcRegistry.STARTUP, FrameworkRpcs::none, a -> {
            app().startInit();
            framework.initialized();
            return true;
        });
        r.register("framework_get_reactors", FrameworkRpcs::none, a -> reactors());
        r.register("thread_get_stats", FrameworkRpcs::none, a -> threads());
    }

    private RpcFramework.App app() {
        RpcFramework.App app = framework.app();
        if (app == null) {
            throw new RpcError(-32603, "Internal error: no application runs this RPC server");
        }
        return app;
    }

    /** The signal's name: SPDK takes a name or its number. */
    private static String signal(com.fasterxml.jackson.databind.JsonNode p) {
        JsonParams a = new JsonParams(p, "", "sig_name");
        String s = a.str("sig_name", true).toUpperCase(Locale.ROOT);
        for (var e : SIGNALS.entrySet()) {
            if (e.getKey().equals(s) || String.valueOf(e.getValue()).equals(s)) {
                return e.getKey();
            }
        }
        throw new RpcError(-32602, "Invalid parameters: sig_name: \"" + s + "\" is not one of SIGINT, SIGTERM, "
                + "SIGQUIT, SIGHUP, SIGKILL, SIGUSR1");
    }

    private Map<String, Object> reactors() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (NvmfThreads.ThreadStat t : NvmfTargetOps.threads(target.get())) {
            Map<String, Object> lw = new LinkedHashMap<>();
            lw.put("name", t.name());
            lw.put("id", t.id());
            lw.put("cpumask", t.cpumask());
            lw.put("elapsed", t.elapsedNanos());
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("lcore", t.lcore());
            m.put("tid", t.tid());
            m.put("busy", t.busyNanos());
            m.put("idle", t.idleNanos());
            m.put("in_interrupt", false);
            m.put("irq", 0L); // per-thread interrupt time is not kept by Linux
            m.put("sys", t.systemTicks());
            m.put("usr", t.userTicks());
            m.put("lw_threads", List.of(lw));
            out.add(m);
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("tick_rate", NvmfStatsRpcs.TICK_RATE);
        r.put("pid", ProcessHandle.current().pid());
        r.put("reactors", out);
        return r;
    }

    private Map<String, Object> threads() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (NvmfThreads.ThreadStat t : NvmfTargetOps.threads(target.get())) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", t.name());
            m.put("id", t.id());
            m.put("cpumask", t.cpumask());
            m.put("busy", t.busyNanos());
            m.put("idle", t.idleNanos());
            m.put("in_interrupt", false);
            m.put("active_pollers_count", t.activePollers());
            m.put("timed_pollers_count", t.timedPollers());
            m.put("paused_pollers_count", 0);
            out.add(m);
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("tick_rate", NvmfStatsRpcs.TICK_RATE);
        r.put("threads", out);
        return r;
    }
}
