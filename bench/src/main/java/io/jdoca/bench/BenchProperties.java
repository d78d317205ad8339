package io.jdoca.bench;

import io.jdoca.core.config.JdocaProperty;
import java.util.List;

/**
 * The {@code jdoca.bench.*} JVM system properties of module bench: knobs for tuning one transport
 * with {@code ./jdoca bench rdma}. docs/CONFIGURATION.md lists them with every other module's (a test
 * compares the table with {@link #ALL}).
 *
 * <p>Constants; any thread. Read when a run starts.
 */
public final class BenchProperties {
    public static final JdocaProperty RDMA_TRANSPORTS = new JdocaProperty("jdoca.bench.rdma.transports", "shm,tcp",
            "The transports ./jdoca bench rdma measures (comma list of shm, tcp).");
    public static final JdocaProperty RDMA_YIELD = new JdocaProperty("jdoca.bench.rdma.yield", "false",
            "true: bench rdma's tcp runs wait for completions by yielding instead of the engine's notification.");

    /** Every property of the module. */
    public static final List<JdocaProperty> ALL = List.of(RDMA_TRANSPORTS, RDMA_YIELD);

    private BenchProperties() {
    }
}
