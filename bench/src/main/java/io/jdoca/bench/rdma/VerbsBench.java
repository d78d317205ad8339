package io.jdoca.bench.rdma;

import io.jdoca.bench.BenchResult;
import io.jdoca.bench.Measure;
import io.jdoca.core.DocaError;
import io.jdoca.core.dev.DevInfo;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.rdma.RdmaConnection;
import io.jdoca.rdma.RdmaExport;
import io.jdoca.rdma.RdmaTransportType;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * {@code ./jdoca bench rdma -d DEV}: jdoca's RDMA over an rdma-core device (verbs transport, RC QPs) beside
 * perftest on the same device in the same run. Two RDMA contexts in this JVM on {@code DEV}, connected by
 * exchanging their export blobs; each side's memory is a map with the device added ({@code ibv_reg_mr}).
 * <ul>
 *   <li>RDMA WRITE 64 KiB bandwidth, MiB/s: {@value #DEPTH} writes in flight (ib_write_bw's default tx depth,
 *       passed to it as {@code -t}), each re-armed in its completion callback, the same number of writes as
 *       {@code ib_write_bw -n}, timed from the first post to the last completion as perftest does; baseline
 *       ib_write_bw's "BW average[MB/sec]" (perftest MB = MiB), ratio jdoca / perftest (higher is better).</li>
 *   <li>RDMA READ latency of {@value #READ_SIZE} bytes (ib_read_lat's default size), one outstanding, the
 *       same number of iterations as {@code ib_read_lat -n}, timed as ib_read_lat does (post to next post, one
 *       clock read per iteration): typical (median), mean and p99 in µs; baseline
 *       ib_read_lat's t_typical, t_avg and 99% percentile, ratio perftest / jdoca (above 1: jdoca faster).</li>
 * </ul>
 * The requester busy-polls its engine, as perftest busy-polls its CQ; the responder's engine sleeps in
 * notification mode (the device serves one-sided operations without it). Without perftest (or an IPv4
 * address on the device's interface) the baseline is skipped with a one-line message and jdoca's figures
 * are still reported (ratio n/a). One thread drives everything but the responder's engine.
 */
final class VerbsBench {
    static final int SIZE = 64 * 1024;
    static final int DEPTH = 128;
    static final int READ_SIZE = 2;
    private static final long READ_OFF = 12L << 20;
    /** How long each warm-up (writes, then reads) lasts at least in a full run. */
    static final long WARMUP_NANOS = 15_000_000_000L;
    static final String RATIO_LAT = "baseline/value: perftest / jdoca, above 1 = jdoca faster";
    static final String RATIO_BW = "value/baseline: jdoca / perftest, above 1 = jdoca faster";

    private final String device;
    private final boolean quick;

    VerbsBench(String device, boolean quick) {
        this.device = device;
        this.quick = quick;
    }

    List<BenchResult> run() throws Exception {
        DevInfo info = Devices.find(device);
        if (!info.isVerbs()) {
            throw new IllegalArgumentException("device '" + device + "' is not an RDMA (verbs) device; "
                    + "run ./jdoca devices for the list");
        }
        // Iterations, not a duration, for both tools: ib_write_bw -D under TCG reported 0.00 MB/s (16 iterations
        // in its sampling window) where -n gives first-post-to-last-completion, the figure jdoca measures too.
        int writes = quick ? 300 : 2000;
        int iters = quick ? 300 : 1000;
        String skip = null;
        InetAddress addr = Perftest.deviceAddress(info.ifaceName());
        if (Perftest.which("ib_write_bw") == null || Perftest.which("ib_read_lat") == null) {
            skip = "perftest (ib_write_bw, ib_read_lat) not on PATH";
        } else if (addr == null) {
            skip = "no IPv4 address on " + device + "'s interface '" + info.ifaceName() + "' for perftest's rdma_cm";
        }
        if (skip != null) {
            System.err.println("bench rdma: SKIP perftest baseline: " + skip + "; jdoca's figures only (ratio n/a)");
        }
        long timeout = 300; // one perftest process under TCG: seconds to set up, the run, seconds to tear down
        double bw;
        Histogram lat;
        double idlePass;
        Baseline wbw = new Baseline(null, skip);
        Baseline rlat = new Baseline(null, skip);
        // Each jdoca figure is measured right before perftest's (the pair stays connected, its responder asleep),
        // so both see the same load on the shared machine.
        try (Pair p = new Pair(info.name())) {
            // Long enough for the JIT to compile the loops: under TCG emulation C2 needs seconds, so the warm-up
            // runs for a time (perftest, compiled ahead, needs none), at least writes / 2 and 3 x iters operations.
            long warm = quick ? 2_000_000_000L : WARMUP_NANOS;
            Measure.progress(device + ": warm-up (64 KiB writes, 2 B reads), at least " + warm / 1_000_000_000L
                    + " s each");
            long end = System.nanoTime() + warm;
            do {
                p.writes(writes / 2);
            } while (System.nanoTime() < end);
            end = System.nanoTime() + warm;
            do {
                p.reads(3 * iters);
            } while (System.nanoTime() < end);
            Measure.progress(device + ": RDMA WRITE 64 KiB x " + writes + ", " + DEPTH + " in flight");
            bw = p.writes(writes) * SIZE / (double) (1 << 20);
            if (skip == null) {
                wbw = baseline("ib_write_bw", List.of("-R", "-F", "-d", info.ibdevName(), "-s", Integer.toString(SIZE),
                        "-t", Integer.toString(DEPTH), "-n", Integer.toString(writes)), 18515, addr, timeout,
                        "BW average[MB/sec]");
            }
            Measure.progress(device + ": RDMA READ 2 B, one outstanding, " + iters + " iterations");
            lat = p.reads(iters);
            idlePass = p.idleProgressNanos();
            if (skip == null) {
                List<String> latArgs = List.of("-R", "-F", "-d", info.ibdevName(), "-s", Integer.toString(READ_SIZE),
                        "-n", Integer.toString(iters));
                rlat = baseline("ib_read_lat", latArgs, 18516, addr, timeout, "t_typical[usec]", "t_avg[usec]");
                if (rlat.table() == null) {
                    rlat = inCycles(latArgs, addr, timeout, rlat.missing());
                }
            }
        }
        double typ = lat.getValueAtPercentile(50) / 1000.0;
        double avg = lat.getMean() / 1000.0;
        double p99 = lat.getValueAtPercentile(99) / 1000.0;
        List<BenchResult> out = new ArrayList<>();
        out.add(noted(bandwidth("rdma.verbs.write_64k.mibps", bw, "ib_write_bw.bw_average.mibps",
                figure(wbw.table(), "BW average[MB/sec]")), wbw));
        out.add(noted(latency("rdma.verbs.read_2b_lat_typical.us", typ, "ib_read_lat.t_typical.us",
                figure(rlat.table(), "t_typical[usec]")), rlat));
        out.add(noted(latency("rdma.verbs.read_2b_lat_avg.us", avg, "ib_read_lat.t_avg.us",
                figure(rlat.table(), "t_avg[usec]")), rlat));
        out.add(noted(latency("rdma.verbs.read_2b_lat_p99.us", p99, "ib_read_lat.p99.us",
                figure(rlat.table(), "99% percentile[usec]")), rlat));
        out.add(BenchResult.plain("rdma.verbs.clock_read.ns", "ns", clockReadNanos()));
        out.add(BenchResult.plain("rdma.verbs.idle_progress.ns", "ns", idlePass));
        return out;
    }

    /**
     * What one {@code System.nanoTime()} costs here (mean of 20 000): context for the latency figures, since
     * jdoca reads the clock in its poll loop and perftest reads the cycle counter; under TCG with the hpet
     * clocksource each read is an emulated device access.
     */
    static double clockReadNanos() {
        long sink = 0;
        long t0 = System.nanoTime();
        for (int i = 0; i < 20_000; i++) {
            sink += System.nanoTime();
        }
        long t1 = System.nanoTime();
        return sink == 42 ? -1 : (t1 - t0) / 20_000.0;
    }

    /** Perftest runs a baseline gets before it is reported missing (ib_read_lat printed {@code inf} under TCG). */
    static final int BASELINE_ATTEMPTS = 3;

    /** A parsed perftest table, or null with why it is missing. */
    record Baseline(Map<String, Double> table, String missing) {
    }

    /**
     * One perftest measurement, parsed, with the columns {@code needed} present, finite and above 0: run up to
     * {@link #BASELINE_ATTEMPTS} times (perftest's latency figures came out as {@code inf} under emulation, its
     * cycle-counter calibration failing), then reported missing with the last failure, so that jdoca's figures
     * are still reported, with ratio n/a and the reason in the table and the JSON.
     */
    private static Baseline baseline(String tool, List<String> args, int port, InetAddress addr, long timeout,
            String... needed) throws InterruptedException {
        String why = null;
        for (int attempt = 1; attempt <= BASELINE_ATTEMPTS; attempt++) {
            try {
                Map<String, Double> t = Perftest.parse(tool, Perftest.runPair(tool, args, port, addr, timeout));
                for (String c : needed) {
                    if (Perftest.column(tool, t, c) <= 0) {
                        // ib_write_bw printed 0.00 MB/s under emulation (its cycle calibration failing): no figure
                        throw new Perftest.FormatException(tool + ": column '" + c + "' is 0");
                    }
                }
                return new Baseline(t, null);
            } catch (java.io.IOException | Perftest.FormatException e) {
                why = e.getMessage();
                System.err.println("bench rdma: perftest baseline attempt " + attempt + " of " + BASELINE_ATTEMPTS
                        + " FAILED: " + why);
            }
        }
        return new Baseline(null, tool + " gave no usable figure in " + BASELINE_ATTEMPTS + " runs; last: " + why);
    }

    /**
     * ib_read_lat's figures when its µs report has none: perftest converts cycles to µs with the CPU frequency it
     * measures, and under emulation that measurement fails (r^2 below 0.9: it prints {@code inf}). With
     * {@code -C} it reports cycles, converted here with the kernel's frequency ({@code cpu MHz} of
     * /proc/cpuinfo); the table then says so in each figure's note. Missing (with both reasons) if that fails too.
     */
    private static Baseline inCycles(List<String> args, InetAddress addr, long timeout, String why)
            throws InterruptedException {
        double mhz = Perftest.cpuMhz();
        if (!(mhz > 0)) {
            return new Baseline(null, why + "; no cpu MHz in /proc/cpuinfo to convert a cycle report");
        }
        List<String> c = new ArrayList<>(args);
        c.add("-C");
        Baseline b = baseline("ib_read_lat", c, 18516, addr, timeout);
        if (b.table() == null) {
            return new Baseline(null, why + "; with -C: " + b.missing());
        }
        Map<String, Double> us = new LinkedHashMap<>();
        for (Map.Entry<String, Double> e : b.table().entrySet()) {
            String k = e.getKey().replace("[cycles]", "[usec]");
            us.put(k, k.endsWith("[usec]") ? e.getValue() / mhz : e.getValue());
        }
        Double typ = us.get("t_typical[usec]");
        if (typ == null || !Double.isFinite(typ)) {
            return new Baseline(null, why + "; with -C no finite t_typical either");
        }
        String note = "ib_read_lat reported cycles (-C; its own cycles-to-µs conversion printed no finite figure "
                + "under emulation), converted with /proc/cpuinfo's "
                + String.format(java.util.Locale.ROOT, "%.1f", mhz) + " MHz";
        System.err.println("bench rdma: " + note);
        return new Baseline(us, note);
    }

    /** {@code r} with why its baseline is missing, when it is. */
    private static BenchResult noted(BenchResult r, Baseline b) {
        if (r.baselineValue() != null) {
            return b.missing() == null ? r : r.withNote(b.missing()); // a baseline measured another way says how
        }
        return r.withNote(b.missing() != null ? b.missing() : "perftest printed no finite " + r.baseline());
    }

    /** A finite figure of a parsed perftest table, or null (no table, no such column, nan). */
    private static Double figure(Map<String, Double> table, String column) {
        Double v = table == null ? null : table.get(column);
        return v == null || !Double.isFinite(v) ? null : v;
    }

    static BenchResult bandwidth(String name, double value, String baseline, Double base) {
        return new BenchResult(name, "MiB/s", value, baseline, base, base == null || base == 0 ? null : value / base,
                RATIO_BW);
    }

    static BenchResult latency(String name, double value, String baseline, Double base) {
        return new BenchResult(name, "us", value, baseline, base, base == null || value == 0 ? null : base / value,
                RATIO_LAT);
    }

    /** One side on the verbs device: {@link RdmaSuite.Side} with a 16 MiB map registered there (ibv_reg_mr). */
    private static RdmaSuite.Side side(String device) {
        return new RdmaSuite.Side(device, RdmaTransportType.VERBS, 16L << 20);
    }

    private static void check(String what, DocaError e) {
        RdmaSuite.check(what, e);
    }

    /** Requester a and responder b on one device; a's engine is driven by the bench thread, b's by its own thread. */
    static final class Pair implements AutoCloseable {
        final RdmaSuite.Side a;
        final RdmaSuite.Side b;
        final RdmaConnection ca;
        final Thread responder;
        volatile boolean running = true;
        // requester state (bench thread only)
        long completed;
        long errors;
        /** Writes still to submit: a completion re-arms its task while this is positive. */
        long remaining;
        long readDone;

        Pair(String device) {
            a = side(device);
            b = side(device);
            check("write conf", a.rdma.taskWriteSetConf((task, ud, cud) -> {
                completed++;
                task.dst().resetDataLen();
                if (remaining > 0) {
                    remaining--;
                    if (task.submit() != DocaError.SUCCESS) {
                        errors++;
                        task.free();
                    }
                } else {
                    task.free();
                }
            }, (task, ud, cud) -> {
                errors++;
                task.free();
            }, DEPTH));
            check("read conf", a.rdma.taskReadSetConf((task, ud, cud) -> {
                readDone = 1;
                task.dst().resetDataLen();
                task.free();
            }, (task, ud, cud) -> {
                errors++;
                readDone = -1;
                task.free();
            }, 4));
            check("connect a", a.pe.connectCtx(a.rdma));
            check("connect b", b.pe.connectCtx(b.rdma));
            check("start a", a.rdma.start());
            check("start b", b.rdma.start());
            RdmaExport xa = a.rdma.export();
            RdmaExport xb = b.rdma.export();
            check("connect a to b", a.rdma.connect(xb.blob(), xa.connection()));
            check("connect b to a", b.rdma.connect(xa.blob(), xb.connection()));
            ca = xa.connection();
            // Generous: the QPs' transitions under emulation (TCG) take seconds.
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (a.rdma.state() != CtxState.RUNNING || b.rdma.state() != CtxState.RUNNING) {
                a.pe.progress();
                b.pe.progress();
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("bench rdma: the verbs pair did not connect in 120 s: "
                            + a.rdma.state() + " / " + b.rdma.state());
                }
            }
            a.imported = MemoryMap.createFromExport(b.map.exportRdma(b.dev), a.dev);
            responder = Thread.ofPlatform().daemon().name("bench-rdma-verbs-responder").start(() -> {
                IdleStrategy idle = IdleStrategy.notifying(b.pe, 0, 0, 10_000_000L);
                while (running) {
                    idle.idle(b.pe.progress() ? 1 : 0);
                }
            });
        }

        /**
         * {@code total} 64 KiB writes, {@link #DEPTH} in flight (each completion re-arms its task while writes remain,
         * like ib_write_bw -n); returns writes per second from the first post to the last completion.
         */
        double writes(int total) {
            completed = 0;
            remaining = total - Math.min(DEPTH, total);
            Buf[] bufs = new Buf[2 * DEPTH];
            long t0 = System.nanoTime();
            for (int i = 0; i < DEPTH && i < total; i++) {
                Buf local = a.buf(a.map, (long) i * SIZE, SIZE, SIZE);
                Buf remote = a.buf(a.imported, (long) i * SIZE, SIZE, 0);
                bufs[2 * i] = local;
                bufs[2 * i + 1] = remote;
                DocaError e = a.rdma.taskWriteAllocInit(ca, local, remote, i).submit();
                if (e != DocaError.SUCCESS) {
                    throw new IllegalStateException("bench rdma: write submit: " + e);
                }
            }
            // Bounded: a device that stops completing (the TCG guest is slow, not dead: 10 minutes) fails the run.
            long deadline = t0 + 600_000_000_000L;
            while (completed < total && errors == 0 && System.nanoTime() < deadline) {
                a.pe.progress();
            }
            long t1 = System.nanoTime();
            long drain = t1 + 60_000_000_000L;
            while (a.rdma.numInflightTasks() > 0 && System.nanoTime() < drain) {
                a.pe.progress();
            }
            if (errors > 0) {
                throw new IllegalStateException("bench rdma: " + errors + " RDMA writes failed");
            }
            if (completed < total || a.rdma.numInflightTasks() > 0) {
                throw new IllegalStateException("bench rdma: " + completed + " of " + total
                        + " RDMA writes completed in 10 min");
            }
            for (Buf x : bufs) {
                if (x != null) {
                    x.decRefcount();
                }
            }
            return total * 1e9 / (t1 - t0);
        }

        /**
         * {@code n} RDMA READs of {@link #READ_SIZE} bytes, one outstanding; each latency in ns, timed as perftest's
         * {@code ib_read_lat} times them: one clock read per iteration, right before the post, and the latency of
         * read i is the time from its post to the next one's (its completion, the callback and the next task's
         * allocation included; the last one's end is read after its completion). One clock read per read, not two:
         * where the clock has no vDSO path (the TCG guest's hpet) each read costs ~10 µs.
         */
        Histogram reads(int n) {
            Histogram h = new Histogram(3_600_000_000L, 3);
            Buf local = a.buf(a.map, READ_OFF, READ_SIZE, 0);
            Buf remote = a.buf(a.imported, READ_OFF, READ_SIZE, READ_SIZE);
            long[] stamps = new long[n + 1];
            for (int i = 0; i < n; i++) {
                readDone = 0;
                stamps[i] = System.nanoTime();
                DocaError e = a.rdma.taskReadAllocInit(ca, remote, local, i).submit();
                if (e != DocaError.SUCCESS) {
                    throw new IllegalStateException("bench rdma: read submit: " + e);
                }
                while (readDone == 0) {
                    a.pe.progress();
                }
                if (readDone < 0) {
                    throw new IllegalStateException("bench rdma: an RDMA read failed");
                }
            }
            stamps[n] = System.nanoTime();
            for (int i = 0; i < n; i++) {
                h.recordValue(stamps[i + 1] - stamps[i]);
            }
            local.decRefcount();
            remote.decRefcount();
            return h;
        }

        /**
         * What one requester progress pass costs with nothing in flight (mean of 20 000): the floor under each poll of
         * the read loop (the CQ polled through FFM, the endpoint's checks), context for the latency figures.
         */
        double idleProgressNanos() {
            long t0 = System.nanoTime();
            for (int i = 0; i < 20_000; i++) {
                a.pe.progress();
            }
            return (System.nanoTime() - t0) / 20_000.0;
        }

        @Override
        public void close() {
            running = false;
            b.pe.notifyWork();
            try {
                responder.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            RdmaSuite.stopBoth(a, b, 60_000_000_000L);
        }
    }
}
