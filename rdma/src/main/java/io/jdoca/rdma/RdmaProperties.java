package io.jdoca.rdma;

import io.jdoca.core.config.JdocaProperty;
import java.util.List;

/**
 * The {@code jdoca.rdma.*} JVM system properties of module rdma: the transport a context starts with
 * and the tcp transport's tuning knobs, kept for A/B measurements. docs/CONFIGURATION.md lists them
 * with every other module's (a test compares the table with {@link #ALL}).
 *
 * <p>Constants; any thread. Each user reads its property when it did before (the transport when a
 * context is created, the tcp knobs once at class initialization).
 */
public final class RdmaProperties {
    public static final JdocaProperty TRANSPORT = new JdocaProperty("jdoca.rdma.transport", "auto",
            "The transport a new context starts with: auto, shm, tcp or verbs (an app's or the API's choice "
                    + "still overrides it); an unknown name fails the context's creation.");
    public static final JdocaProperty TCP_THREADING = new JdocaProperty("jdoca.rdma.tcp.threading", "invoker",
            "Who runs a context's tcp transport agent: invoker (the progress engine's thread, inside progress()) "
                    + "or dedicated (a thread of its own per context).");
    public static final JdocaProperty TCP_SPIN_NANOS = new JdocaProperty("jdoca.rdma.tcp.spinNanos", "50000",
            "dedicated threading: how long (ns) after its last work the tcp agent keeps looking without sleeping.");
    public static final JdocaProperty TCP_YIELD_AFTER_WORK = new JdocaProperty("jdoca.rdma.tcp.yieldAfterWork",
            "true", "dedicated threading: false: the tcp agent does not yield after a duty cycle that did work.");
    public static final JdocaProperty TCP_DIRECT_POLL_MAX = new JdocaProperty("jdoca.rdma.tcp.directPollMax", "4",
            "While traffic is recent, a tcp agent serving at most this many sockets reads them directly instead of "
                    + "polling its selector first; 0: always the selector.");
    public static final JdocaProperty TCP_COALESCE = new JdocaProperty("jdoca.rdma.tcp.coalesce", "65536",
            "Payloads up to this many bytes are copied behind their header and leave in one socket write; larger "
                    + "ones are written from registered memory after it.");

    /** Every property of the module. */
    public static final List<JdocaProperty> ALL = List.of(TRANSPORT, TCP_THREADING, TCP_SPIN_NANOS,
            TCP_YIELD_AFTER_WORK, TCP_DIRECT_POLL_MAX, TCP_COALESCE);

    private RdmaProperties() {
    }
}
