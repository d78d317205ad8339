package io.jdoca.argp;

import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.Properties;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * DOCA's general program flags that every jdoca app shares ("DOCA Flags" in a DOCA app's usage):
 * {@code -h/--help}, {@code -v/--version} ({@link HelpVersionFlags}) and {@code --sdk-log-level}, as a
 * picocli mixin. An app adds it with {@code @Mixin DocaFlags doca;} <em>instead of</em>
 * {@code mixinStandardHelpOptions} (whose {@code -V/--version} would clash with DOCA's {@code -v/--version}); {@link
 * DocaArgpFlags}
 * adds {@code -j/--json}. Each app keeps its own {@code -l/--log-level} (their defaults differ).
 *
 * <p>Thread rules: one instance per command object, written by picocli while parsing and read by
 * the command on the same thread; not thread-safe.
 */
@Command(versionProvider = DocaFlags.Version.class)
public class DocaFlags extends HelpVersionFlags {
    /**
     * Logger prefixes of the DOCA "SDK" part of jdoca, the libraries: what {@code --sdk-log-level}
     * sets. Everything else (the apps, {@code io.jdoca.storage}, {@code io.jdoca.nvmf}, ...)
     * follows {@code -l/--log-level}.
     */
    public static final String[] SDK_LOGGERS = {"io.jdoca.core", "io.jdoca.dma", "io.jdoca.rdma", "io.jdoca.comch",
        "io.jdoca.ec", "io.jdoca.compress", "io.jdoca.sta"};

    /** App packages that live under an SDK prefix; they keep the program's level. */
    static final String[] APP_LOGGERS_UNDER_SDK = {"io.jdoca.nvmf"};

    @Option(names = "--sdk-log-level", paramLabel = "<10..70>", converter = LevelConverter.class,
            description = "Set the SDK (numeric) log level for the program <10=DISABLE, 20=CRITICAL, 30=ERROR, "
                    + "40=WARNING, 50=INFO, 60=DEBUG, 70=TRACE>: the jdoca libraries' loggers (default: as -l).")
    Integer sdkLogLevel;

    /** The {@code --sdk-log-level} given (10..70), or null when the libraries follow {@code -l}. */
    public Integer sdkLogLevel() {
        return sdkLogLevel;
    }

    /**
     * Applies {@code --sdk-log-level} to the library loggers (Logback, when on the class path; a
     * no-op without it or without the flag). Call it after the app has set its own {@code -l} level:
     * app packages under an SDK prefix are pinned to the level the root logger has then.
     */
    public void applySdkLogLevel() {
        if (sdkLogLevel == null) {
            return;
        }
        LogbackLevels.apply(logbackName(sdkLogLevel), SDK_LOGGERS, APP_LOGGERS_UNDER_SDK);
    }

    /** jdoca's version (the Maven project version this module was built as). */
    public static String jdocaVersion() {
        return VersionHolder.VERSION;
    }

    /** Logback level name of a DOCA level (rounded down to the nearest defined one, as DOCA's). */
    static String logbackName(int level) {
        if (level < 20) {
            return "OFF";
        } else if (level < 40) {
            return "ERROR"; // CRITICAL and ERROR: Logback has no separate critical level
        } else if (level < 50) {
            return "WARN";
        } else if (level < 60) {
            return "INFO";
        } else if (level < 70) {
            return "DEBUG";
        }
        return "TRACE";
    }

    /** Parses a DOCA numeric log level; anything outside 10..70 is refused at parse time. */
    static final class LevelConverter implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            int v;
            try {
                v = Integer.parseInt(value.trim());
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is not a DOCA log level 10..70");
            }
            if (v < 10 || v > 70) {
                throw new TypeConversionException(v + " is not one of DOCA's 10..70 "
                        + "(DISABLE=10, CRITICAL=20, ERROR=30, WARNING=40, INFO=50, DEBUG=60, TRACE=70)");
            }
            return v;
        }
    }

    /**
     * The one version line every app prints for its version flag, the launcher's included: the same text
     * whichever app is asked, so scripts and bug reports need not know which one answered.
     */
    public static String versionLine() {
        return String.format(Locale.ROOT, "jdoca %s (Java %s, %s)", jdocaVersion(), Runtime.version(),
                System.getProperty("java.vm.vendor", "?"));
    }

    /** The version provider of every app's version flag: {@link #versionLine()}, one line. */
    public static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {versionLine()};
        }
    }

    private static final class VersionHolder {
        static final String VERSION = load();

        private static String load() {
            try (InputStream in = DocaFlags.class.getResourceAsStream("version.properties")) {
                if (in != null) {
                    Properties p = new Properties();
                    p.load(in);
                    String v = p.getProperty("version", "");
                    if (!v.isEmpty() && !v.startsWith("${")) {
                        return v;
                    }
                }
            } catch (IOException e) {
                // fall through: an unfiltered or missing resource only loses the version string
            }
            return "unknown";
        }
    }
}
