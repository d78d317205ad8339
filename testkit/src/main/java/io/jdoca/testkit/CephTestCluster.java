package io.jdoca.testkit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away one-node Ceph cluster (one monitor, one memstore OSD, 127.0.0.1 only, cephx, pool "rbd"), started
 * by {@code scripts/ceph-cluster.sh} in a test's temporary directory and stopped by {@link #close} (the script
 * kills only the daemons whose pid files are in that directory), and its {@code rbd} CLI. The one fixture of the
 * RBD tests of every module. {@link #start} skips the calling test with one line when ceph-mon, ceph-osd, ceph or
 * rbd are missing (callers that need librbd check it themselves: the binding lives in sta).
 *
 * <p>Threads: test threads.
 */
public final class CephTestCluster implements AutoCloseable {
    private static final long START_TIMEOUT_SECONDS = 180;
    private final Path script;
    private final Path dir;

    private CephTestCluster(Path script, Path dir) {
        this.script = script;
        this.dir = dir;
    }

    /** Starts a cluster in {@code dir} (skips the test when Ceph is not installed); prints how long it took. */
    public static CephTestCluster start(Path dir) throws IOException, InterruptedException {
        for (String tool : List.of("ceph-mon", "ceph-osd", "ceph", "rbd")) {
            assumeTrue(onPath(tool), "skipped: " + tool + " is not installed "
                    + "(scripts/ensure-packages.sh ceph-mon ceph-osd ceph-common librbd-dev)");
        }
        Path script = findScript();
        CephTestCluster c = new CephTestCluster(script, dir);
        long t0 = System.nanoTime();
        Result r = exec(List.of(script.toString(), "start", dir.toString()), START_TIMEOUT_SECONDS);
        if (r.rc != 0) {
            c.close(); // a daemon the script started before it failed
            throw new IllegalStateException("ceph-cluster.sh start failed (" + r.rc + "): " + r.out.strip());
        }
        System.out.printf("one-node Ceph cluster started in %.1f s (%s)%n", (System.nanoTime() - t0) / 1e9, dir);
        return c;
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }

    private static Path findScript() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path s = d.resolve("scripts/ceph-cluster.sh");
            if (Files.isExecutable(s)) {
                return s;
            }
        }
        throw new IllegalStateException("scripts/ceph-cluster.sh not found above " + Path.of("").toAbsolutePath());
    }

    /** The cluster's ceph.conf (its admin key ring is named there). */
    public Path conf() {
        return dir.resolve("ceph.conf");
    }

    public Path adminKeyring() {
        return dir.resolve("admin.keyring");
    }

    /** The pid of {@code daemon} ("osd.0", "mon.a"), from the script's pid file. */
    public String pid(String daemon) throws IOException {
        return Files.readString(dir.resolve("run/" + daemon + ".pid")).strip();
    }

    /** Runs the {@code rbd} CLI on this cluster; returns its output, fails on a non-zero exit. */
    public String rbd(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("rbd", "-c", conf().toString()));
        cmd.addAll(List.of(args));
        Result r = exec(cmd, 120);
        if (r.rc != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed (" + r.rc + "): " + r.out.strip());
        }
        return r.out;
    }

    @Override
    public void close() throws IOException {
        try {
            Result r = exec(List.of(script.toString(), "stop", dir.toString()), 60);
            if (r.rc != 0) {
                System.err.println("ceph-cluster.sh stop failed (" + r.rc + "): " + r.out.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while stopping the Ceph cluster in " + dir, e);
        }
    }

    private record Result(int rc, String out) {
    }

    private static Result exec(List<String> cmd, long timeoutSeconds) throws IOException, InterruptedException {
        // Output to a file: read after exit without filling a pipe the process would block on.
        Path log = Files.createTempFile("ceph-cmd", ".log");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                return new Result(-1, "timed out after " + timeoutSeconds + " s");
            }
            return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
