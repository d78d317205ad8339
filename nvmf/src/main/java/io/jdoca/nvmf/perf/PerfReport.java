package io.jdoca.nvmf.perf;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * nvme-perf's results: jdoca's three summary lines, spdk_nvme_perf's table (per namespace, reads and
 * writes on their own rows, then Total; -L percentiles, -LL a histogram), -m's CPU use, and the --json
 * line. Built from the queue threads' histograms after they ended. Control path; main thread.
 */
final class PerfReport {
    private static final long MAX_NANOS = 3_600_000_000_000L;

    /** One namespace's merged histograms. */
    private record Side(String name, PerfController.Namespace ns, Histogram reads, Histogram writes) {
    }

    private final NvmePerfApp app;
    private final List<PerfWorker> workers;
    private final double secs;
    private final List<Side> sides = new ArrayList<>();
    final Histogram all = new Histogram(MAX_NANOS, 3);
    final long errors;

    PerfReport(NvmePerfApp app, List<PerfWorker> workers, long elapsedNs) {
        this.app = app;
        this.workers = workers;
        this.secs = elapsedNs / 1e9;
        long e = 0;
        Map<PerfController.Namespace, Side> by = new LinkedHashMap<>();
        for (PerfWorker w : workers) {
            Side s = by.computeIfAbsent(w.ns, n -> new Side(n.name(), n, new Histogram(MAX_NANOS, 3),
                    new Histogram(MAX_NANOS, 3)));
            s.reads.add(w.readHist);
            s.writes.add(w.writeHist);
            all.add(w.hist);
            e += w.errors;
        }
        sides.addAll(by.values());
        errors = e;
    }

    void print() throws JsonProcessingException {
        summary();
        spdkTable();
        if (app.cpuUsage) {
            cpu();
        }
        if (app.json) {
            json();
        }
    }

    private void summary() {
        long n = all.getTotalCount();
        double iops = n / secs;
        double mibps = iops * app.ioSize / (1 << 20);
        System.out.printf(Locale.ROOT, "nvme-perf: %s %d B QD %d x %d queue(s)%s, %.1f s%n", app.workload, app.ioSize,
                app.qd, app.queues, sides.size() > 1 ? " x " + sides.size() + " namespaces" : "", secs);
        System.out.printf(Locale.ROOT, "  IOPS: %.0f  MiB/s: %.2f  I/Os: %d  errors: %d (not in IOPS or latency)%s%n",
                iops, mibps, n, errors, app.verify ? "  verify mismatches: " + app.verifyErrors.get() : "");
        System.out.printf(Locale.ROOT, "  latency us: avg %.1f  p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f%n",
                all.getMean() / 1e3, all.getValueAtPercentile(50) / 1e3, all.getValueAtPercentile(90) / 1e3,
                all.getValueAtPercentile(99) / 1e3, all.getValueAtPercentile(99.9) / 1e3, all.getMaxValue() / 1e3);
    }

    /** spdk_nvme_perf's summary table: per namespace, reads and writes apart, then the total. */
    private void spdkTable() {
        int w = 55;
        for (Side s : sides) {
            w = Math.max(w, s.name.length() + 8);
        }
        String bar = "=".repeat(w + 57);
        System.out.println(bar);
        System.out.printf(Locale.ROOT, "%" + (w + 57) + "s%n", "Latency(us)");
        System.out.printf(Locale.ROOT, "%-" + w + "s: %10s %10s %10s %10s %10s%n", "Device Information", "IOPS",
                "MiB/s", "Average", "min", "max");
        for (Side s : sides) {
            if (s.reads.getTotalCount() > 0) {
                row(w, s.name + " reads", s.reads);
            }
            if (s.writes.getTotalCount() > 0) {
                row(w, s.name + " writes", s.writes);
            }
        }
        System.out.println(bar);
        row(w, "Total", all);
        System.out.println();
        if (app.latencyDetail.length >= 1) {
            for (Side s : sides) {
                detail(w, s.name + " reads", s.reads);
                detail(w, s.name + " writes", s.writes);
            }
        }
    }

    private void detail(int w, String name, Histogram h) {
        if (h.getTotalCount() == 0) {
            return;
        }
        System.out.println("Summary latency data for " + name + ":");
        System.out.println("=".repeat(w + 20));
        for (double p : new double[] {1, 10, 25, 50, 75, 90, 95, 98, 99, 99.5, 99.9, 99.99, 99.999}) {
            System.out.printf(Locale.ROOT, "%10.5f%% : %12.3fus%n", p, h.getValueAtPercentile(p) / 1e3);
        }
        System.out.println();
        if (app.latencyDetail.length >= 2) {
            System.out.println("Latency histogram for " + name + ":");
            System.out.println("=".repeat(w + 20));
            System.out.printf(Locale.ROOT, "%26s %12s %12s%n", "Range in us", "Cumulative", "IO count");
            long cum = 0;
            long prev = 0;
            for (var v : h.logarithmicBucketValues(1000, 2)) {
                if (v.getCountAddedInThisIterationStep() > 0) {
                    cum += v.getCountAddedInThisIterationStep();
                    System.out.printf(Locale.ROOT, "%12.3f - %12.3f: %10.4f%%  (%10d)%n", prev / 1e3,
                            v.getValueIteratedTo() / 1e3, 100.0 * cum / h.getTotalCount(),
                            v.getCountAddedInThisIterationStep());
                }
                prev = v.getValueIteratedTo();
            }
            System.out.println();
        }
    }

    private void row(int w, String name, Histogram h) {
        long n = h.getTotalCount();
        double iops = n / secs;
        System.out.printf(Locale.ROOT, "%-" + w + "s: %10.2f %10.2f %10.2f %10.2f %10.2f%n", name, iops,
                iops * app.ioSize / (1 << 20), n == 0 ? 0.0 : h.getMean() / 1e3, n == 0 ? 0.0 : h.getMinValue() / 1e3,
                n == 0 ? 0.0 : h.getMaxValue() / 1e3);
    }

    /** -m: each queue thread's CPU time over the time it did I/O. */
    private void cpu() {
        System.out.println("CPU usage (thread CPU time over its run, warm-up included):");
        for (PerfWorker w : workers) {
            double pct = w.wallNanos == 0 ? 0 : 100.0 * w.cpuNanos / w.wallNanos;
            String core = app.cpus.isEmpty() ? "not pinned" : "core " + app.cpus.get(w.index % app.cpus.size());
            System.out.printf(Locale.ROOT, "  queue thread %d (%s, %s): %.1f%%%n", w.index, core, w.ns.name(), pct);
        }
    }

    /** One JSON line (Jackson) with the results, reads and writes apart; the first namespace's trid at top level. */
    private void json() throws JsonProcessingException {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("workload", app.workload);
        m.put("io_size", app.ioSize);
        m.put("qd", app.qd);
        m.put("queues", app.queues);
        m.put("iops", all.getTotalCount() / secs);
        m.put("mibps", all.getTotalCount() / secs * app.ioSize / (1 << 20));
        m.put("lat_avg_us", all.getMean() / 1e3);
        m.put("lat_p50_us", all.getValueAtPercentile(50) / 1e3);
        m.put("lat_p99_us", all.getValueAtPercentile(99) / 1e3);
        m.put("lat_p999_us", all.getValueAtPercentile(99.9) / 1e3);
        m.put("errors", errors);
        m.put("verify_errors", app.verifyErrors.get());
        PerfTrid first = sides.getFirst().ns.ctrl().trid;
        m.put("trtype", first.rdma() ? "RDMA" : "TCP");
        m.put("traddr", first.traddr());
        m.put("trsvcid", first.trsvcid());
        m.put("subnqn", first.connectNqn());
        m.put("nsid", Integer.toUnsignedLong(sides.getFirst().ns.nsid()));
        Histogram reads = new Histogram(MAX_NANOS, 3);
        Histogram writes = new Histogram(MAX_NANOS, 3);
        List<Map<String, Object>> namespaces = new ArrayList<>();
        for (Side s : sides) {
            reads.add(s.reads);
            writes.add(s.writes);
            Map<String, Object> n = new LinkedHashMap<>();
            n.put("name", s.name);
            n.put("subnqn", s.ns.ctrl().trid.connectNqn());
            n.put("nsid", Integer.toUnsignedLong(s.ns.nsid()));
            n.put("reads", side(s.reads));
            n.put("writes", side(s.writes));
            namespaces.add(n);
        }
        m.put("reads", side(reads));
        m.put("writes", side(writes));
        m.put("namespaces", namespaces);
        System.out.println(new ObjectMapper().writeValueAsString(m));
    }

    private Map<String, Object> side(Histogram h) {
        Map<String, Object> m = new LinkedHashMap<>();
        long n = h.getTotalCount();
        m.put("ios", n);
        m.put("iops", n / secs);
        m.put("mibps", n / secs * app.ioSize / (1 << 20));
        m.put("lat_avg_us", n == 0 ? 0.0 : h.getMean() / 1e3);
        m.put("lat_min_us", n == 0 ? 0.0 : h.getMinValue() / 1e3);
        m.put("lat_max_us", n == 0 ? 0.0 : h.getMaxValue() / 1e3);
        m.put("lat_p99_us", n == 0 ? 0.0 : h.getValueAtPercentile(99) / 1e3);
        return m;
    }
}
