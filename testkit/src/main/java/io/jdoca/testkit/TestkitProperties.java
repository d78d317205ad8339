package io.jdoca.testkit;

import java.util.List;

/**
 * The {@code jdoca.*} JVM system properties of module testkit, which tests' builds set (system-tests'
 * pom sets {@code jdoca.repo}). docs/CONFIGURATION.md lists them with every other module's (a test
 * compares the table with {@link #ALL}).
 *
 * <p>testkit depends on no jdoca module, so it cannot use core's {@code JdocaProperty}:
 * {@link Property} is the same declaration (name, default, description) with only the string getter
 * testkit needs.
 *
 * <p>Constants; any thread. Read at each call.
 */
public final class TestkitProperties {
    public static final Property REPO = new Property("jdoca.repo", "",
            "Tests: the repository root JavaProcess starts apps from; empty: the nearest parent directory "
                    + "holding the jdoca launcher.");
    /**
     * The name of core's {@code CoreProperties.HOME}, which {@link JavaProcess} gives the apps it starts;
     * declared (and listed in the table) by core, named here only because testkit cannot import core.
     */
    public static final String CORE_HOME_NAME = "jdoca.home";

    /** Every property of the module. */
    public static final List<Property> ALL = List.of(REPO);

    private TestkitProperties() {
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
