package io.jdoca.core.util;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * jdoca's version (the Maven project version the core module was built as), for the libraries' own
 * reports such as the metrics' {@code jdoca_build_info}; the apps' version flag prints the same number
 * (argp's {@code DocaFlags}). Immutable; any thread.
 */
public final class JdocaVersion {
    private static final String VERSION = load();

    private JdocaVersion() {
    }

    /** The version, e.g. {@code 0.1.0-SNAPSHOT}; "unknown" when the resource was not filtered. */
    public static String version() {
        return VERSION;
    }

    private static String load() {
        try (InputStream in = JdocaVersion.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                String v = p.getProperty("version", "");
                if (!v.isEmpty() && !v.startsWith("${")) {
                    return v;
                }
            }
        } catch (IOException e) {
            // fall through: an unreadable resource only loses the version string
        }
        return "unknown";
    }
}
