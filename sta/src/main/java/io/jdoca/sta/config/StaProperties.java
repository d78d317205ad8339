package io.jdoca.sta.config;

import io.jdoca.core.config.JdocaProperty;
import java.util.List;

/**
 * The {@code jdoca.sta.*} JVM system properties of module sta, read once: tuning knobs kept for A/B
 * measurements and for working around a device. docs/CONFIGURATION.md lists them with every other
 * module's (a test compares the table with {@link #ALL}).
 *
 * <p>Constants; any thread. The bottom layer of the module, so that every layer may read them.
 */
public final class StaProperties {
    public static final JdocaProperty BE_WAIT_US = new JdocaProperty("jdoca.sta.be_wait_us", "50",
            "Longest sleep (µs) of an engine with back-end operations outstanding (a command arriving on a socket "
                    + "meanwhile waits at most this long unless a back-end completion wakes the engine first).");
    public static final JdocaProperty BE_WAIT = new JdocaProperty("jdoca.sta.be_wait", "",
            "park: the earlier idle policy with back-end I/O in flight (park 20 µs on a timer), for A/B runs only.");
    public static final JdocaProperty IO_URING = new JdocaProperty("jdoca.sta.io_uring", "true",
            "false: the file back-end uses synchronous pread/pwrite instead of io_uring.");
    public static final JdocaProperty URING_SUBMIT_BATCH = new JdocaProperty("jdoca.sta.uring_submit_batch", "4",
            "io_uring submissions are handed to the kernel every N queued operations (0: once per engine pass).");
    public static final JdocaProperty RDMA_INVALIDATE = new JdocaProperty("jdoca.sta.rdma.invalidate", "true",
            "false: never answer with SEND with Invalidate, even when the host's keyed SGL asks for it (a device "
                    + "work-around).");
    public static final JdocaProperty TLS_AEAD = new JdocaProperty("jdoca.sta.tls.aead", "auto",
            "AES-GCM of TLS records after the handshake: auto (OpenSSL's libcrypto through FFM when it loads, else "
                    + "Java), openssl, or java (jdoca's pure-Java AesGcm).");
    public static final JdocaProperty TLS_LIBCRYPTO = new JdocaProperty("jdoca.sta.tls.libcrypto", "libcrypto.so.3",
            "The OpenSSL libcrypto shared library TLS records are sealed and opened with.");

    public static final JdocaProperty ENGINE_SPINS = new JdocaProperty("jdoca.sta.engine.spins", "7",
            "Idle passes an IO engine spins (each one reads its sockets and polls its back-ends) before it sleeps "
                    + "in its selector until a socket or back-end completion wakes it.");

    /** Every property of the module. */
    public static final List<JdocaProperty> ALL = List.of(BE_WAIT_US, BE_WAIT, IO_URING, URING_SUBMIT_BATCH,
            RDMA_INVALIDATE, TLS_AEAD, TLS_LIBCRYPTO, ENGINE_SPINS);

    private StaProperties() {
    }
}
