package io.jdoca.argp;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code -h/--help} and {@code -v/--version} as a picocli mixin, for the apps that are not DOCA programs
 * (demo, bench, devices, sta-rpc): the same two flags as {@link DocaFlags}, which extends it, and the same
 * one version line ({@link DocaFlags#versionLine()}) as every other app. Use it with
 * {@code @Mixin HelpVersionFlags flags;} instead of {@code mixinStandardHelpOptions}, whose {@code -V}
 * would be a second spelling of the version flag.
 *
 * <p>Thread rules: one instance per command object, written by picocli while parsing; not thread-safe.
 */
@Command(versionProvider = DocaFlags.Version.class)
public class HelpVersionFlags {
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Print a help synopsis.")
    boolean help;

    @Option(names = {"-v", "--version"}, versionHelp = true, description = "Print program version information.")
    boolean version;
}
