package io.jdoca.bench.nvmf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jdoca.bench.BenchResult;
import io.jdoca.bench.BenchSuite;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./jdoca bench nvmf}: {@code sta-target} (memory back-end, one IO thread) and
 * {@code nvme-perf}, each pinned to its own core with taskset, over NVMe/TCP on loopback:
 * 4 KiB random read and write at QD 32, 4 KiB random read at QD 1 (latency), 128 KiB sequential
 * read and write at QD 32. The baseline, in the same run and with the same pinning, is the same
 * nvme-perf against {@code nvme-perf --echo-server} (a trivial responder with the same PDU sizes
 * and no controller or storage: the transport ceiling). Each process is a separate JVM started
 * from this JVM's class path.
 *
 * <p>File back-end: 4 KiB random read and write at QD 32 through the target to a namespace on a
 * file (io_uring, O_DIRECT), against {@code fio --ioengine=io_uring --direct=1 --numjobs=1} on the
 * same file, pinned to the target's core, as same-run baseline, alternating for three rounds
 * (skipped with a message without fio); see {@link #fileLoads}.
 *
 * <p>NVMe/TCP over TLS 1.3 (issue 33): 4 KiB random read and 128 KiB read at QD 32 through a secure-channel
 * listener against the same loads through the plain one, same run; see {@link TlsLoads}.
 *
 * <p>RBD back-end (the gateway's cost, issue 34 item 2): the same 4 KiB random loads through the target onto an
 * RBD bdev of a throw-away one-node Ceph cluster against {@code fio --ioengine=rbd} on the same image; see
 * {@link RbdGatewayLoads} (skipped with a message without Ceph or fio's rbd engine).
 */
public final class NvmfSuite implements BenchSuite {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String NQN = "nqn.2024-01.io.jdoca:bench";
    static final String NQN_FILE = "nqn.2024-01.io.jdoca:bench-file";
    static final int FILE_MB = 512;

    @Override
    public String description() {
        return "NVMe/TCP target (sta-target, memory back-end) vs a trivial echo responder, nvme-perf on its own core";
    }

    record Load(String name, String workload, int ioSize, int qd) {
    }

    @Override
    public List<BenchResult> run(boolean quick) throws Exception {
        double secs = quick ? 2 : 8;
        // The transport rows: at least 5 rounds (issue 35), each shorter than the single 8 s run they replace.
        int rounds = quick ? 2 : 5;
        double roundSecs = quick ? 2 : 4;
        List<Load> loads = List.of(new Load("randread_4k_qd32", "randread", 4096, 32),
                new Load("randwrite_4k_qd32", "randwrite", 4096, 32),
                new Load("read_128k_qd32", "read", 131072, 32),
                new Load("write_128k_qd32", "write", 131072, 32),
                new Load("randread_4k_qd1", "randread", 4096, 1));
        int cpus = Runtime.getRuntime().availableProcessors();
        String targetCpu = "0";
        String perfCpu = cpus > 1 ? "1" : "0";
        List<BenchResult> out = new ArrayList<>();
        Path dir = Files.createTempDirectory("jdoca-bench-nvmf");
        int tport = freePort();
        Path cfg = dir.resolve("target.json");
        // The file back-end's file, written through once so reads hit allocated blocks (as fio's would).
        Path img = dir.resolve("file-ns.img");
        fillFile(img, FILE_MB);
        Path sock = dir.resolve("rpc.sock");
        // The RBD rows' subsystem starts empty: the RPCs add the RBD bdev when a cluster is there.
        Files.writeString(cfg, """
                { "io_threads": 1, "rpc_socket": "%s",
                  "listeners": [ { "address": "127.0.0.1", "port": %d } ],
                  "subsystems": [ { "nqn": "%s", "allow_any_host": true,
                    "namespaces": [ { "nsid": 1, "backend": "memory", "size_mb": 1024, "block_size": 4096 } ] },
                    { "nqn": "%s", "allow_any_host": true,
                    "namespaces": [ { "nsid": 1, "backend": "file", "path": "%s", "size_mb": %d,
                            "block_size": 4096 } ] },
                    { "nqn": "%s", "allow_any_host": true, "namespaces": [] } ] }
                """.formatted(sock, tport, NQN, NQN_FILE, img, FILE_MB, RbdGatewayLoads.NQN_RBD));
        int eport = freePort();
        // The target pins its engine itself (-m, as SPDK's nvmf_tgt) and keeps its other threads (the JVM's, librbd's)
        // off that core; the echo responder, one thread, is pinned whole.
        Process target = start(null, dir.resolve("target.log"), "sta-target", "-m", "0x" + Long.toHexString(1L
                << Integer.parseInt(targetCpu)), "-j", cfg.toString(), "-l", "30");
        Process echo = start(targetCpu, dir.resolve("echo.log"), "nvme-perf", "--echo-server", String.valueOf(eport),
                "--log-level", "30");
        try {
            waitFor(dir.resolve("target.log"), "STA TARGET READY");
            waitFor(dir.resolve("echo.log"), "ECHO READY");
            // JIT warm-up of both responders (unmeasured): mixed 4 KiB and 128 KiB traffic.
            for (int port : new int[] {tport, eport}) {
                perf(perfCpu, dir, port, NQN, new Load("warmup_4k", "randrw", 4096, 32), quick ? 2 : 4);
                perf(perfCpu, dir, port, NQN, new Load("warmup_128k", "randrw", 131072, 8), quick ? 1 : 2);
            }
            for (Load l : loads) {
                transportRows(out, target, echo, perfCpu, dir, tport, eport, l, rounds, roundSecs);
            }
            // TLS vs plain to the memory namespace (issue 33): the price of encryption as a ratio.
            new TlsLoads(this, dir, sock).run(out, perfCpu, tport, secs);
            fileLoads(out, dir, target, targetCpu, perfCpu, tport, img, secs);
            // RBD gateway vs fio's rbd engine (issue 34 item 2): short with --quick, else as the file rows.
            new RbdGatewayLoads(this, dir, sock).run(out, target, perfCpu, tport, quick ? 2 : RbdGatewayLoads.ROUNDS,
                    quick ? 3 : Math.max(2, Math.ceil(secs / 2)));
            double alloc = TargetAllocationProbe.bytesPerIo(quick ? 50_000 : 100_000, quick ? 100_000 : 300_000);
            System.err.printf("nvmf: target engine thread allocation: %.3f bytes/I/O%n", alloc);
            out.add(BenchResult.plain("nvmf.target_alloc_bytes_per_io", "bytes", alloc));
        } finally {
            target.destroy();
            echo.destroy();
            target.waitFor(10, TimeUnit.SECONDS);
            echo.waitFor(10, TimeUnit.SECONDS);
            target.destroyForcibly();
            echo.destroyForcibly();
            Files.deleteIfExists(img);
        }
        return out;
    }

    /**
     * Rounds of the file back-end comparison: target and fio alternate, the medians are reported; five, as every
     * other workload of a full run (issue 35: the spread of each workload over at least five rounds). The RBD rows
     * have {@link RbdGatewayLoads#ROUNDS}.
     */
    static final int FILE_ROUNDS = 5;

    /**
     * File back-end 4 KiB random read and write at QD 32 vs fio (io_uring, O_DIRECT, one job) on the
     * same file. The two alternate for {@link #FILE_ROUNDS} rounds (so a change of the machine's
     * load hits both) and the medians are reported. The initiator busy-polls, as
     * {@code spdk_nvme_perf} (issue 13's reference) and the memory figures' initiator do: a sleeping
     * initiator adds its wake-up (≈ 30 µs on this machine's vCPUs) to every round of a disk-bound
     * QD 32 (ratio ≈ 0.68 against ≈ 0.80 spinning, side by side); keeping the initiator's core
     * awake does not speed fio's disk (measured, fio with a spinner on the other core: within 2 %).
     * On a heavily loaded machine a spinner loses its core to the scheduler and the figure drops;
     * the load average is printed with every round. docs/performance/nvmf.md has the measurements.
     */
    private void fileLoads(List<BenchResult> out, Path dir, Process target, String targetCpu, String perfCpu, int tport,
                           Path img, double secs) throws Exception {
        if (!Files.isExecutable(Path.of("/usr/bin/fio"))) {
            System.err.println("nvmf: file back-end figures skipped: no /usr/bin/fio (scripts/ensure-packages.sh "
                    + "installs it)");
            return;
        }
        double rsecs = Math.max(2, Math.ceil(secs / 2));
        for (Load l : List.of(new Load("file_randread_4k_qd32", "randread", 4096, 32),
                new Load("file_randwrite_4k_qd32", "randwrite", 4096, 32))) {
            double[] t = new double[FILE_ROUNDS];
            double[] f = new double[FILE_ROUNDS];
            double[] tcpu = new double[FILE_ROUNDS];
            double[] fcpu = new double[FILE_ROUNDS];
            for (int r = 0; r < FILE_ROUNDS; r++) {
                long c0 = cpuTicks(target.pid());
                JsonNode tj = perf(perfCpu, dir, tport, NQN_FILE, l, rsecs);
                long c1 = cpuTicks(target.pid());
                t[r] = tj.get("iops").asDouble();
                tcpu[r] = t[r] > 0 ? (c1 - c0) * TICK_US / (t[r] * (rsecs + 1)) : 0;
                double[] fio = fio(targetCpu, dir, img, l, rsecs);
                f[r] = fio[0];
                fcpu[r] = fio[1];
                System.err.printf("nvmf: %s round %d: target %.0f IOPS, fio %.0f IOPS (%.2f), load %s%n", l.name(), r
                        + 1,
                        t[r], f[r], f[r] > 0 ? t[r] / f[r] : 0, loadAverage());
            }
            String base = "fio --ioengine=io_uring --direct=1 --numjobs=1 on the same file, target's core medians of "
                    + FILE_ROUNDS + " alternating rounds; ratio: median of the rounds' ratios)";
            // Ratio: the median of the rounds' ratios (each round's pair ran back to back under the same load).
            double[] ratio = new double[FILE_ROUNDS];
            for (int r = 0; r < FILE_ROUNDS; r++) {
                ratio[r] = f[r] > 0 ? t[r] / f[r] : 0;
            }
            double[] tk = new double[FILE_ROUNDS];
            for (int r = 0; r < FILE_ROUNDS; r++) {
                tk[r] = t[r] / 1000;
            }
            out.add(new BenchResult("nvmf." + l.name() + ".kiops", "kIOPS", median(t) / 1000, base, median(f) / 1000,
                    median(ratio)).withRounds(tk));
            // CPU per I/O: the target process (the initiator not counted) vs the fio process.
            out.add(BenchResult.of("nvmf." + l.name() + ".cpu_us_per_io", "us", median(tcpu), base, median(fcpu)));
        }
    }

    static double median(double[] v) {
        double[] s = v.clone();
        java.util.Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "?";
        }
    }

    /** fio on {@code file}: {IOPS, CPU microseconds per I/O of the fio process}. */
    private double[] fio(String cpu, Path dir, Path file, Load l, double secs) throws Exception {
        Path log = dir.resolve("fio-" + l.name() + ".json");
        List<String> cmd = new ArrayList<>();
        if (Files.isExecutable(Path.of("/usr/bin/taskset"))) {
            cmd.addAll(List.of("/usr/bin/taskset", "-c", cpu));
        }
        cmd.addAll(List.of("/usr/bin/fio", "--name=" + l.name(), "--filename=" + file, "--ioengine=io_uring",
                "--direct=1",
                "--numjobs=1", "--rw=" + l.workload(), "--bs=" + l.ioSize(), "--iodepth=" + l.qd(), "--size=" + FILE_MB
                        + "M",
                "--ramp_time=1", "--runtime=" + (int) Math.ceil(secs), "--time_based", "--output-format=json"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(false).redirectOutput(log.toFile())
                .redirectError(dir.resolve("fio-" + l.name() + ".err").toFile()).start();
        if (!p.waitFor((long) secs + 60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("fio timed out; output " + log);
        }
        JsonNode job = JSON.readTree(log.toFile()).path("jobs").path(0);
        double iops = job.path(l.workload().contains("write") ? "write" : "read").path("iops").asDouble();
        // usr_cpu / sys_cpu: percent of one CPU over the job's run time
        double cpuPct = job.path("usr_cpu").asDouble() + job.path("sys_cpu").asDouble();
        double usPerIo = iops > 0 ? cpuPct / 100 * 1e6 / iops : 0;
        System.err.printf("fio: %s %.0f IOPS, %.1f %% CPU%n", l.name(), iops, cpuPct);
        return new double[] {iops, usPerIo};
    }

    /** Creates {@code mb} MiB of non-zero data at {@code file} (kept when it already has that size). */
    private static void fillFile(Path file, int mb) throws IOException {
        if (Files.exists(file) && Files.size(file) == (long) mb << 20) {
            return;
        }
        byte[] chunk = new byte[1 << 20];
        java.util.Arrays.fill(chunk, (byte) 0x5a);
        try (var os = Files.newOutputStream(file)) {
            for (int i = 0; i < mb; i++) {
                os.write(chunk);
            }
        }
    }

    /**
     * One workload against the target and the echo responder, {@code rounds} alternating rounds (the target idle
     * while the echo runs and vice versa: both are pinned to the same core): the median of the rounds for IOPS or
     * MiB/s, latency p50 / p99 / p99.9 and the target's CPU per I/O, each row with its rounds (issue 35: the spread
     * of every workload is visible in every run).
     */
    private void transportRows(List<BenchResult> out, Process target, Process echo, String perfCpu, Path dir,
                               int tport, int eport, Load l, int rounds, double secs) throws Exception {
        String[] lat = {"lat_p50_us", "lat_p99_us", "lat_p999_us"};
        boolean small = l.ioSize() == 4096;
        double[] tv = new double[rounds];
        double[] ev = new double[rounds];
        double[][] tl = new double[lat.length][rounds];
        double[][] el = new double[lat.length][rounds];
        double[] tcpu = new double[rounds];
        double[] ecpu = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long tc0 = cpuTicks(target.pid());
            JsonNode t = perf(perfCpu, dir, tport, NQN, l, secs);
            long tc1 = cpuTicks(target.pid());
            long ec0 = cpuTicks(echo.pid());
            JsonNode e = perf(perfCpu, dir, eport, NQN, l, secs);
            long ec1 = cpuTicks(echo.pid());
            tv[r] = small ? t.get("iops").asDouble() / 1000 : t.get("mibps").asDouble();
            ev[r] = small ? e.get("iops").asDouble() / 1000 : e.get("mibps").asDouble();
            for (int k = 0; k < lat.length; k++) {
                tl[k][r] = t.get(lat[k]).asDouble();
                el[k][r] = e.get(lat[k]).asDouble();
            }
            // CPU per I/O of the responding process (user + system, /proc ticks): robust on a loaded machine.
            double tIos = t.get("iops").asDouble() * (secs + 1);
            double eIos = e.get("iops").asDouble() * (secs + 1);
            tcpu[r] = tIos > 0 ? (tc1 - tc0) * TICK_US / tIos : 0;
            ecpu[r] = eIos > 0 ? (ec1 - ec0) * TICK_US / eIos : 0;
        }
        String base = "echo responder (transport ceiling); medians of " + rounds + " alternating rounds of "
                + (int) secs + " s";
        out.add(BenchResult.of("nvmf." + l.name() + ".target_cpu_us_per_io", "us", median(tcpu), base,
                median(ecpu)).withRounds(tcpu));
        out.add(BenchResult.of("nvmf." + l.name() + (small ? ".kiops" : ".mibps"), small ? "kIOPS" : "MiB/s",
                median(tv), base, median(ev)).withRounds(tv));
        for (int k = 0; k < lat.length; k++) {
            out.add(BenchResult.of("nvmf." + l.name() + "." + lat[k], "us", median(tl[k]), base, median(el[k]))
                    .withRounds(tl[k]));
        }
        // The baseline's own rounds: how steady the machine was. The echo responder does no work beyond the
        // transport, so when its rounds spread as widely as the target's the spread is the machine's (issue 35).
        out.add(BenchResult.plain("nvmf." + l.name() + (small ? ".echo_kiops" : ".echo_mibps"),
                small ? "kIOPS" : "MiB/s", median(ev)).withRounds(ev));
    }

    JsonNode perf(String cpu, Path dir, int port, String nqn, Load l, double secs) throws Exception {
        return perf(cpu, dir, port, nqn, l, secs, 512);
    }

    /** nvme-perf against {@code nqn} over the first {@code rangeMb} MiB of namespace 1; its JSON result. */
    JsonNode perf(String cpu, Path dir, int port, String nqn, Load l, double secs, int rangeMb) throws Exception {
        return perf(cpu, dir, port, nqn, l, secs, rangeMb, List.of());
    }

    /** {@link #perf(String, Path, int, String, Load, double, int)} with {@code extra} flags (e.g. TLS's). */
    JsonNode perf(String cpu, Path dir, int port, String nqn, Load l, double secs, int rangeMb, List<String> extra)
            throws Exception {
        Path log = dir.resolve("perf-" + port + "-" + l.name() + ".log");
        List<String> args = new ArrayList<>(List.of("nvme-perf", "--port", String.valueOf(port), "-n", nqn, "--nsid",
                "1",
                "-w", l.workload(), "-o",
                String.valueOf(l.ioSize()), "-q", String.valueOf(l.qd()), "-t", String.valueOf(secs), "--warmup", "1",
                "--range-mb", String.valueOf(rangeMb), "--disable-sqflow", "--json"));
        args.addAll(extra);
        Process p = start(cpu, log, args.toArray(String[]::new));
        if (!p.waitFor((long) secs + 60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("nvme-perf timed out; log " + log);
        }
        String text = Files.readString(log);
        System.err.print(text.lines().filter(s -> s.startsWith("nvme-perf:") || s.startsWith("  ")).reduce("", (a,
                b) -> a + b + "\n"));
        for (String line : text.lines().toList()) {
            if (line.startsWith("{\"workload\"")) {
                return JSON.readTree(line);
            }
        }
        throw new IOException("no result from nvme-perf (exit " + p.exitValue() + "):\n" + text);
    }

    /** 1 / USER_HZ in microseconds (USER_HZ is 100 on Linux). */
    static final double TICK_US = 10_000.0;

    /** utime + stime of a process in clock ticks (fields 14 and 15 of /proc/PID/stat), or 0. */
    static long cpuTicks(long pid) {
        try {
            String st = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = st.substring(st.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** Starts a jdoca app, on CPU {@code cpu} (taskset) unless null. */
    private static Process start(String cpu, Path log, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (cpu != null && Files.isExecutable(Path.of("/usr/bin/taskset"))) {
            cmd.addAll(List.of("/usr/bin/taskset", "-c", cpu));
        }
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of("--enable-native-access=ALL-UNNAMED", "--add-modules=jdk.incubator.vector",
                "-XX:+UseSerialGC",
                "-Xmx1g", "-XX:MaxDirectMemorySize=4g", "-cp", System.getProperty("java.class.path"),
                        "io.jdoca.cli.Main"));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static void waitFor(Path log, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log) && Files.readString(log).contains(text)) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IOException("'" + text + "' not seen in " + log + ":\n" + (Files.exists(log)
                ? Files.readString(log) : ""));
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
