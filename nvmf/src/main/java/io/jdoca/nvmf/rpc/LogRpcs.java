package io.jdoca.nvmf.rpc;

import io.jdoca.core.util.DocaLogLevel;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.JsonParams;
import java.util.Locale;
import java.util.Map;

/**
 * SPDK's log methods ({@code lib/log/log_rpc.c}): {@code log_set_level}, {@code log_get_level},
 * {@code log_set_print_level}, {@code log_get_print_level}; SPDK's levels mapped to DOCA's.
 *
 * <p>Threads: any RPC thread; the two levels are volatile (last writer wins, as in SPDK).
 */
final class LogRpcs implements RpcRegistry.Family {
    /** SPDK's log levels, mapped to DOCA's. */
    private static final Map<String, Integer> LEVELS = Map.of("ERROR", 30, "WARNING", 40, "NOTICE", 50, "INFO", 50,
            "DEBUG", 60);

    private volatile String logLevel = "NOTICE";
    private volatile String printLevel = "NOTICE";

    @Override
    public void registerWith(RpcRegistry r) {
        r.register("log_set_level", LogRpcs::level, l -> {
            logLevel = l;
            DocaLogLevel.apply(LEVELS.get(l));
            return true;
        });
        r.register("log_get_level", FrameworkRpcs::none, a -> logLevel);
        r.register("log_set_print_level", LogRpcs::level, l -> {
            printLevel = l;
            DocaLogLevel.apply(LEVELS.get(l));
            return true;
        });
        r.register("log_get_print_level", FrameworkRpcs::none, a -> printLevel);
    }

    private static String level(com.fasterxml.jackson.databind.JsonNode params) {
        String l = new JsonParams(params, "", "level").str("level", true).toUpperCase(Locale.ROOT);
        if (!LEVELS.containsKey(l)) {
            throw new ConfigException("level", "\"" + l + "\" is not one of ERROR, WARNING, NOTICE, INFO, DEBUG");
        }
        return l;
    }
}
