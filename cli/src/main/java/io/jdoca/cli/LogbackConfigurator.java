package io.jdoca.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import io.jdoca.core.config.CoreProperties;

/**
 * The apps' one log format, set up in code (found by Logback through {@code ServiceLoader}): every line to
 * stderr, so stdout carries results and tables, as {@code date time pid LEVEL [thread] logger - message}; the
 * root level follows {@code jdoca.log.level} (DOCA's {@code -l} flag sets it later through
 * {@code DocaLogLevel}). In code rather than a logback.xml because Logback's XML configuration (a SAX parser and
 * its model processors, some 400 classes) was a quarter of every app's JVM start, which on the emulated RDMA
 * guest costs seconds per process. {@code -Dlogback.configurationFile=FILE} still wins: this configurator then
 * steps aside and Logback reads that file.
 *
 * <p>Threads: Logback calls it once, on the thread that makes the first logger.
 */
public final class LogbackConfigurator extends ContextAwareBase implements Configurator {
    /** The pattern of every jdoca log line around the pid (AppOutputSystemTest checks the lines' shape). */
    static String pattern(String pid) {
        return "%d{yyyy-MM-dd HH:mm:ss.SSS} " + (pid.isEmpty() ? "?" : pid)
                + " %-5level [%thread] %logger{20} - %msg%n";
    }

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (System.getProperty("logback.configurationFile") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(pattern(CliProperties.PID.asString()));
        encoder.start();
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName("STDERR");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder);
        stderr.start();
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.toLevel(CoreProperties.LOG_LEVEL.asString(), Level.INFO));
        root.addAppender(stderr);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}
