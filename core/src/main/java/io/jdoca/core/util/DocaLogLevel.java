package io.jdoca.core.util;

import io.jdoca.core.config.CoreProperties;

/**
 * DOCA's numeric log levels ({@code -l/--log-level}): DISABLE=10, CRITICAL=20, ERROR=30,
 * WARNING=40, INFO=50, DEBUG=60, TRACE=70. {@link #apply(int)} sets the process's log level: the
 * Logback root logger when Logback is on the class path (apps), else the
 * {@code jdoca.log.level} system property that library loggers consult.
 */
public enum DocaLogLevel {
    DISABLE(10, "OFF"),
    CRITICAL(20, "ERROR"),
    ERROR(30, "ERROR"),
    WARNING(40, "WARN"),
    INFO(50, "INFO"),
    DEBUG(60, "DEBUG"),
    TRACE(70, "TRACE");

    private final int value;
    private final String slf4jName;

    DocaLogLevel(int value, String slf4jName) {
        this.value = value;
        this.slf4jName = slf4jName;
    }

    public int value() {
        return value;
    }

    /**
     * The level for a DOCA number (rounded down to the nearest defined level); INVALID numbers →
     * IllegalArgumentException.
     */
    public static DocaLogLevel of(int value) {
        if (value < DISABLE.value || value > TRACE.value) {
            throw new IllegalArgumentException("log level " + value + " is not one of DOCA's 10..70 "
                    + "(DISABLE=10, CRITICAL=20, ERROR=30, WARNING=40, INFO=50, DEBUG=60, TRACE=70)");
        }
        DocaLogLevel best = DISABLE;
        for (DocaLogLevel l : values()) {
            if (l.value <= value) {
                best = l;
            }
        }
        return best;
    }

    /** Applies the level process-wide (control path; uses reflection so core needs no logging library). */
    public static void apply(int value) {
        DocaLogLevel l = of(value);
        System.setProperty(CoreProperties.LOG_LEVEL.name(), l.slf4jName);
        try {
            Class<?> lf = Class.forName("org.slf4j.LoggerFactory");
            Object root = lf.getMethod("getLogger", String.class).invoke(null, "ROOT");
            Class<?> levelCls = Class.forName("ch.qos.logback.classic.Level");
            Object level = levelCls.getMethod("toLevel", String.class).invoke(null, l.slf4jName);
            root.getClass().getMethod("setLevel", levelCls).invoke(root, level);
        } catch (ReflectiveOperationException | LinkageError e) {
            // No Logback: the system property is all there is.
        }
    }
}
