package io.jdoca.storage.common;

import io.jdoca.core.config.JdocaProperty;
import java.util.List;

/**
 * The {@code jdoca.storage.*} and {@code jdoca.demo.*} JVM system properties of module storage: the
 * storage apps' data-path back-off and worker command timeout, and the demos' knobs.
 * docs/CONFIGURATION.md lists them with every other module's (a test compares the table with
 * {@link #ALL}).
 *
 * <p>Constants; any thread. Each user reads its property when it did before (the back-off each time
 * a worker is made, the command timeout once per class that keeps it, the demos' when they start).
 */
public final class StorageProperties {
    public static final JdocaProperty SPINS = new JdocaProperty("jdoca.storage.spins", "64",
            "Busy spins of an idle data-path loop before it starts yielding.");
    public static final JdocaProperty YIELDS = new JdocaProperty("jdoca.storage.yields", "16",
            "Yields of an idle data-path loop before it starts parking (from 1 µs, doubling).");
    public static final JdocaProperty MAX_PARK_NANOS = new JdocaProperty("jdoca.storage.maxParkNanos", "50000",
            "Longest park (ns) of an idle data-path loop; the demos give their children 1000000.");
    public static final JdocaProperty COMMAND_TIMEOUT_MS = new JdocaProperty("jdoca.storage.commandTimeoutMs",
            "60000", "How long (ms) a control command may take on a worker thread (creating and starting "
                    + "contexts, connecting, posting receives); the demos give their children 300000.");
    public static final JdocaProperty DEMO_TIMEOUT_SCALE = new JdocaProperty("jdoca.demo.timeoutScale", "",
            "Multiplies every start-up and run deadline of ./jdoca demo (0.1..100); empty: "
                    + "JDOCA_DEMO_TIMEOUT_SCALE, else 1.");
    public static final JdocaProperty DEMO_MAIN = new JdocaProperty("jdoca.demo.main", "io.jdoca.cli.Main",
            "The main class the zero-copy demo's child JVMs run.");

    /** Every property of the module. */
    public static final List<JdocaProperty> ALL = List.of(SPINS, YIELDS, MAX_PARK_NANOS, COMMAND_TIMEOUT_MS,
            DEMO_TIMEOUT_SCALE, DEMO_MAIN);

    private StorageProperties() {
    }
}
