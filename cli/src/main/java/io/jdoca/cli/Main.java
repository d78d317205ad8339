package io.jdoca.cli;

import io.jdoca.argp.ArgpJsonException;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code ./jdoca <app> [flags]}: the one launcher. Each app is a picocli command living in its own
 * module; this table names them, so an app module never edits a shared file. An app whose class is
 * not on the class path is listed as unavailable.
 */
@Command(name = "jdoca", versionProvider = Main.Version.class,
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
        // Log lines carry the pid (logback.xml reads it when the first logger is made).
        System.setProperty("jdoca.pid", Long.toString(ProcessHandle.current().pid()));
    }

    /** App name → picocli command class, in the order --help lists them. */
    static final Map<String, String> APPS = new LinkedHashMap<>();

    static {
        APPS.put("demo", "io.jdoca.cli.DemoCommand");
        APPS.put("devices", "io.jdoca.cli.DevicesCommand");
        APPS.put("rdma-rping", "io.jdoca.cli.RdmaRpingCommand");
        APPS.put("dma-copy", "io.jdoca.cli.DmaCopyCommand");
        APPS.put("bench", "io.jdoca.bench.BenchCommand");
        APPS.put("target-rdma", "io.jdoca.storage.target.TargetRdmaApp");
        APPS.put("initiator-comch", "io.jdoca.storage.initiator.InitiatorComchApp");
        APPS.put("zero-copy", "io.jdoca.storage.zerocopy.ZeroCopyApp");
        APPS.put("gga-offload", "io.jdoca.storage.gga.GgaOffloadApp");
        APPS.put("sbc-generator", "io.jdoca.storage.sbc.SbcGeneratorApp");
        APPS.put("sta-target", "io.jdoca.sta.target.StaTargetApp");
        APPS.put("sta-rpc", "io.jdoca.sta.target.rpc.StaRpcApp");
        APPS.put("sta-offload-sample", "io.jdoca.sta.target.sample.StaOffloadSample");
        APPS.put("nvme-perf", "io.jdoca.sta.target.perf.NvmePerfApp");
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the launcher in-process (tests); returns the exit code. */
    public static int run(String... args) {
        CommandLine cl = commandLine();
        return cl.execute(args);
    }

    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        for (Map.Entry<String, String> e : APPS.entrySet()) {
            try {
                Class<?> c = Class.forName(e.getValue());
                cl.addSubcommand(e.getKey(), new CommandLine(c.getDeclaredConstructor().newInstance()));
            } catch (ReflectiveOperationException | LinkageError ex) {
                cl.addSubcommand(e.getKey(), new CommandLine(new Unavailable(e.getKey())));
            }
        }
        // A bad -j/--json flag file is one line (file and key), not picocli's message plus usage.
        cl.setParameterExceptionHandler(ArgpJsonException.oneLine("jdoca ", cl.getParameterExceptionHandler()));
        cl.setExecutionExceptionHandler((ex, cmd, parseResult) -> {
            // Control-path failures print one clear line, not a stack trace (which -l 60 shows).
            cmd.getErr().println("jdoca " + cmd.getCommandName() + ": " + ex.getMessage());
            if (Boolean.getBoolean("jdoca.debug") || "DEBUG".equals(System.getProperty("jdoca.log.level"))
                    || "TRACE".equals(System.getProperty("jdoca.log.level"))) {
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

    /** {@code -v}: jdoca's version and the Java runtime. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"jdoca " + io.jdoca.argp.DocaFlags.jdocaVersion() + " on Java " + Runtime.version()};
        }
    }

    /** Placeholder for an app that is not built into this jar. */
    @Command(description = "(not available in this build)")
    static final class Unavailable implements java.util.concurrent.Callable<Integer> {
        private final String name;

        Unavailable(String name) {
            this.name = name;
        }

        @Override
        public Integer call() {
            System.err.println("jdoca: '" + name + "' is not available in this build yet (see docs/FEATURES.md)");
            return 2;
        }
    }
}
