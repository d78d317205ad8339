package io.jdoca.testkit;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts another JVM (a main class on this test's class path, or the packaged {@code ./jdoca}
 * launcher jar) for multi-process tests, captures its output to a file, and always ends it: use in
 * try-with-resources. {@link #close()} kills the process (and its children) by PID if still alive.
 */
public final class JavaProcess implements AutoCloseable {
    private final Process process;
    private final Path log;
    private final String name;

    private JavaProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /**
     * The JVM flags every jdoca process gets (same as the launcher's), plus the compiler and crash-report
     * flags this JVM was started with ({@link #inheritedFlags}).
     */
    public static List<String> jvmFlags() {
        List<String> flags = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED",
                "--add-modules=jdk.incubator.vector",
                "-XX:+UseSerialGC", "-XX:MaxDirectMemorySize=16g", "-Xmx512m"));
        List<String> inherited = inheritedFlags(ManagementFactory.getRuntimeMXBean().getInputArguments());
        if (!inherited.contains("-XX:-TieredCompilation")) {
            flags.add("-XX:TieredStopAtLevel=4");
        }
        flags.addAll(inherited);
        return flags;
    }

    /**
     * Of a parent JVM's arguments, those its child JVMs must share: {@code -XX:-TieredCompilation} (the Soft-RoCE
     * guest runs its JVMs without C1, whose fresh code crashed there under QEMU TCG, docs/RDMA-HARDWARE.md
     * "Known issue"; a child that ran tiered crashed the same way) and {@code -XX:ErrorFile=} (so that a child's
     * crash report lands where the parent's would).
     */
    static List<String> inheritedFlags(List<String> parentArgs) {
        List<String> out = new ArrayList<>();
        for (String a : parentArgs) {
            if (a.equals("-XX:-TieredCompilation") || a.startsWith("-XX:ErrorFile=")) {
                out.add(a);
            }
        }
        return out;
    }

    /** Starts {@code mainClass} with this JVM's class path. */
    public static JavaProcess start(String name, String mainClass, List<String> args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmFlags());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(args);
        return startCommand(name, cmd);
    }

    /** Starts the packaged launcher ({@code cli/target/jdoca.jar} + {@code lib/}) with {@code ./jdoca} arguments. */
    public static JavaProcess startApp(String name, Path repoRoot, List<String> jdocaArgs) throws IOException {
        Path jar = repoRoot.resolve("cli/target/jdoca.jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException("launcher jar missing: " + jar
                    + " (run the cli module's package phase first)");
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmFlags());
        cmd.add("-D" + TestkitProperties.CORE_HOME_NAME + "=" + repoRoot);
        cmd.add("-cp");
        String cp = jar + ":" + repoRoot.resolve("cli/target/lib") + "/*";
        if (!jdocaArgs.isEmpty() && jdocaArgs.getFirst().equals("bench")) {
            cp += ":" + repoRoot.resolve("cli/target/bench-lib") + "/*"; // as ./jdoca: the benchmarks only for bench
        }
        cmd.add(cp);
        cmd.add("io.jdoca.cli.Main");
        cmd.addAll(jdocaArgs);
        return startCommand(name, cmd);
    }

    public static JavaProcess startCommand(String name, List<String> cmd) throws IOException {
        Path log = Files.createTempFile("jdoca-" + name.replaceAll("[^A-Za-z0-9_.-]", "_") + "-", ".log");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        return new JavaProcess(name, pb.start(), log);
    }

    public Process process() {
        return process;
    }

    public long pid() {
        return process.pid();
    }

    /** Everything the process printed so far. */
    public String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "<cannot read " + log + ": " + e + ">";
        }
    }

    /** Waits until the output contains {@code text}; fails with the output if the process dies or time runs out. */
    public void awaitOutput(String text, Duration timeout) {
        awaitMatch(java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(text)), timeout);
    }

    /**
     * Waits until {@code pattern} matches the output (use {@code \\R} at its end to wait for a whole
     * line); returns the match. Fails like {@link #awaitOutput}.
     */
    public java.util.regex.Matcher awaitMatch(java.util.regex.Pattern pattern, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (;;) {
            java.util.regex.Matcher m = pattern.matcher(output());
            if (m.find()) {
                return m;
            }
            if (!process.isAlive()) {
                throw new AssertionError(name + " exited (" + process.exitValue() + ") before printing /" + pattern
                        + "/:\n" + output());
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(name + " did not print /" + pattern + "/ within " + timeout + ":\n"
                        + output());
            }
            sleep(20);
        }
    }

    /** Waits for exit; returns the exit code, or fails with the output on timeout. */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError(name + " did not exit within " + timeout + ":\n" + output());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        return process.exitValue();
    }

    /** SIGKILL, as a crash would. */
    public void kill() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    /** SIGTERM (a graceful stop, like Ctrl-C's shutdown path). */
    public void terminate() {
        process.destroy();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    kill();
                    process.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                kill();
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A free TCP port on 127.0.0.1 (bind to 0, read, close). */
    public static int freePort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    /** The repository root: system property {@code jdoca.repo}, else the nearest parent with {@code jdoca}. */
    public static Path repoRoot() {
        String p = TestkitProperties.REPO.asString();
        if (!p.isBlank() && Files.exists(Path.of(p, "jdoca"))) {
            return Path.of(p);
        }
        Path d = Path.of("").toAbsolutePath();
        while (d != null && !Files.exists(d.resolve("jdoca"))) {
            d = d.getParent();
        }
        if (d == null) {
            throw new IllegalStateException("cannot find the repository root");
        }
        return d;
    }

    /** {@code ../shared} next to the repository (the team's tools), or null when absent (a user's clone). */
    public static Path sharedDir() {
        Path s = repoRoot().resolve("../shared").normalize();
        return Files.isDirectory(s) ? s : null;
    }
}
