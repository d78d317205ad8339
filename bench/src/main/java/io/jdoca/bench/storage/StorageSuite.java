package io.jdoca.bench.storage;

import io.jdoca.bench.BenchResult;
import io.jdoca.bench.BenchSuite;
import io.jdoca.storage.demo.DemoSettings;
import io.jdoca.storage.initiator.ExecutionStrategy;
import io.jdoca.storage.initiator.InitiatorComch;
import io.jdoca.storage.initiator.InitiatorStats;
import io.jdoca.storage.initiator.RdmaDirectInitiator;
import io.jdoca.storage.targetrdma.Durability;
import io.jdoca.storage.targetrdma.TargetRdma;
import io.jdoca.storage.zerocopy.ZeroCopyService;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code ./jdoca bench storage}: 4 KiB read and write IOPS and latency of the zero-copy path
 * (initiator-comch → Comch → zero-copy relay → RDMA → target-rdma, the target moving data straight
 * into host memory) against the same workload sent by an initiator straight to target-rdma over RDMA
 * ({@link RdmaDirectInitiator}), in the same run: the ratio is what the relay hop costs. One worker per
 * app, 32 transactions in flight, each app on its own threads of this JVM (loopback, shared-memory
 * transports). Median of the repetitions.
 */
public final class StorageSuite implements BenchSuite {
    /**
     * Where the apps' --cpu pins their workers: the demos' placement ({@link DemoSettings}). The relay
     * (zero-copy, GGA; or the target in the direct run) gets a core of its own, the initiator and the
     * targets share the other.
     */
    static final List<Integer> RELAY_CPU = List.of(DemoSettings.relayCpu());
    static final List<Integer> EDGE_CPU = List.of(DemoSettings.edgeCpu());

    private static final int BLOCK = 4096;
    private static final int BLOCKS = 4096;
    private static final int TX = 32;

    @Override
    public String description() {
        return "zero-copy relay and GGA gateway 4 KiB read/write MIOP/s and latency vs initiator->target direct over"
                + " RDMA (same run);"
                + " target-rdma --backing-file --durability write vs session";
    }

    @Override
    public List<BenchResult> run(boolean quick) throws Exception {
        long ops = quick ? 30_000 : 200_000;
        int reps = quick ? 1 : 3;
        // warm-up: both paths, both directions
        zeroCopy(ExecutionStrategy.READ_THROUGHPUT_TEST, 20_000);
        direct(ExecutionStrategy.READ_THROUGHPUT_TEST, 20_000);
        List<BenchResult> out = new ArrayList<>();
        for (ExecutionStrategy s : new ExecutionStrategy[] {ExecutionStrategy.READ_THROUGHPUT_TEST,
                ExecutionStrategy.WRITE_THROUGHPUT_TEST}) {
            String op = s == ExecutionStrategy.READ_THROUGHPUT_TEST ? "read_4k" : "write_4k";
            List<InitiatorStats> zc = new ArrayList<>();
            List<InitiatorStats> dr = new ArrayList<>();
            for (int r = 0; r < reps; r++) {
                dr.add(direct(s, ops));
                zc.add(zeroCopy(s, ops));
            }
            InitiatorStats z = median(zc);
            InitiatorStats d = median(dr);
            System.err.printf(Locale.ROOT,
                    "storage %s: zero-copy %.4f MIOP/s p50 %.1f us p99 %.1f us | direct %.4f MIOP/s p50 %.1f us p99"
                    + " %.1f us%n",
                    op, z.miops(), z.latencyP50Us(), z.latencyP99Us(), d.miops(), d.latencyP50Us(), d.latencyP99Us());
            String base = "storage.direct_rdma." + op;
            out.add(BenchResult.of("storage.zero_copy." + op + ".miops", "MIOP/s", z.miops(), base + ".miops",
                    d.miops()));
            out.add(BenchResult.of("storage.zero_copy." + op + ".latency_p50", "us", z.latencyP50Us(), base
                    + ".latency_p50",
                    d.latencyP50Us()));
            out.add(BenchResult.of("storage.zero_copy." + op + ".latency_p99", "us", z.latencyP99Us(), base
                    + ".latency_p99",
                    d.latencyP99Us()));
            out.add(BenchResult.plain("storage.zero_copy." + op + ".initiator_alloc_bytes_per_op", "B/op",
                    (double) z.dataPathAllocatedBytes() / Math.max(1, z.operations())));
        }
        // A synchronous flush per write is slow on a disk: fewer writes there.
        out.addAll(durability(quick ? 2_000 : 10_000, reps));
        // The erasure-coding gateway (3 targets + gga-offload + initiator), same run.
        out.addAll(GgaBench.run(quick));
        return out;
    }

    /**
     * What target-rdma's {@code --durability write} costs (issue 29 item 6): 4 KiB direct writes to a
     * {@code --backing-file} flushed per write, against the same file flushed per session (the
     * baseline, same run). The file lives in java.io.tmpdir (its file system decides the flush's cost).
     */
    private static List<BenchResult> durability(long ops, int reps) throws Exception {
        List<InitiatorStats> perWrite = new ArrayList<>();
        List<InitiatorStats> perSession = new ArrayList<>();
        java.nio.file.Path file = java.nio.file.Files.createTempFile("jdoca-bench-backing-", ".img");
        java.nio.file.Files.delete(file);
        try {
            direct(ExecutionStrategy.WRITE_THROUGHPUT_TEST, ops / 5, file,
                    Durability.WRITE); // warm-up, creates the file
            for (int r = 0; r < reps; r++) {
                perSession.add(direct(ExecutionStrategy.WRITE_THROUGHPUT_TEST, ops, file, Durability.SESSION));
                perWrite.add(direct(ExecutionStrategy.WRITE_THROUGHPUT_TEST, ops, file, Durability.WRITE));
            }
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
        InitiatorStats w = median(perWrite);
        InitiatorStats s = median(perSession);
        System.err.printf(Locale.ROOT,
                "storage backing file write_4k: flushed per write %.4f MIOP/s p50 %.1f us p99 %.1f us |"
                + " per session %.4f MIOP/s p50 %.1f us p99 %.1f us%n", w.miops(), w.latencyP50Us(), w.latencyP99Us(),
                s.miops(),
                s.latencyP50Us(), s.latencyP99Us());
        String base = "storage.direct_rdma.backing_file_session.write_4k";
        String name = "storage.direct_rdma.backing_file_per_write.write_4k";
        return List.of(BenchResult.of(name + ".miops", "MIOP/s", w.miops(), base + ".miops", s.miops()),
                BenchResult.of(name + ".latency_p50", "us", w.latencyP50Us(), base + ".latency_p50", s.latencyP50Us()),
                BenchResult.of(name + ".latency_p99", "us", w.latencyP99Us(), base + ".latency_p99", s.latencyP99Us()));
    }

    private static InitiatorStats median(List<InitiatorStats> l) {
        List<InitiatorStats> s = new ArrayList<>(l);
        s.sort(Comparator.comparingDouble(InitiatorStats::miops));
        return s.get(s.size() / 2);
    }

    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    /** One zero-copy run (target, relay, initiator in this process; 4 KiB blocks); also GGA's same-run baseline. */
    static InitiatorStats zeroCopy(ExecutionStrategy s, long ops) throws Exception {
        ExecutorService ex = Executors.newCachedThreadPool();
        AtomicBoolean abort = new AtomicBoolean();
        try {
            int port = freePort();
            String channel = "bench-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
            Future<Integer> t = ex.submit(() -> new TargetRdma(new TargetRdma.Config("sw0", StorageSuite.EDGE_CPU,
                    port, null, BLOCKS, BLOCK,
                    null, 30_000_000_000L), abort).run(QUIET));
            Future<Integer> z = ex.submit(() -> new ZeroCopyService(new ZeroCopyService.Config("sw0", null,
                    StorageSuite.RELAY_CPU,
                    "127.0.0.1:" + port, channel, 10_000_000_000L), abort).run(QUIET));
            InitiatorComch ini = new InitiatorComch(new InitiatorComch.Config("sw0", StorageSuite.EDGE_CPU, s, null,
                    ops, TX, channel,
                    10_000_000_000L, 0, 1), abort);
            int rc = ini.run(QUIET);
            if (rc != 0 || z.get(60, TimeUnit.SECONDS) != 0 || t.get(60, TimeUnit.SECONDS) != 0) {
                throw new IllegalStateException("zero-copy run failed");
            }
            return ini.stats();
        } finally {
            abort.set(true);
            ex.shutdownNow();
        }
    }

    private static InitiatorStats direct(ExecutionStrategy s, long ops) throws Exception {
        return direct(s, ops, null, Durability.SESSION);
    }

    /** A direct run against a target on memory ({@code backingFile} null) or on {@code backingFile} in {@code mode}. */
    private static InitiatorStats direct(ExecutionStrategy s, long ops, java.nio.file.Path backingFile, Durability mode)
            throws Exception {
        ExecutorService ex = Executors.newCachedThreadPool();
        AtomicBoolean abort = new AtomicBoolean();
        try {
            int port = freePort();
            TargetRdma.Config cfg = new TargetRdma.Config("sw0", StorageSuite.RELAY_CPU, port, null, BLOCKS, BLOCK,
                    backingFile,
                    30_000_000_000L).withDurability(mode);
            Future<Integer> t = ex.submit(() -> new TargetRdma(cfg, abort).run(QUIET));
            InitiatorStats st = RdmaDirectInitiator.run("sw0", new InetSocketAddress("127.0.0.1", port), s, ops, TX, 1);
            if (t.get(60, TimeUnit.SECONDS) != 0) {
                throw new IllegalStateException("target failed");
            }
            return st;
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
