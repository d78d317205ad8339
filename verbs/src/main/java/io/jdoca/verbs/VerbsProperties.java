package io.jdoca.verbs;

import java.util.List;

/**
 * The {@code jdoca.verbs.*} JVM system properties of module verbs. docs/CONFIGURATION.md lists them
 * with every other module's (a test compares the table with {@link #ALL}).
 *
 * <p>verbs sits below core, so it cannot use core's {@code JdocaProperty}: {@link Property} is the
 * same declaration (name, default, description) with only the string getter verbs needs.
 *
 * <p>Constants; any thread. The GID index is read each time a device context is opened.
 */
public final class VerbsProperties {
    /** The name of {@link #GID_INDEX}, a compile-time constant for the apps' flag descriptions. */
    public static final String GID_INDEX_NAME = "jdoca.verbs.gidIndex";

    public static final Property GID_INDEX = new Property(GID_INDEX_NAME, "",
            "The GID index a verbs device context addresses peers with; empty: the first RoCE v2 entry with an "
                    + "IPv4-mapped address, else the first RoCE v2 entry, else the first non-zero entry.");

    /** Every property of the module. */
    public static final List<Property> ALL = List.of(GID_INDEX);

    private VerbsProperties() {
    }

    /**
     * One {@code jdoca.*} JVM system property: its name, its default (empty: unset) and what it changes.
     * Immutable; any thread.
     */
    public record Property(String name, String defaultValue, String description) {
        public Property {
            if (!name.startsWith("jdoca.")) {
                throw new IllegalArgumentException("a jdoca property is named jdoca.*: " + name);
            }
        }

        /** The value given with {@code -Dname=...}, or the default; read at each call. */
        public String asString() {
            return System.getProperty(name, defaultValue);
        }
    }
}
