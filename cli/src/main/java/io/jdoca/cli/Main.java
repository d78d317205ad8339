package io.jdoca.cli;

import io.jdoca.argp.ArgpJsonException;
import io.jdoca.argp.DocaFlags;
import io.jdoca.argp.JdocaApps;
import io.jdoca.core.config.CoreProperties;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.SortedMap;
import java.util.TreeMap;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/**
 * {@code ./jdoca <app> [flags]}: the one launcher. Each app is a picocli command living in its own
 * module, which registers it with {@link ServiceLoader} ({@link JdocaApps}), so an app module never
 * edits a shared file and an app's name is its {@code @Command(name)}. Apps are listed by name.
 */
@Command(name = "jdoca", versionProvider = DocaFlags.Version.class,
        description = "A pure-Java implementation of NVIDIA DOCA's storage-offload stack.%n",
        commandListHeading = "%nApps:%n",
        footer = {"", "Run './jdoca <app> --help' for an app's flags. './jdoca test' runs the test suite."})
public final class Main implements Runnable {
    @CommandLine.Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean help;

    @CommandLine.Option(names = {"-v", "--version"}, versionHelp = true,
            description = "Print jdoca's version and exit (DOCA's -v; there is no -V).")
    boolean version;

    static {
        // Log lines carry the pid (LogbackConfigurator reads it when the first logger is made).
        System.setProperty(CliProperties.PID.name(), Long.toString(ProcessHandle.current().pid()));
    }

    /** Every app on the class path ({@link JdocaApps} providers), by name. */
    static SortedMap<String, Object> apps() {
        SortedMap<String, Object> apps = new TreeMap<>();
        for (JdocaApps module : ServiceLoader.load(JdocaApps.class)) {
            for (Object command : module.commands()) {
                String name = appName(command);
                if (apps.putIfAbsent(name, command) != null) {
                    throw new IllegalStateException("two apps are called '" + name + "': "
                            + apps.get(name).getClass().getName() + " and " + command.getClass().getName());
                }
            }
        }
        return apps;
    }

    /**
     * An app's name from its {@code @Command(name)}, without building its picocli model: that model (every
     * option of every app, by reflection) is most of a JVM start's CPU, which on an emulated guest is tens of
     * seconds per start.
     */
    static String appName(Object command) {
        Command c = command.getClass().getAnnotation(Command.class);
        return c != null && !c.name().isEmpty() && !"<main class>".equals(c.name()) ? c.name()
                : new CommandLine(command).getCommandName();
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the launcher in-process (tests); returns the exit code. */
    public static int run(String... args) {
        CommandLine cl = commandLine(args);
        return cl.execute(args);
    }

    /** The launcher with every app (usage, man pages, completion). */
    static CommandLine commandLine() {
        return commandLine(new String[0]);
    }

    /**
     * The launcher for {@code args}: when the first argument names an app, only that app's model is built (a
     * JVM start then pays for one app's options, not all of them); otherwise every app (usage, suggestions).
     */
    static CommandLine commandLine(String[] args) {
        CommandLine cl = new CommandLine(new Main());
        SortedMap<String, Object> apps = apps();
        Object only = args.length > 0 ? apps.get(args[0]) : null;
        if (only != null) {
            cl.addSubcommand(args[0], new CommandLine(only));
        } else {
            for (Map.Entry<String, Object> e : apps.entrySet()) {
                cl.addSubcommand(e.getKey(), new CommandLine(e.getValue()));
            }
        }
        // A bad -j/--json flag file is one line (file and key), not picocli's message plus usage.
        cl.setParameterExceptionHandler(ArgpJsonException.oneLine("jdoca ", cl.getParameterExceptionHandler()));
        cl.setExecutionExceptionHandler((ex, cmd, parseResult) -> {
            // Control-path failures print one clear line, not a stack trace (which -l 60 shows).
            cmd.getErr().println("jdoca " + cmd.getCommandName() + ": " + ex.getMessage());
            String level = CoreProperties.LOG_LEVEL.asString();
            if (CliProperties.DEBUG.asBoolean() || "DEBUG".equals(level) || "TRACE".equals(level)) {
                ex.printStackTrace(cmd.getErr());
            }
            return 1;
        });
        return cl;
    }

    /** Bare {@code ./jdoca}: the usage with the list of apps. */
    @Override
    public void run() {
        commandLine().usage(System.out);
    }
}
