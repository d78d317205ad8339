package io.jdoca.compress;

import io.jdoca.core.config.JdocaProperty;
import java.util.List;

/**
 * The {@code jdoca.compress.*} JVM system properties of module compress. docs/CONFIGURATION.md lists
 * them with every other module's (a test compares the table with {@link #ALL}).
 *
 * <p>Constants; any thread.
 */
public final class CompressProperties {
    public static final JdocaProperty LZ4_ENGINE = new JdocaProperty("jdoca.compress.lz4.engine", "auto",
            "LZ4 codec: auto (liblz4 when installed, else Java), liblz4 (through FFM) or java.");
    public static final JdocaProperty LIBLZ4 = new JdocaProperty("jdoca.compress.liblz4", "liblz4.so.1",
            "The liblz4 shared library to load.");

    /** Every property of the module. */
    public static final List<JdocaProperty> ALL = List.of(LZ4_ENGINE, LIBLZ4);

    private CompressProperties() {
    }
}
