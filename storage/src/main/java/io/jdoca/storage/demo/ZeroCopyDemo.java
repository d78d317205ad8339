package io.jdoca.storage.demo;

import io.jdoca.storage.common.StorageProperties;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./jdoca demo --mode zero-copy}: starts target-rdma, zero-copy and initiator-comch as three
 * child JVMs on this host (the current class path, i.e. the launcher jar, and a free TCP port and a
 * private Comch channel name), waits for the initiator and prints its statistics table. Every child
 * is ended when the demo returns.
 *
 * <p>Control path only; not thread-safe (one demo at a time per caller).
 */
public final class ZeroCopyDemo {
    /** The launcher's JVM flags, so the children behave like {@code ./jdoca} processes. */
    static final List<String> JVM_FLAGS = List.of("--enable-native-access=ALL-UNNAMED",
            "--add-modules=jdk.incubator.vector",
            "-XX:+UseSerialGC", "-Xmx512m");
    /** How long the relay and the target may take to exit after the run, at scale 1. */
    private static final long EXIT_TIMEOUT_MS = 120_000;

    private ZeroCopyDemo() {
    }

    /**
     * The demo with its defaults: a read+write data-validity run over 2048 blocks of 4 KiB, then a read throughput run.
     */
    public static int run(PrintStream out) {
        return run(out, "sw0");
    }

    /**
     * The demo with the target's and the relay's RDMA on {@code device} (sw0: the software transports; an
     * RDMA device such as rxe0: verbs, with the relay re-exporting the initiator's memory there, so the
     * target's RDMA lands in it directly; the initiator's Comch stays on sw0). Deadlines scale with
     * {@link DemoSettings}. Returns the exit code (0 = both runs passed, 2 = bad input).
     */
    public static int run(PrintStream out, String device) {
        return run(out, device, false);
    }

    /**
     * {@link #run(PrintStream, String)}; {@code quick} runs only a data-validity pass over 256 blocks (no
     * throughput run), for slow machines such as an emulated RDMA guest.
     */
    public static int run(PrintStream out, String device, boolean quick) {
        return run(out, device, quick, -1);
    }

    /**
     * {@link #run(PrintStream, String, boolean)} with the target's and the relay's RDMA contexts on GID
     * index {@code gidIndex} of {@code device} (their {@code -g}; -1: the device's default).
     */
    public static int run(PrintStream out, String device, boolean quick, int gidIndex) {
        double scale = DemoSettings.scale(out);
        if (Double.isNaN(scale)) {
            return 2;
        }
        // Checked here, once, so a wrong -d or -g is one line, not failed children.
        if (!DemoSettings.checkDevice(out, device, gidIndex)) {
            return 2;
        }
        RdmaFlags rdma = new RdmaFlags(device, gidIndex);
        int rc = run(out, rdma, scale, "read_write_data_validity_test", quick ? 256 : 2048, 4096, 0, quick ? 16 : 32);
        if (rc != 0 || quick) {
            return rc;
        }
        return run(out, rdma, scale, "read_throughput_test", 2048, 4096, 200_000, 32);
    }

    /** The target's and the relay's {@code -d} and {@code -g}. */
    private record RdmaFlags(String device, int gidIndex) {
        /** {@code args}, then {@code -g N} when a GID index was given. */
        List<String> args(String... args) {
            List<String> l = new ArrayList<>(List.of(args));
            l.addAll(DemoSettings.gidArgs(gidIndex));
            return l;
        }
    }

    /**
     * One three-process run: {@code strategy} over {@code blockCount} blocks of {@code blockSize}
     * bytes, {@code runLimit} operations (0 = the whole storage for validity tests). Returns the
     * initiator's exit code (or 1 if a service failed to start).
     */
    public static int run(PrintStream out, String strategy, int blockCount, int blockSize, long runLimit,
            int transactions) {
        return run(out, new RdmaFlags("sw0", -1), 1, strategy, blockCount, blockSize, runLimit, transactions);
    }

    private static int run(PrintStream out, RdmaFlags rdma, double scale, String strategy, int blockCount,
            int blockSize, long runLimit, int transactions) {
        String device = rdma.device();
        List<Process> procs = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        DemoWait wait = new DemoWait(out, scale, System.nanoTime());
        long controlTimeoutS = Math.round(DemoSettings.CONTROL_TIMEOUT_S * scale);
        long exitMs = (long) (EXIT_TIMEOUT_MS * scale);
        try {
            int port = freePort();
            String channel = "jdoca-demo-" + ProcessHandle.current().pid() + "-" + System.nanoTime() % 100000;
            out.printf("demo zero-copy: target-rdma on TCP port %d, zero-copy relay on comch channel '%s',"
                    + " initiator-comch (%s), RDMA on %s%n", port, channel, strategy, device);
            Process target = start(procs, logs, "target-rdma", rdma.args("target-rdma", "-d", device, "--cpu",
                    String.valueOf(DemoSettings.edgeCpu()), "--once",
                    "--listen-address", "127.0.0.1", "--listen-port", String.valueOf(port), "--block-count",
                    String.valueOf(blockCount), "--block-size", String.valueOf(blockSize)));
            DemoWait.Outcome o = awaitOutput(wait, "target-rdma is starting", logs.get(0), List.of(target),
                    "listening on TCP port");
            if (o != DemoWait.Outcome.READY) {
                return failed(out, "target-rdma", wait.explain(o, "target-rdma", DemoWait.START_BOUND_MS), logs.get(0));
            }
            Process relay = start(procs, logs, "zero-copy", rdma.args("zero-copy", "-d", device, "-r", "hpf0", "--cpu",
                    String.valueOf(DemoSettings.relayCpu()), "--once",
                    "--storage-server", "127.0.0.1:" + port, "--command-channel-name", channel, "--control-timeout",
                    String.valueOf(controlTimeoutS)));
            o = awaitOutput(wait, "zero-copy is starting", logs.get(1), List.of(relay, target),
                    "serving comch channel");
            if (o != DemoWait.Outcome.READY) {
                return failed(out, "zero-copy", wait.explain(o, "zero-copy", DemoWait.START_BOUND_MS), logs.get(1));
            }
            // Where the relay's RDMA runs (software transport or a verbs device), from its start-up line.
            Files.readAllLines(logs.get(1)).stream().filter(l -> l.startsWith("zero-copy: RDMA on")).findFirst()
                    .ifPresent(l -> out.println("demo " + l));
            List<String> ini = new ArrayList<>(List.of("initiator-comch", "-d", "sw0", "--cpu",
                    String.valueOf(DemoSettings.edgeCpu()), "--command-channel-name",
                    channel, "--execution-strategy", strategy, "--transaction-count", String.valueOf(transactions),
                    "--control-timeout", String.valueOf(controlTimeoutS), "--expect-service",
                    Long.toString(relay.pid())));
            if (runLimit > 0) {
                ini.add("--run-limit-operation-count");
                ini.add(String.valueOf(runLimit));
            }
            Process initiator = start(procs, logs, "initiator-comch", ini);
            // One handle for the watch and the condition: Process.isAlive() turns false only once the JDK's reaper
            // thread has collected the exit, ProcessHandle.isAlive() as soon as the OS has it, so mixing the two
            // read a fast, successful initiator (on a loaded machine) as "exited before it was ready".
            ProcessHandle ih = initiator.toHandle();
            o = wait.await("the initiator is running", List.of(ih), () -> !ih.isAlive(), DemoWait.RUN_BOUND_MS);
            if (o != DemoWait.Outcome.READY) {
                return failed(out, "initiator-comch", wait.explain(o, "initiator-comch", DemoWait.RUN_BOUND_MS),
                        logs.get(2));
            }
            out.print(Files.readString(logs.get(2)));
            int rc = initiator.waitFor(); // exited: returns once the reaper has its status
            relay.waitFor(exitMs, TimeUnit.MILLISECONDS);
            target.waitFor(exitMs, TimeUnit.MILLISECONDS);
            out.flush();
            return rc;
        } catch (IOException e) {
            out.println("demo zero-copy: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        } finally {
            for (Process p : procs) {
                if (p.isAlive()) {
                    p.descendants().forEach(ProcessHandle::destroy);
                    p.destroy();
                    try {
                        if (!p.waitFor(5, TimeUnit.SECONDS)) {
                            p.destroyForcibly();
                        }
                    } catch (InterruptedException e) {
                        p.destroyForcibly();
                        Thread.currentThread().interrupt();
                    }
                }
            }
            String keep = System.getenv("JDOCA_DEMO_LOGS");
            for (Path l : logs) {
                try {
                    if (keep != null && !keep.isBlank() && Files.exists(l)) {
                        // JDOCA_DEMO_LOGS=DIR keeps every child's output (diagnosis), as in the gga demo.
                        String name = l.getFileName().toString().replaceFirst("^jdoca-demo-", "zero-copy-demo-")
                                .replaceFirst("-[0-9]+\\.log$", ".log");
                        Files.copy(l, Path.of(keep).resolve(name), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    }
                    Files.deleteIfExists(l);
                } catch (IOException ignored) {
                    // best effort
                }
            }
        }
    }

    private static int failed(PrintStream out, String who, String why, Path log) throws IOException {
        out.println("demo zero-copy: " + who + " failed: " + why + "; its output:");
        out.print(Files.readString(log));
        return 1;
    }

    private static Process start(List<Process> procs, List<Path> logs, String name,
            List<String> args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JVM_FLAGS);
        cmd.addAll(DemoSettings.childJavaOpts());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(StorageProperties.DEMO_MAIN.asString());
        cmd.addAll(args);
        Path log = Files.createTempFile("jdoca-demo-" + name + "-", ".log");
        logs.add(log);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        procs.add(p);
        return p;
    }

    /** Waits for {@code text} in {@code log} while the processes live and work ({@link DemoWait}). */
    private static DemoWait.Outcome awaitOutput(DemoWait wait, String what, Path log, List<Process> watched,
            String text)
            throws InterruptedException {
        return wait.await(what, watched.stream().map(Process::toHandle).toList(), () -> {
            try {
                return Files.readString(log).contains(text);
            } catch (IOException e) {
                return false;
            }
        }, DemoWait.START_BOUND_MS);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
