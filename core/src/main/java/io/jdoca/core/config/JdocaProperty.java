package io.jdoca.core.config;

import java.util.Locale;

/**
 * One {@code jdoca.*} JVM system property: its name, its default and what it changes. Every module
 * declares its properties in one small configuration class (for example {@code StaProperties}),
 * reads them only through this type, and docs/CONFIGURATION.md lists them all in one table (a test
 * compares the table with the classes). verbs and testkit, which sit below core, declare theirs
 * with a record of the same shape ({@code VerbsProperties.Property}, {@code TestkitProperties.Property}).
 *
 * <p>A value that does not parse is reported once on standard error, naming the property, and the
 * default is used: a mistyped tuning knob must not stop a storage target.
 *
 * <p>Immutable; any thread. The typed getters read the system property each time they are called:
 * configuration classes call them once, into constants.
 */
public record JdocaProperty(String name, String defaultValue, String description) {
    public JdocaProperty {
        if (!name.startsWith("jdoca.")) {
            throw new IllegalArgumentException("a jdoca property is named jdoca.*: " + name);
        }
    }

    /** The value given with {@code -Dname=...}, or the default. */
    public String asString() {
        return System.getProperty(name, defaultValue);
    }

    public boolean asBoolean() {
        String v = asString().trim().toLowerCase(Locale.ROOT);
        return switch (v) {
            case "true" -> true;
            case "false" -> false;
            default -> Boolean.parseBoolean(bad(v, "true or false"));
        };
    }

    public long asLong() {
        String v = asString().trim();
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            return Long.parseLong(bad(v, "a whole number"));
        }
    }

    public int asInt() {
        long v = asLong();
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            return Integer.parseInt(bad(Long.toString(v), "an int"));
        }
        return (int) v;
    }

    /** Reports the bad value (one line) and returns the default. */
    private String bad(String v, String expected) {
        System.err.println("jdoca: -D" + name + "=" + v + " is not " + expected + "; using " + defaultValue);
        return defaultValue;
    }
}
