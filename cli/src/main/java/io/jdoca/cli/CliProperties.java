package io.jdoca.cli;

import io.jdoca.core.config.JdocaProperty;
import java.util.List;

/**
 * The {@code jdoca.*} JVM system properties of module cli, the launcher (the log level it also reads is
 * core's {@code CoreProperties.LOG_LEVEL}). docs/CONFIGURATION.md lists them with every other
 * module's (a test compares the table with {@link #ALL}).
 *
 * <p>Constants; any thread. Read when a command fails; {@link #PID} is written once, at start-up.
 */
public final class CliProperties {
    public static final JdocaProperty DEBUG = new JdocaProperty("jdoca.debug", "false",
            "true: a failed command prints its stack trace after its one-line error (as -l 60 does).");
    public static final JdocaProperty PID = new JdocaProperty("jdoca.pid", "",
            "Not a setting: the launcher sets it to its process id, which LogbackConfigurator puts in every log line.");

    /** Every property of the module. */
    public static final List<JdocaProperty> ALL = List.of(DEBUG, PID);

    private CliProperties() {
    }
}
