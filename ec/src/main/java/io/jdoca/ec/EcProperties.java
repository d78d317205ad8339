package io.jdoca.ec;

import io.jdoca.core.config.JdocaProperty;
import java.util.List;

/**
 * The {@code jdoca.ec.*} JVM system properties of module ec: the engine choice and the Java engine's
 * kernel switches, kept for A/B benchmarks and tests. docs/CONFIGURATION.md lists them with every
 * other module's (a test compares the table with {@link #ALL}).
 *
 * <p>Constants; any thread. Each user reads its property when it did before (engine choice at
 * creation, kernel switches once at class initialization).
 */
public final class EcProperties {
    public static final JdocaProperty ENGINE = new JdocaProperty("jdoca.ec.engine", "auto",
            "Reed-Solomon engine: auto (ISA-L when installed, else Java), java or native (ISA-L through FFM).");
    public static final JdocaProperty ISAL_LIB = new JdocaProperty("jdoca.ec.isal.lib", "libisal.so.2",
            "The ISA-L shared library to load.");
    public static final JdocaProperty ISAL_DISABLE = new JdocaProperty("jdoca.ec.isal.disable", "false",
            "true: never use ISA-L, even when installed.");
    public static final JdocaProperty VECTOR_BITS = new JdocaProperty("jdoca.ec.vectorBits", "0",
            "Vector width of the Java engine's kernels in bits (128, 256, 512); 0: the platform's preferred.");
    public static final JdocaProperty HORNER = new JdocaProperty("jdoca.ec.horner", "true",
            "false: the table kernel for Vandermonde rows too (benchmarks, tests).");
    public static final JdocaProperty WORD_SHIFT = new JdocaProperty("jdoca.ec.wordShift", "",
            "true/false: the word-shift GF multiply in the Java kernels; empty: on for vectors of 256 bits and more.");
    public static final JdocaProperty SYNDROME = new JdocaProperty("jdoca.ec.syndrome", "true",
            "false: the generic decode for Horner-coded patterns (benchmarks, tests).");

    /** Every property of the module. */
    public static final List<JdocaProperty> ALL = List.of(ENGINE, ISAL_LIB, ISAL_DISABLE, VECTOR_BITS, HORNER,
            WORD_SHIFT, SYNDROME);

    private EcProperties() {
    }
}
