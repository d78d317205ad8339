package io.jdoca.nvmf.rpc;

import io.jdoca.core.util.DocaLogLevel;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.JsonParams;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SPDK's log methods ({@code lib/event/log_rpc.c}): {@code log_set_level}, {@code log_get_level},
 * {@code log_set_print_level}, {@code log_get_print_level} (SPDK's levels mapped to DOCA's), and
 * the component flags {@code log_set_flag}, {@code log_clear_flag}, {@code log_get_flags}. A flag
 * is one of jdoca's components, named as SPDK names its log flags ({@code nvmf}, {@code nvmf_tcp},
 * {@code rdma}, {@code bdev}, {@code rpc}, {@code sta}); setting it logs that component's debug
 * lines (its Logback loggers at DEBUG), clearing it returns them to the process level. Every
 * method may run before and after {@code framework_start_init}, as in SPDK.
 *
 * <p>Threads: any RPC thread; the levels are volatile and the flags a concurrent map (last writer
 * wins, as in SPDK).
 */
final class LogRpcs implements RpcRegistry.Family {
    private static final Logger LOG = LoggerFactory.getLogger(LogRpcs.class);
    /** SPDK's log levels, mapped to DOCA's. */
    private static final Map<String, Integer> LEVELS = Map.of("ERROR", 30, "WARNING", 40, "NOTICE", 50, "INFO", 50,
            "DEBUG", 60);
    /** jdoca's log flags: SPDK's flag name → the logger (package) it covers. */
    static final Map<String, String> FLAGS = flags();

    private volatile String logLevel = "NOTICE";
    private volatile String printLevel = "NOTICE";
    private final Map<String, Boolean> enabled = new ConcurrentHashMap<>();

    private static Map<String, String> flags() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("bdev", "io.jdoca.nvmf.bdev");
        m.put("nvmf", "io.jdoca.nvmf.tgt");
        m.put("nvmf_tcp", "io.jdoca.sta.nvmf.tcp");
        m.put("rdma", "io.jdoca.sta.nvmf.rdma");
        m.put("rpc", "io.jdoca.nvmf.rpc");
        m.put("sta", "io.jdoca.sta");
        return m;
    }

    @Override
    public void registerWith(RpcRegistry r) {
        int any = RpcRegistry.STARTUP | RpcRegistry.RUNTIME;
        r.register("log_set_level", any, LogRpcs::level, l -> {
            logLevel = l;
            DocaLogLevel.apply(LEVELS.get(l));
            return true;
        });
        r.register("log_get_level", any, FrameworkRpcs::none, a -> logLevel);
        r.register("log_set_print_level", any, LogRpcs::level, l -> {
            printLevel = l;
            DocaLogLevel.apply(LEVELS.get(l));
            return true;
        });
        r.register("log_get_print_level", any, FrameworkRpcs::none, a -> printLevel);
        r.register("log_set_flag", any, LogRpcs::flag, f -> setFlag(f, true));
        r.register("log_clear_flag", any, LogRpcs::flag, f -> setFlag(f, false));
        r.register("log_get_flags", any, FrameworkRpcs::none, a -> {
            Map<String, Boolean> m = new LinkedHashMap<>();
            for (String f : FLAGS.keySet()) {
                m.put(f, enabled.getOrDefault(f, false));
            }
            return m;
        });
    }

    private static String level(com.fasterxml.jackson.databind.JsonNode params) {
        String l = new JsonParams(params, "", "level").str("level", true).toUpperCase(Locale.ROOT);
        if (!LEVELS.containsKey(l)) {
            throw new ConfigException("level", "\"" + l + "\" is not one of ERROR, WARNING, NOTICE, INFO, DEBUG");
        }
        return l;
    }

    /** A flag name or "all"; an unknown one is SPDK's -32602 "invalid log flag". */
    private static String flag(com.fasterxml.jackson.databind.JsonNode params) {
        String f = new JsonParams(params, "", "flag").str("flag", true);
        if (!f.equals("all") && !FLAGS.containsKey(f)) {
            throw new RpcError(-32602, "invalid log flag: \"" + f + "\" is not one of all, "
                    + String.join(", ", FLAGS.keySet()));
        }
        return f;
    }

    private boolean setFlag(String flag, boolean on) {
        for (var e : FLAGS.entrySet()) {
            if (flag.equals("all") || flag.equals(e.getKey())) {
                enabled.put(e.getKey(), on);
                loggerLevel(e.getValue(), on ? "DEBUG" : null);
            }
        }
        LOG.info("log flag {} {}", flag, on ? "set" : "cleared");
        return true;
    }

    /** Sets a Logback logger's level (null: inherit); without Logback the flag is only recorded. */
    private static void loggerLevel(String logger, String level) {
        try {
            Object l = LoggerFactory.getLogger(logger);
            Class<?> levelCls = Class.forName("ch.qos.logback.classic.Level");
            Object v = level == null ? null : levelCls.getMethod("toLevel", String.class).invoke(null, level);
            l.getClass().getMethod("setLevel", levelCls).invoke(l, v);
        } catch (ReflectiveOperationException | LinkageError e) {
            LOG.debug("log flag for {}: no Logback ({})", logger, e.toString());
        }
    }
}
