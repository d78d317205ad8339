package io.jdoca.storage.demo;

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
    static final List<String> JVM_FLAGS = List.of("--enable-native-access=ALL-UNNAMED", "--add-modules=jdk.incubator.vector",
            "-XX:+UseSerialGC", "-Xmx512m");
    private static final long STEP_TIMEOUT_MS = 60_000;

    private ZeroCopyDemo() {
    }

    /** The demo with its defaults: a read+write data-validity run over 2048 blocks of 4 KiB, then a read throughput run. */
    public static int run(PrintStream out) {
        int rc = run(out, "read_write_data_validity_test", 2048, 4096, 0, 32);
        if (rc != 0) {
            return rc;
        }
        return run(out, "read_throughput_test", 2048, 4096, 200_000, 32);
    }

    /**
     * One three-process run: {@code strategy} over {@code blockCount} blocks of {@code blockSize}
     * bytes, {@code runLimit} operations (0 = the whole storage for validity tests). Returns the
     * initiator's exit code (or 1 if a service failed to start).
     */
    public static int run(PrintStream out, String strategy, int blockCount, int blockSize, long runLimit, int transactions) {
        List<Process> procs = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            int port = freePort();
            String channel = "jdoca-demo-" + ProcessHandle.current().pid() + "-" + System.nanoTime() % 100000;
            out.printf("demo zero-copy: target-rdma on TCP port %d, zero-copy relay on comch channel '%s', initiator-comch (%s)%n",
                    port, channel, strategy);
            Process target = start(procs, logs, "target-rdma", List.of("target-rdma", "-d", "sw0", "--cpu", "0", "--once",
                    "--listen-address", "127.0.0.1", "--listen-port", String.valueOf(port), "--block-count", String.valueOf(blockCount), "--block-size", String.valueOf(blockSize)));
            if (!awaitOutput(logs.get(0), target, "listening on TCP port")) {
                return failed(out, "target-rdma", logs.get(0));
            }
            Process relay = start(procs, logs, "zero-copy", List.of("zero-copy", "-d", "sw0", "-r", "hpf0", "--cpu", "0", "--once",
                    "--storage-server", "127.0.0.1:" + port, "--command-channel-name", channel));
            if (!awaitOutput(logs.get(1), relay, "serving comch channel")) {
                return failed(out, "zero-copy", logs.get(1));
            }
            List<String> ini = new ArrayList<>(List.of("initiator-comch", "-d", "sw0", "--cpu", "0", "--command-channel-name",
                    channel, "--execution-strategy", strategy, "--transaction-count", String.valueOf(transactions)));
            if (runLimit > 0) {
                ini.add("--run-limit-operation-count");
                ini.add(String.valueOf(runLimit));
            }
            Process initiator = start(procs, logs, "initiator-comch", ini);
            if (!initiator.waitFor(STEP_TIMEOUT_MS * 3, TimeUnit.MILLISECONDS)) {
                return failed(out, "initiator-comch (timeout)", logs.get(2));
            }
            out.print(Files.readString(logs.get(2)));
            int rc = initiator.exitValue();
            relay.waitFor(STEP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            target.waitFor(STEP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
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
            for (Path l : logs) {
                try {
                    Files.deleteIfExists(l);
                } catch (IOException ignored) {
                    // best effort
                }
            }
        }
    }

    private static int failed(PrintStream out, String who, Path log) throws IOException {
        out.println("demo zero-copy: " + who + " did not start:");
        out.print(Files.readString(log));
        return 1;
    }

    private static Process start(List<Process> procs, List<Path> logs, String name, List<String> args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JVM_FLAGS);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(System.getProperty("jdoca.demo.main", "io.jdoca.cli.Main"));
        cmd.addAll(args);
        Path log = Files.createTempFile("jdoca-demo-" + name + "-", ".log");
        logs.add(log);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        procs.add(p);
        return p;
    }

    private static boolean awaitOutput(Path log, Process p, String text) throws IOException, InterruptedException {
        long deadline = System.currentTimeMillis() + STEP_TIMEOUT_MS;
        while (System.currentTimeMillis() < deadline) {
            if (Files.readString(log).contains(text)) {
                return true;
            }
            if (!p.isAlive()) {
                return false;
            }
            Thread.sleep(20);
        }
        return false;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
