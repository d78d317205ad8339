package io.jdoca.sta.backend.rbd;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A one-node Ceph cluster (one monitor, one memstore OSD, 127.0.0.1 only, pool "rbd") for tests,
 * started by {@code scripts/ceph-cluster.sh} in a test's temporary directory and stopped by
 * {@link #close} (the script kills only the daemons whose pid files are in that directory).
 * {@link #start} skips the calling test with one line when ceph-mon, ceph-osd, rbd or librbd are
 * missing. Test threads only.
 */
public final class CephTestCluster implements AutoCloseable {
    private static final long START_TIMEOUT_SECONDS = 120;
    private final Path script;
    private final Path dir;
    private final Path conf;

    private CephTestCluster(Path script, Path dir, Path conf) {
        this.script = script;
        this.dir = dir;
        this.conf = conf;
    }

    /** Starts a cluster in {@code dir} (skips the test when Ceph is not installed); prints how long it took. */
    public static CephTestCluster start(Path dir) throws IOException, InterruptedException {
        for (String tool : List.of("ceph-mon", "ceph-osd", "ceph", "rbd")) {
            assumeTrue(onPath(tool), "skipped: " + tool + " not installed "
                    + "(scripts/ensure-packages.sh ceph-mon ceph-osd ceph-common)");
        }
        assumeTrue(Librbd.available(), () -> "skipped: " + Librbd.unavailableReason());
        Path script = findScript();
        long t0 = System.nanoTime();
        Result r = exec(List.of(script.toString(), "start", dir.toString()), START_TIMEOUT_SECONDS);
        CephTestCluster c = new CephTestCluster(script, dir, dir.resolve("ceph.conf"));
        if (r.rc != 0) {
            c.close();
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

    public Path conf() {
        return conf;
    }

    public Path adminKeyring() {
        return dir.resolve("admin.keyring");
    }

    /** Options for client.admin through the cluster's ceph.conf and key ring. */
    public RadosCluster.Options options(int timeoutSeconds) {
        return new RadosCluster.Options("ceph", "admin", conf.toString(), adminKeyring().toString(), null, Map.of(),
                timeoutSeconds);
    }

    /** Runs the {@code rbd} CLI on this cluster; fails on a non-zero exit. */
    public void rbd(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("rbd", "-c", conf.toString()));
        cmd.addAll(List.of(args));
        Result r = exec(cmd, 60);
        if (r.rc != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed (" + r.rc + "): " + r.out.strip());
        }
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
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        // Output is small (a path, or an error); read it after exit, bounded by the timeout.
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            return new Result(-1, "timed out after " + timeoutSeconds + " s");
        }
        return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
}
