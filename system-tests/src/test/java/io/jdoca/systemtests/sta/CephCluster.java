package io.jdoca.systemtests.sta;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away one-node Ceph cluster for system tests ({@code scripts/ceph-cluster.sh}: a monitor and a memstore
 * OSD on 127.0.0.1, pool "rbd", everything in one directory), and its {@code rbd} CLI. {@link #start} skips the
 * test with one line when Ceph is not installed; {@link #close} stops only the daemons the script started there.
 *
 * <p>Threads: one test thread.
 */
final class CephCluster implements AutoCloseable {
    private final Path script;
    private final Path dir;

    private CephCluster(Path script, Path dir) {
        this.script = script;
        this.dir = dir;
    }

    static CephCluster start(Path dir) throws IOException, InterruptedException {
        for (String tool : List.of("ceph-mon", "ceph-osd", "ceph", "rbd")) {
            assumeTrue(Files.isExecutable(Path.of("/usr/bin", tool)), "SKIPPED: " + tool + " is not installed "
                    + "(scripts/ensure-packages.sh ceph-mon ceph-osd ceph-common librbd-dev)");
        }
        Path script = JavaProcess.repoRoot().resolve("scripts/ceph-cluster.sh");
        CephCluster c = new CephCluster(script, dir);
        long t0 = System.nanoTime();
        String out;
        try {
            out = c.exec(180, script.toString(), "start", dir.toString());
        } catch (IllegalStateException e) {
            c.close(); // a daemon the script started before it failed
            throw e;
        }
        System.out.printf("one-node Ceph cluster up in %.1f s: %s%n", (System.nanoTime() - t0) / 1e9, out.strip());
        return c;
    }

    Path conf() {
        return dir.resolve("ceph.conf");
    }

    Path keyring() {
        return dir.resolve("admin.keyring");
    }

    /** Runs {@code rbd -c ceph.conf ARGS}; returns its output, fails on a non-zero status. */
    String rbd(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("rbd", "-c", conf().toString()));
        cmd.addAll(List.of(args));
        return exec(120, cmd.toArray(String[]::new));
    }

    private String exec(int seconds, String... cmd) throws IOException, InterruptedException {
        Path log = Files.createTempFile(dir.getParent(), "ceph-cmd", ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = p.waitFor(seconds, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        Files.deleteIfExists(log);
        if (!ended || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + (ended ? " exited " + p.exitValue()
                    : " timed out") + ": " + out.strip());
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        try {
            exec(60, script.toString(), "stop", dir.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while stopping the Ceph cluster in " + dir, e);
        }
    }
}
