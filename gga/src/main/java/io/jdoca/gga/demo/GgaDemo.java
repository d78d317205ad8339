package io.jdoca.gga.demo;

import io.jdoca.core.agent.ShutdownHook;
import io.jdoca.core.config.CoreProperties;
import io.jdoca.storage.demo.DemoSettings;
import io.jdoca.storage.demo.DemoWait;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ./jdoca demo} (mode gga, the README's main job): three {@code target-rdma} processes,
 * {@code gga-offload} and {@code initiator-comch} on loopback, running a write-then-read
 * data-validity test with a recovery read every 10th read. Shows each phase as it happens, prints
 * the initiator's and the service's statistics and exits 0 only if the data validated and the
 * service reported recoveries.
 *
 * <p>The children are started from the launcher jar ({@code cli/target/jdoca.jar} +
 * {@code cli/target/lib}, found through the system property {@code jdoca.home}) with automatically
 * chosen ports (targets listen on port 0 and print theirs) and a unique Comch channel. Every child
 * is ended on every path, including Ctrl-C (a shutdown hook). Control path; one thread.
 */
public final class GgaDemo {
    /**
     * How long the service and targets may take to exit after the run, at scale 1. Start-up and the
     * run are waited for as long as the children are alive and working ({@link DemoWait}), so a slow
     * host needs no {@code JDOCA_DEMO_TIMEOUT_SCALE}; the scale still multiplies every bound.
     */
    private static final long EXIT_TIMEOUT_MS = 120_000;
    private static final Pattern PORT = Pattern.compile("listening on TCP port (\\d+)");
    private static final Pattern RDMA_ON = Pattern.compile("gga-offload: (RDMA on [^;]*)");
    private static final Pattern RECOVERIES = Pattern.compile("Total recovery count: (\\d+)");
    /** Target geometry: 1024 half-blocks of 2 KiB each, so the initiator sees 1024 blocks of 4 KiB (4 MiB). */
    private static final int HALF_BLOCK = 2048;
    private static final int BLOCKS = 1024;
    private static final int RECOVER_EVERY_N = 10;

    private final PrintStream out;
    private final List<Child> children = new CopyOnWriteArrayList<>();
    private final long t0 = System.nanoTime();
    private final double scale;

    /** The targets' and gga-offload's {@code -d}: sw0, or an RDMA device (their RDMA then runs on verbs). */
    private final String device;
    /** The targets' and gga-offload's {@code -g} (-1: not given, the device's default GID). */
    private final int gidIndex;

    private GgaDemo(PrintStream out, double scale, String device, int gidIndex) {
        this.out = out;
        this.scale = scale;
        this.device = device;
        this.gidIndex = gidIndex;
    }

    /** A target's or gga-offload's command line: {@code args}, then {@code -g N} when the demo was given one. */
    private List<String> rdmaArgs(String... args) {
        List<String> l = new ArrayList<>(List.of(args));
        l.addAll(DemoSettings.gidArgs(gidIndex));
        return l;
    }

    private long ms(long base) {
        return (long) (base * scale);
    }

    /** Runs the demo on sw0; returns the exit code (0 = success). */
    public static Integer run(PrintStream out) {
        return run(out, "sw0");
    }

    /**
     * Runs the demo with the targets' and gga-offload's RDMA on {@code device} (sw0: the software
     * transports; an RDMA device such as rxe0: verbs; the initiator's Comch stays on sw0); returns the
     * exit code (0 = success, 2 = bad input). Called by the launcher's DemoCommand.
     */
    public static Integer run(PrintStream out, String device) {
        return run(out, device, -1);
    }

    /**
     * {@link #run(PrintStream, String)} with the targets' and gga-offload's RDMA contexts on GID index
     * {@code gidIndex} of {@code device} (their {@code -g}; -1: the device's default).
     */
    public static Integer run(PrintStream out, String device, int gidIndex) {
        double scale = DemoSettings.scale(out);
        if (Double.isNaN(scale)) {
            return 2;
        }
        // Checked here, once, so a wrong -d or -g is one line, not four failed children.
        if (!DemoSettings.checkDevice(out, device, gidIndex)) {
            return 2;
        }
        GgaDemo d = new GgaDemo(out, scale, device, gidIndex);
        // Ctrl-C: kill the child processes at once (nothing to wait for).
        ShutdownHook hook = ShutdownHook.install("gga-demo-cleanup", d::killAll, 0);
        try {
            return d.runDemo();
        } catch (IOException | RuntimeException e) {
            out.println("demo: failed: " + e.getMessage());
            d.dumpLogs();
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out.println("demo: interrupted");
            return 1;
        } finally {
            d.killAll();
            d.saveLogs();
            hook.close();
        }
    }

    private int runDemo() throws IOException, InterruptedException {
        Path home = home();
        String cp = classPath(home);
        if (cp == null) {
            out.println("demo: launcher jar not found under " + home + " (run ./jdoca build)");
            return 1;
        }
        String channel = "gga_demo_" + ProcessHandle.current().pid();
        out.printf(Locale.ROOT, "demo: GGA offload pipeline on loopback: 3 targets (%d x %d B each), gga-offload"
                + " (LZ4 + 2+1 EC, recovery read every %dth read), initiator (write then read back %d blocks of %d"
                + " B)%n",
                BLOCKS, HALF_BLOCK, RECOVER_EVERY_N, BLOCKS, 2 * HALF_BLOCK);
        String[] roles = {"data_1", "data_2", "data_p"};
        List<Child> targets = new ArrayList<>();
        for (String role : roles) {
            targets.add(start("target " + role, home, cp, rdmaArgs("target-rdma", "-d", device, "--cpu",
                    String.valueOf(DemoSettings.edgeCpu()),
                    "--once", "--listen-address", "127.0.0.1", "--listen-port", "0", "--block-size",
                    String.valueOf(HALF_BLOCK), "--block-count", String.valueOf(BLOCKS))));
        }
        DemoWait wait = new DemoWait(out, scale, t0);
        int[] ports = new int[3];
        for (int i = 0; i < 3; i++) {
            Child t = targets.get(i);
            DemoWait.Outcome o = wait.await("target " + roles[i] + " is starting", List.of(t.process.toHandle()),
                    () -> t.first(PORT) != null, DemoWait.START_BOUND_MS);
            if (o != DemoWait.Outcome.READY) {
                out.println("demo: target " + roles[i] + " did not start: " + wait.explain(o, "target " + roles[i],
                        DemoWait.START_BOUND_MS));
                dumpLogs();
                return 1;
            }
            ports[i] = Integer.parseInt(t.first(PORT).group(1));
            progress("target %s listening on 127.0.0.1:%d", roles[i], ports[i]);
        }
        Child service = start("gga-offload", home, cp, rdmaArgs("gga-offload", "-d", device, "-r", "hpf0", "--cpu",
                String.valueOf(DemoSettings.relayCpu()), "--once",
                "--data-1-storage", "127.0.0.1:" + ports[0], "--data-2-storage", "127.0.0.1:" + ports[1],
                "--data-p-storage", "127.0.0.1:" + ports[2], "--trigger-recovery-read-every-n",
                String.valueOf(RECOVER_EVERY_N), "--command-channel-name", channel, "--control-timeout",
                controlTimeout(),
                "--dirty-log", "none"));
        List<ProcessHandle> serviceAndTargets = new ArrayList<>(List.of(service.process.toHandle()));
        targets.forEach(t -> serviceAndTargets.add(t.process.toHandle()));
        DemoWait.Outcome up = wait.await("gga-offload is starting and connecting to the targets", serviceAndTargets,
                () -> service.contains("serving comch channel"), DemoWait.START_BOUND_MS);
        if (up != DemoWait.Outcome.READY) {
            out.println("demo: gga-offload did not come up: " + wait.explain(up, "gga-offload",
                    DemoWait.START_BOUND_MS));
            dumpLogs();
            return 1;
        }
        progress("gga-offload connected to the three targets, serving comch channel '%s'", channel);
        Matcher rdmaOn = service.first(RDMA_ON);
        progress("%s", rdmaOn == null ? "RDMA on " + device : rdmaOn.group(1));
        Child initiator = start("initiator", home, cp, List.of("initiator-comch", "-d", "sw0", "--cpu",
                String.valueOf(DemoSettings.edgeCpu()),
                "--execution-strategy", "read_write_data_validity_test", "--run-limit-operation-count", "0",
                "--command-channel-name", channel, "--control-timeout", controlTimeout(),
                "--expect-service", Long.toString(service.process.pid())));
        boolean[] phase = new boolean[2];
        long[] tick = new long[2]; // the data path's start, the last progress line
        DemoWait.Outcome ran = wait.await("the initiator is running", List.of(initiator.process.toHandle()), () -> {
            if (!phase[0] && service.contains("the initiator sees")) {
                phase[0] = true;
                progress("initiator connected: storage of %d blocks of %d B (2x the targets')", BLOCKS, 2 * HALF_BLOCK);
            }
            if (!phase[1] && service.contains("data path started")) {
                phase[1] = true;
                progress("data path running: writing (DMA, LZ4, EC create, 3 RDMA writes), then reading back (RDMA,"
                        + " EC recover every %dth read, LZ4 decompress into the initiator's memory) ...",
                        RECOVER_EVERY_N);
                tick[0] = System.nanoTime();
                tick[1] = tick[0];
            }
            if (phase[1] && System.nanoTime() - tick[1] > 2_000_000_000L) {
                progress("... data path running for %.0f s", (System.nanoTime() - tick[0]) / 1e9);
                tick[1] = System.nanoTime();
            }
            return !initiator.process.isAlive();
        }, DemoWait.RUN_BOUND_MS);
        if (ran != DemoWait.Outcome.READY) {
            out.println("demo: the initiator did not finish: " + wait.explain(ran, "the initiator",
                    DemoWait.RUN_BOUND_MS));
            dumpLogs();
            return 1;
        }
        int iniRc = initiator.process.exitValue();
        progress("initiator finished (exit %d)", iniRc);
        out.println();
        out.println("== initiator-comch ==");
        // The figures below are of one cold pass, not of steady state: say so before anyone quotes them.
        out.printf(Locale.ROOT, "(not a performance figure: one cold pass, %d writes then %d reads, each block once, in"
                + " JVMs just started:%n the IO rate and latencies include JIT warm-up and the recovery reads."
                + " Steady state: ./jdoca bench storage)%n", BLOCKS, BLOCKS);
        out.print(initiator.text(true));
        int svcRc = waitExit(service);
        out.println("== gga-offload ==");
        out.print(service.text(true));
        for (Child t : targets) {
            waitExit(t);
        }
        Matcher rm = RECOVERIES.matcher(service.text(false));
        long recoveries = rm.find() ? Long.parseLong(rm.group(1)) : -1;
        boolean ok = iniRc == 0 && svcRc == 0 && initiator.contains("Test passed") && recoveries > 0;
        out.printf(Locale.ROOT,
                "demo: %s in %.1f s (initiator exit %d, gga-offload exit %d, recovery reads %d, RDMA device %s)%n",
                ok ? "PASSED" : "FAILED", (System.nanoTime() - t0) / 1e9, iniRc, svcRc, recoveries, device);
        if (!ok) {
            dumpLogs();
        }
        return ok ? 0 : 1;
    }

    /** The children's {@code --control-timeout}: generous (see {@link DemoSettings#CONTROL_TIMEOUT_S}), scaled. */
    private String controlTimeout() {
        return String.valueOf(Math.round(DemoSettings.CONTROL_TIMEOUT_S * scale));
    }

    private static Path home() {
        return Path.of(CoreProperties.HOME.asString()).toAbsolutePath().normalize();
    }

    private int waitExit(Child c) throws InterruptedException {
        if (!c.process.waitFor(ms(EXIT_TIMEOUT_MS), TimeUnit.MILLISECONDS)) {
            out.println("demo: " + c.name + " did not exit; killing it");
            c.process.destroyForcibly();
            return -1;
        }
        c.drained();
        return c.process.exitValue();
    }

    private void progress(String fmt, Object... args) {
        out.printf(Locale.ROOT, "[%5.1fs] %s%n", (System.nanoTime() - t0) / 1e9, String.format(Locale.ROOT, fmt, args));
        out.flush();
    }

    /**
     * The launcher jar and its libraries under {@code jdoca.home}; failing that, this JVM's own class
     * path if it holds the launcher (tests, IDEs); null if neither.
     */
    static String classPath(Path home) {
        Path jar = home.resolve("cli/target/jdoca.jar");
        Path lib = home.resolve("cli/target/lib");
        if (Files.exists(jar) && Files.isDirectory(lib)) {
            return jar + ":" + lib + "/*";
        }
        try {
            Class.forName("io.jdoca.cli.Main", false, GgaDemo.class.getClassLoader());
            return System.getProperty("java.class.path");
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    private Child start(String name, Path home, String cp, List<String> args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString()));
        cmd.addAll(List.of("--enable-native-access=ALL-UNNAMED", "--add-modules=jdk.incubator.vector",
                "-XX:+UseSerialGC",
                "-XX:MaxDirectMemorySize=16g", "-Xmx256m", "-Xshare:auto",
                "-D" + CoreProperties.HOME.name() + "=" + home));
        cmd.addAll(DemoSettings.childJavaOpts());
        cmd.addAll(List.of("-cp", cp, "io.jdoca.cli.Main"));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        Child c = new Child(name, p);
        children.add(c);
        return c;
    }

    /** {@code JDOCA_DEMO_LOGS=DIR}: every child's whole output goes to {@code DIR/<name>.log} (diagnosis). */
    private void saveLogs() {
        String dir = System.getenv("JDOCA_DEMO_LOGS");
        if (dir == null || dir.isBlank()) {
            return;
        }
        for (Child c : children) {
            try {
                Files.write(Path.of(dir, c.name.replace(' ', '-') + ".log"), c.lines, StandardCharsets.UTF_8);
            } catch (IOException | RuntimeException e) {
                out.println("demo: cannot save the log of " + c.name + " in " + dir + ": " + e.getMessage());
            }
        }
    }

    private void dumpLogs() {
        for (Child c : children) {
            out.println("---- " + c.name + " (last lines) ----");
            List<String> lines = c.lines;
            for (int i = Math.max(0, lines.size() - 25); i < lines.size(); i++) {
                out.println(lines.get(i));
            }
        }
        out.flush();
    }

    /** Ends every child still alive (children of children too). Idempotent; any thread. */
    void killAll() {
        for (Child c : children) {
            if (c.process.isAlive()) {
                c.process.descendants().forEach(ProcessHandle::destroyForcibly);
                c.process.destroyForcibly();
            }
        }
        for (Child c : children) {
            try {
                c.process.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** A child process and its output, read by a daemon thread. */
    private static final class Child {
        final String name;
        final Process process;
        final List<String> lines = new CopyOnWriteArrayList<>();
        final Thread reader;

        Child(String name, Process process) {
            this.name = name;
            this.process = process;
            this.reader = Thread.ofPlatform().daemon().name("demo-out-" + name).start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        lines.add(line);
                    }
                } catch (IOException e) {
                    lines.add("(output lost: " + e.getMessage() + ")");
                }
            });
        }

        /** The first output line matching {@code p} so far, or null. */
        Matcher first(Pattern p) {
            for (String l : lines) {
                Matcher m = p.matcher(l);
                if (m.find()) {
                    return m;
                }
            }
            return null;
        }

        boolean contains(String s) {
            for (String l : lines) {
                if (l.contains(s)) {
                    return true;
                }
            }
            return false;
        }

        void drained() throws InterruptedException {
            reader.join(5_000);
        }

        /** The output; with {@code tablesOnly}, just the statistics table and verdict lines. */
        String text(boolean tablesOnly) {
            StringBuilder sb = new StringBuilder();
            for (String l : lines) {
                if (!tablesOnly || l.startsWith("|") || l.startsWith("+") || l.startsWith("Test ")) {
                    sb.append(l).append('\n');
                }
            }
            return sb.toString();
        }
    }
}
