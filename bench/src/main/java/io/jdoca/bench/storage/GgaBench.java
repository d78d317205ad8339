package io.jdoca.bench.storage;

import io.jdoca.bench.BenchResult;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.ec.EcMatrixType;
import io.jdoca.gga.GgaService;
import io.jdoca.gga.WorkerStats;
import io.jdoca.gga.sbc.SbcGenerator;
import io.jdoca.storage.initiator.ExecutionStrategy;
import io.jdoca.storage.initiator.InitiatorComch;
import io.jdoca.storage.initiator.InitiatorStats;
import io.jdoca.storage.targetrdma.TargetRdma;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The GGA figures of {@code ./jdoca bench storage} (StorageSuite appends them): 4 KiB read, recovery
 * read (every read rebuilds a half by EC) and write IOPS with p50/p99 latency through gga-offload
 * (initiator-comch → Comch → gga-offload → RDMA ×3 → target-rdma ×3), each app on its own threads of
 * this JVM (loopback, shared-memory transports), one worker each, 32 transactions in flight. Baselines
 * measured in the same run: regular reads for recovery reads (the recovery cost), the zero-copy relay
 * over one target for reads and writes (what LZ4 + EC + three targets cost). Median of the repetitions.
 */
public final class GgaBench {
    private static final int HALF = 2048;
    private static final int BLOCKS = 4096;
    private static final int TX = 32;
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    private GgaBench() {
    }

    /** Runs the GGA storage benchmarks; {@code quick} for a short CI run. */
    public static List<BenchResult> run(boolean quick) throws Exception {
        long ops = quick ? 20_000 : 50_000;
        int reps = quick ? 1 : 3;
        Path dir = Files.createTempDirectory("jdoca-gga-bench");
        try {
            Path[] sbc = content(dir);
            // Warm-up of every path measured (JIT), so run order does not favour the later runs.
            gga(ExecutionStrategy.READ_THROUGHPUT_TEST, sbc, 0, 10_000);
            gga(ExecutionStrategy.READ_THROUGHPUT_TEST, sbc, 1, 10_000);
            gga(ExecutionStrategy.WRITE_THROUGHPUT_TEST, null, 0, 5_000);
            StorageSuite.zeroCopy(ExecutionStrategy.READ_THROUGHPUT_TEST, 10_000);
            List<BenchResult> out = new ArrayList<>();
            Run read = median(reps, () -> gga(ExecutionStrategy.READ_THROUGHPUT_TEST, sbc, 0, ops));
            Run rec = median(reps, () -> gga(ExecutionStrategy.READ_THROUGHPUT_TEST, sbc, 1, ops));
            Run write = median(reps, () -> gga(ExecutionStrategy.WRITE_THROUGHPUT_TEST, null, 0, ops));
            InitiatorStats zcRead = medianStats(reps, () ->
                    StorageSuite.zeroCopy(ExecutionStrategy.READ_THROUGHPUT_TEST, ops));
            InitiatorStats zcWrite = medianStats(reps, () ->
                    StorageSuite.zeroCopy(ExecutionStrategy.WRITE_THROUGHPUT_TEST, ops));
            System.err.printf(Locale.ROOT, "gga: read %.4f MIOP/s p50 %.1f us p99 %.1f us | recovery read %.4f MIOP/s"
                    + " (%d recoveries) | write %.4f MIOP/s | zero-copy read %.4f write %.4f MIOP/s%n",
                    read.ini.miops(), read.ini.latencyP50Us(), read.ini.latencyP99Us(), rec.ini.miops(), rec.recoveries,
                    write.ini.miops(), zcRead.miops(), zcWrite.miops());
            add(out, "read_4k", read.ini, "storage.zero_copy.read_4k", zcRead);
            add(out, "recovery_read_4k", rec.ini, "storage.gga.read_4k", read.ini);
            add(out, "write_4k", write.ini, "storage.zero_copy.write_4k", zcWrite);
            out.add(BenchResult.plain("storage.gga.recovery_vs_regular_read.ratio", "x",
                    rec.ini.miops() / read.ini.miops()));
            out.add(BenchResult.plain("storage.gga.read_4k.service_alloc_bytes_per_op", "B/op", read.allocPerOp));
            out.add(BenchResult.plain("storage.gga.write_4k.service_alloc_bytes_per_op", "B/op", write.allocPerOp));
            return out;
        } finally {
            try (var s = Files.list(dir)) {
                for (Path p : s.toList()) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    private static void add(List<BenchResult> out, String op, InitiatorStats s, String base, InitiatorStats b) {
        String name = "storage.gga." + op;
        out.add(BenchResult.of(name + ".miops", "MIOP/s", s.miops(), base + ".miops", b.miops()));
        out.add(BenchResult.of(name + ".latency_p50", "us", s.latencyP50Us(), base + ".latency_p50",
                b.latencyP50Us()));
        out.add(BenchResult.of(name + ".latency_p99", "us", s.latencyP99Us(), base + ".latency_p99",
                b.latencyP99Us()));
    }

    /** One GGA run's initiator view plus the service's recovery count and steady-state allocation. */
    private record Run(InitiatorStats ini, long recoveries, double allocPerOp) {
    }

    private interface Step<T> {
        T get() throws Exception;
    }

    private static Run median(int reps, Step<Run> s) throws Exception {
        List<Run> l = new ArrayList<>();
        for (int i = 0; i < reps; i++) {
            l.add(s.get());
        }
        l.sort(Comparator.comparingDouble(r -> r.ini.miops()));
        return l.get(l.size() / 2);
    }

    private static InitiatorStats medianStats(int reps, Step<InitiatorStats> s) throws Exception {
        List<InitiatorStats> l = new ArrayList<>();
        for (int i = 0; i < reps; i++) {
            l.add(s.get());
        }
        l.sort(Comparator.comparingDouble(InitiatorStats::miops));
        return l.get(l.size() / 2);
    }

    /** Compressible synthetic text (words in random order) as the three .sbc files. */
    private static Path[] content(Path dir) throws IOException {
        String[] words = ("storage offload erasure coding parity block half target initiator service compress "
                + "recover transaction engine progress buffer memory region export import connection").split(" ");
        Random r = new Random(6);
        StringBuilder sb = new StringBuilder();
        while (sb.length() < BLOCKS * 2 * HALF) {
            sb.append(words[r.nextInt(words.length)]).append(r.nextInt(10) == 0 ? ".\n" : " ");
        }
        Path plain = dir.resolve("plain.txt");
        Files.writeString(plain, sb.substring(0, BLOCKS * 2 * HALF));
        Path[] sbc = {dir.resolve("d1.sbc"), dir.resolve("d2.sbc"), dir.resolve("dp.sbc")};
        try (Dev dev = Devices.open("sw0")) {
            SbcGenerator.generate(dev, plain, sbc[0], sbc[1], sbc[2], 2 * HALF, EcMatrixType.VANDERMONDE);
        }
        return sbc;
    }

    private static Run gga(ExecutionStrategy s, Path[] sbc, int recoverEveryN, long ops) throws Exception {
        ExecutorService ex = Executors.newCachedThreadPool();
        AtomicBoolean abort = new AtomicBoolean();
        try {
            List<Future<Integer>> targets = new ArrayList<>();
            List<String> addrs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                int port = freePort();
                Path content = sbc == null ? null : sbc[i];
                targets.add(ex.submit(() -> new TargetRdma(new TargetRdma.Config("sw0", StorageSuite.EDGE_CPU, port,
                        content, BLOCKS,
                        HALF, null, 30_000_000_000L), abort).run(QUIET)));
                addrs.add("127.0.0.1:" + port);
            }
            String channel = "gga-bench-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
            GgaService svc = new GgaService(new GgaService.Config("sw0", null, StorageSuite.RELAY_CPU, addrs,
                    EcMatrixType.VANDERMONDE,
                    channel, 10_000_000_000L, recoverEveryN), abort);
            Future<Integer> g = ex.submit(() -> svc.run(QUIET));
            InitiatorComch ini = new InitiatorComch(new InitiatorComch.Config("sw0", StorageSuite.EDGE_CPU, s, null,
                    ops, TX, channel,
                    20_000_000_000L, 0, 1), abort);
            int rc = ini.run(QUIET);
            if (rc != 0 || g.get(60, TimeUnit.SECONDS) != 0) {
                throw new IllegalStateException("gga run failed (" + s + ", every " + recoverEveryN + ")");
            }
            for (Future<Integer> t : targets) {
                if (t.get(60, TimeUnit.SECONDS) != 0) {
                    throw new IllegalStateException("target failed");
                }
            }
            long recoveries = 0;
            double alloc = 0;
            List<WorkerStats> stats = svc.stats();
            if (stats.isEmpty()) {
                throw new IllegalStateException("gga-offload reported no worker statistics");
            }
            for (WorkerStats w : stats) {
                recoveries += w.recoveries();
                alloc = w.allocationMeasuredOps() == 0
                        ? 0 : (double) w.dataPathAllocatedBytes() / w.allocationMeasuredOps();
            }
            if (recoverEveryN > 0 && recoveries == 0) {
                throw new IllegalStateException("the recovery-read run recovered nothing");
            }
            return new Run(ini.stats(), recoveries, alloc);
        } finally {
            abort.set(true);
            ex.shutdownNow();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
