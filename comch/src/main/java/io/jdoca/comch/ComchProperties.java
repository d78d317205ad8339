package io.jdoca.comch;

import io.jdoca.core.config.JdocaProperty;
import java.util.List;

/**
 * The {@code jdoca.comch.*} JVM system properties of module comch. docs/CONFIGURATION.md lists them
 * with every other module's (a test compares the table with {@link #ALL}).
 *
 * <p>Constants; any thread. The directory is read each time a channel looks for its sockets.
 */
public final class ComchProperties {
    public static final JdocaProperty DIR = new JdocaProperty("jdoca.comch.dir", "",
            "Directory of the Comch rendezvous sockets; empty: $XDG_RUNTIME_DIR/jdoca-comch, else "
                    + "<tmp>/jdoca-comch-<user>.");

    /** Every property of the module. */
    public static final List<JdocaProperty> ALL = List.of(DIR);

    private ComchProperties() {
    }
}
