package io.jdoca.bench.nvmf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jdoca.bench.BenchResult;
import io.jdoca.core.config.CoreProperties;
import io.jdoca.sta.backend.rbd.Librbd;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The RBD gateway's cost (issue 34 item 2): 4 KiB random write and read at QD 32 through
 * {@code sta-target} onto an RBD bdev ({@code bdev_rbd_register_cluster}, {@code bdev_rbd_create},
 * {@code nvmf_subsystem_add_ns} over the target's RPC socket) against {@code fio --ioengine=rbd}
 * directly on the same image of the same cluster: a one-node memstore cluster from
 * {@code scripts/ceph-cluster.sh} in the suite's directory, stopped at the end (also on failure).
 * The image is written through with fio (1 MiB sequential writes) before each workload's rounds, so reads hit
 * allocated objects for both and no workload inherits the pieces the previous one's random writes left. librbd's
 * client cache is off for both ({@code rbd cache = false} in the cluster's {@code [client]} section; the target's
 * back-end always turns it off): otherwise fio's reads would
 * partly come from its own process's memory. CPUs: the target's IO engine has core 0 to itself ({@code -m}) and
 * its other threads, librbd's among them, run on the rest (as SPDK starts librbd's threads unaffinitized); fio is not
 * pinned, so its librbd threads may run anywhere too and the baseline has the whole machine; nvme-perf runs on the
 * other core and sleeps when it has nothing to do (see {@link #PERF_IDLE}). (Until 2026-12-02 the whole target
 * process and fio were both pinned to core 0.) Rounds alternate target and fio; the medians
 * and the median of the rounds' ratios are reported. Skipped with one line without Ceph, librbd or
 * fio's rbd engine. Called from {@link NvmfSuite}; calling thread only.
 */
final class RbdGatewayLoads {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String NQN_RBD = "nqn.2024-01.io.jdoca:bench-rbd";
    private static final String IMAGE = "bench";
    private static final int IMAGE_MB = 256;
    private static final String FIO = "/usr/bin/fio";
    /**
     * nvme-perf sleeps between completions here: a host spinning on the second of two cores would take from the
     * OSD and monitor the core fio's side leaves them, and at RBD's millisecond latencies spinning buys nothing.
     */
    private static final List<String> PERF_IDLE = List.of("--idle", "sleep");
    /**
     * Rounds of a full run: more than the other workloads' five, because on two cores shared by the cluster, the
     * gateway and its host, consecutive windows of one configuration differ by up to ±30 % (fio alone too; see
     * docs/performance/nvmf.md, 2026-12-03 06:30), and the ratio is the median of paired rounds.
     */
    static final int ROUNDS = 9;

    private final NvmfSuite suite;
    private final Path dir;
    private final Path rpcSock;

    RbdGatewayLoads(NvmfSuite suite, Path dir, Path rpcSock) {
        this.suite = suite;
        this.dir = dir;
        this.rpcSock = rpcSock;
    }

    /** Why the rows cannot run here, or null. */
    static String missing() {
        for (String tool : List.of("ceph-mon", "ceph-osd", "ceph", "rbd")) {
            if (!onPath(tool)) {
                return tool + " not installed (scripts/ensure-packages.sh ceph-mon ceph-osd ceph-common)";
            }
        }
        if (!Files.isExecutable(Path.of(FIO))) {
            return "no " + FIO + " (scripts/ensure-packages.sh installs it)";
        }
        if (!Librbd.available()) {
            return Librbd.unavailableReason();
        }
        try {
            Process p = new ProcessBuilder(FIO, "--enghelp=rbd").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                return "fio has no rbd engine (fio --enghelp=rbd failed)";
            }
        } catch (IOException | InterruptedException e) {
            return "fio --enghelp=rbd: " + e;
        }
        return null;
    }

    /** Adds the rows to {@code out}: {@code rounds} alternating rounds of {@code secs} seconds each. */
    void run(List<BenchResult> out, Process target, String perfCpu, int tport, int rounds,
             double secs) throws Exception {
        String why = missing();
        if (why != null) {
            System.err.println("nvmf: RBD gateway figures skipped: " + why);
            return;
        }
        Path script = findScript();
        if (script == null) {
            System.err.println("nvmf: RBD gateway figures skipped: scripts/ceph-cluster.sh not found (run from the "
                    + "source tree)");
            return;
        }
        Path cdir = dir.resolve("ceph");
        Path conf = cdir.resolve("ceph.conf");
        boolean exported = false;
        try {
            exec(List.of(script.toString(), "start", cdir.toString()), 180);
            // The [client] section is the file's last: the line lands in it (see the class comment).
            Files.writeString(conf, "rbd cache = false\n", java.nio.file.StandardOpenOption.APPEND);
            exec(List.of("rbd", "-c", conf.toString(), "create", "--size", IMAGE_MB + "M", "--image-feature",
                    "layering", "rbd/" + IMAGE), 60);
            NvmfSuite.Load fill = new NvmfSuite.Load("rbd_prefill", "write", 1 << 20, 8);
            fio(conf, fill, 0);
            rpc("bdev_rbd_register_cluster", Map.of("name", "bench", "user_id", "admin", "config_file",
                    conf.toString(), "key_file", cdir.resolve("admin.keyring").toString()));
            rpc("bdev_rbd_create", Map.of("pool_name", "rbd", "rbd_name", IMAGE, "block_size", 4096,
                    "cluster_name", "bench", "name", "Ceph0"));
            rpc("nvmf_subsystem_add_ns", Map.of("nqn", NQN_RBD, "namespace", Map.of("bdev_name", "Ceph0")));
            exported = true;
            // Unmeasured warm-up of the target's RBD path (JIT, librbd's first object opens), as the suite's.
            suite.perf(perfCpu, dir, tport, NQN_RBD, new NvmfSuite.Load("rbd_warmup", "randrw", 4096, 32), 2,
                    IMAGE_MB, PERF_IDLE);
            for (NvmfSuite.Load l : List.of(new NvmfSuite.Load("rbd_randwrite_4k_qd32", "randwrite", 4096, 32),
                    new NvmfSuite.Load("rbd_randread_4k_qd32", "randread", 4096, 32))) {
                // Each workload starts from a sequentially written image: random 4 KiB writes leave the memstore
                // OSD's objects in pieces, and reads of such an image ran at 17 against 26 kIOPS for fio alone
                // (docs/performance/nvmf.md, 2026-12-03 07:30); writing it through again restores them.
                fio(conf, fill, 0);
                rows(out, target, perfCpu, tport, rounds, secs, conf, l);
            }
        } catch (Exception e) {
            // The suite's other rows stand; this one says why it has no figures.
            System.err.println("nvmf: RBD gateway figures failed: " + e.getMessage() + " (logs in " + dir + ")");
        } finally {
            if (exported) {
                quietly("nvmf_subsystem_remove_ns", Map.of("nqn", NQN_RBD, "nsid", 1));
                quietly("bdev_rbd_delete", Map.of("name", "Ceph0"));
                quietly("bdev_rbd_unregister_cluster", Map.of("name", "bench"));
            }
            try {
                exec(List.of(script.toString(), "stop", cdir.toString()), 60);
            } catch (IOException e) {
                System.err.println("nvmf: stopping the Ceph cluster in " + cdir + ": " + e.getMessage());
            }
        }
    }

    private void rows(List<BenchResult> out, Process target, String perfCpu, int tport,
                      int rounds, double secs, Path conf, NvmfSuite.Load l) throws Exception {
        double[] t = new double[rounds];
        double[] f = new double[rounds];
        double[] ratio = new double[rounds];
        double[] tk = new double[rounds];
        double[] tcpu = new double[rounds];
        double[] fcpu = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long c0 = NvmfSuite.cpuTicks(target.pid());
            JsonNode tj = suite.perf(perfCpu, dir, tport, NQN_RBD, l, secs, IMAGE_MB, PERF_IDLE);
            long c1 = NvmfSuite.cpuTicks(target.pid());
            t[r] = tj.get("iops").asDouble();
            // The target's CPU includes its librbd threads; nvme-perf's warm-up second is counted in the I/Os.
            tcpu[r] = t[r] > 0 ? (c1 - c0) * NvmfSuite.TICK_US / (t[r] * (secs + 1)) : 0;
            double[] fio = fio(conf, l, secs);
            f[r] = fio[0];
            fcpu[r] = fio[1];
            ratio[r] = f[r] > 0 ? t[r] / f[r] : 0;
            tk[r] = t[r] / 1000;
            System.err.printf("nvmf: %s round %d: target %.0f IOPS, fio rbd %.0f IOPS (%.2f), load %s%n", l.name(),
                    r + 1, t[r], f[r], ratio[r], NvmfSuite.loadAverage());
        }
        String base = "fio --ioengine=rbd --numjobs=1 (not pinned) on the same image and cluster (one-node memstore);"
                + " medians of " + rounds + " alternating rounds of " + (int) secs + " s; ratio: median of the"
                + " rounds' ratios; nvme-perf --idle sleep";
        out.add(new BenchResult("nvmf." + l.name() + ".kiops", "kIOPS", NvmfSuite.median(t) / 1000, base,
                NvmfSuite.median(f) / 1000, NvmfSuite.median(ratio)).withRounds(tk));
        out.add(BenchResult.of("nvmf." + l.name() + ".cpu_us_per_io", "us", NvmfSuite.median(tcpu), base,
                NvmfSuite.median(fcpu)));
    }

    /**
     * fio's rbd engine on the bench image: {IOPS, CPU microseconds per I/O of the fio process}. With
     * {@code secs} 0, one pass over the whole image (the pre-fill).
     */
    private double[] fio(Path conf, NvmfSuite.Load l, double secs) throws Exception {
        Path log = dir.resolve("fio-" + l.name() + ".json");
        Path stat = dir.resolve("fio-" + l.name() + ".stat");
        List<String> cmd = new ArrayList<>();
        // fio's own usr_cpu/sys_cpu count its job thread only, not librbd's threads (a few us per I/O where
        // librbd spends tens): the wrapping shell's /proc stat, read after it reaped fio, has the whole process's
        // CPU in cutime + cstime, as the target's figure has its librbd threads'.
        cmd.addAll(List.of("/bin/sh", "-c", "\"$@\"; rc=$?; cat /proc/$$/stat > '" + stat + "'; exit $rc", "sh"));
        cmd.addAll(List.of(FIO, "--name=" + l.name(), "--ioengine=rbd", "--clientname=admin", "--pool=rbd",
                "--rbdname=" + IMAGE, "--rw=" + l.workload(), "--bs=" + l.ioSize(), "--iodepth=" + l.qd(),
                "--numjobs=1", "--direct=1", "--output-format=json"));
        if (secs > 0) {
            // The same 1 s unmeasured start as nvme-perf's --warmup 1.
            cmd.addAll(List.of("--ramp_time=1", "--runtime=" + (int) Math.ceil(secs), "--time_based"));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(log.toFile())
                .redirectError(dir.resolve("fio-" + l.name() + ".err").toFile());
        pb.environment().put("CEPH_CONF", conf.toString());
        Process p = pb.start();
        if (!p.waitFor((long) secs + 120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("fio timed out; output " + log);
        }
        if (p.exitValue() != 0) {
            throw new IOException("fio exited " + p.exitValue() + ": " + Files.readString(dir.resolve("fio-"
                    + l.name() + ".err")).strip());
        }
        JsonNode job = JSON.readTree(log.toFile()).path("jobs").path(0);
        double iops = job.path(l.workload().contains("write") ? "write" : "read").path("iops").asDouble();
        // Over the ramp second too, as the target's figure over nvme-perf's warm-up second (fio's start-up in it).
        double cpuUs = childTicks(stat) * NvmfSuite.TICK_US;
        double usPerIo = iops > 0 && secs > 0 ? cpuUs / (iops * (Math.ceil(secs) + 1)) : 0;
        System.err.printf("fio: %s %.0f IOPS, %.2f s CPU%n", l.name(), iops, cpuUs / 1e6);
        return new double[] {iops, usPerIo};
    }

    /** cutime + cstime (fields 16 and 17) of a saved /proc/PID/stat, or 0. */
    private static long childTicks(Path stat) {
        try {
            String st = Files.readString(stat);
            String[] f = st.substring(st.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[13]) + Long.parseLong(f[14]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** One JSON-RPC call on the target's socket; throws IOException with the target's error. */
    private JsonNode rpc(String method, Map<String, Object> params) throws IOException {
        return TargetRpc.call(rpcSock, method, params);
    }

    /** Teardown call: a failure is printed, not thrown (the cluster must still be stopped). */
    private void quietly(String method, Map<String, Object> params) {
        try {
            rpc(method, params);
        } catch (IOException e) {
            System.err.println("nvmf: " + e.getMessage());
        }
    }

    private static void exec(List<String> cmd, long timeoutSeconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        // Output is small (a path, or an error): read after the exit, bounded by the timeout.
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new IOException(String.join(" ", cmd) + ": timed out after " + timeoutSeconds + " s");
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed (" + p.exitValue() + "): "
                    + new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
        }
    }

    private static Path findScript() {
        String home = System.getProperty(CoreProperties.HOME.name());
        List<Path> starts = new ArrayList<>();
        if (home != null) {
            starts.add(Path.of(home));
        }
        starts.add(Path.of("").toAbsolutePath());
        for (Path start : starts) {
            for (Path d = start; d != null; d = d.getParent()) {
                Path s = d.resolve("scripts/ceph-cluster.sh");
                if (Files.isExecutable(s)) {
                    return s;
                }
            }
        }
        return null;
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }
}
