package io.jdoca.core.config;

import io.jdoca.core.PeerLiveness;
import java.util.List;

/**
 * The {@code jdoca.*} JVM system properties of module core, and the launcher-wide ones every module
 * shares ({@code jdoca.home}, {@code jdoca.log.level}). docs/CONFIGURATION.md lists them with every
 * other module's (a test compares the table with {@link #ALL}).
 *
 * <p>Constants; any thread. Each user reads its property when it did before (the device list at its
 * first use, the peer timeout once at class initialization, the others at each call).
 */
public final class CoreProperties {
    /** The name of {@link #PEER_TIMEOUT_MS}, a compile-time constant for the apps' flag descriptions. */
    public static final String PEER_TIMEOUT_MS_NAME = "jdoca.peer.timeout.ms";

    public static final JdocaProperty DEVICES = new JdocaProperty("jdoca.devices", "",
            "The software devices listed after the rdma-core ones, as NAME@BB:DD.F[,...] (e.g. sw0@03:00.0,"
                    + "sw1@03:00.1); empty: sw0 and sw1 with their representors.");
    public static final JdocaProperty VERBS = new JdocaProperty("jdoca.verbs", "true",
            "false: list no rdma-core devices (libibverbs is not asked), only the software devices.");
    public static final JdocaProperty SHM_DIR = new JdocaProperty("jdoca.shm.dir", "",
            "Base directory of this user's shared-memory regions (jdoca-<euid> below it); empty: /dev/shm, or "
                    + "the temporary directory where there is none.");
    public static final JdocaProperty PEER_TIMEOUT_MS = new JdocaProperty(PEER_TIMEOUT_MS_NAME,
            Long.toString(PeerLiveness.DEFAULT_TIMEOUT_MS),
            "Silence (ms, 1..86400000) after which a transport declares a peer dead; an app's "
                    + "--peer-timeout-ms overrides it. A peer that exits or closes is seen at once.");
    public static final JdocaProperty LOG_LEVEL = new JdocaProperty("jdoca.log.level", "INFO",
            "Logback's root level (TRACE, DEBUG, INFO, WARN, ERROR, OFF); an app's -l/--log-level sets it. "
                    + "DEBUG or TRACE also print a failed command's stack trace.");
    public static final JdocaProperty HOME = new JdocaProperty("jdoca.home", ".",
            "The source tree jdoca runs from (the launcher sets it when it runs from one): the gga demo starts its "
                    + "children from the jars under it, bench writes bench-results/ in it.");

    /** Every property of the module. */
    public static final List<JdocaProperty> ALL = List.of(DEVICES, VERBS, SHM_DIR, PEER_TIMEOUT_MS, LOG_LEVEL,
            HOME);

    private CoreProperties() {
    }
}
