package io.jdoca.argp;

import java.util.List;

/**
 * An app module's entry in the {@code ./jdoca} launcher, found with {@link java.util.ServiceLoader}
 * (each module lists its provider in {@code META-INF/services/io.jdoca.argp.JdocaApps}): the
 * module's picocli commands, each named by its {@code @Command(name = ...)}. The commands are
 * referenced as classes, so a misspelt app fails to compile instead of turning "unavailable"; an
 * app whose module is not on the class path is simply not listed.
 *
 * <p>Implementations have a public no-argument constructor; {@link #commands()} makes new command
 * objects (one launcher run). Control path; any thread.
 */
public interface JdocaApps {

    /** New command objects of this module's apps. */
    List<Object> commands();
}
