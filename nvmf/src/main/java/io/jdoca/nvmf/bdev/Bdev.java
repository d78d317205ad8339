package io.jdoca.nvmf.bdev;

import io.jdoca.sta.backend.StaBackend;
import io.jdoca.sta.backend.StaBeQueue;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A named block device in SPDK's sense: one STA back-end made by its {@link BdevModule} (memory
 * for {@code malloc}, null for {@code null}, a file or block device for {@code aio}) with a block
 * size, a block count and a UUID, created and deleted over RPC ({@code bdev_<module>_create}, ...)
 * and exposed as a namespace with {@code nvmf_subsystem_add_ns}. A bdev backs at most one
 * namespace at a time (SPDK's exclusive-write claim); a claimed bdev cannot be deleted.
 *
 * <p>Threads: created, claimed, grown and released by {@code sta-main} (the target state's single
 * writer); the claim and the block count are volatile so other threads describing it see the latest. I/O goes straight
 * to the back-end.
 *
 * @see io.jdoca.nvmf.tgt.NvmfTarget#createBdev
 */
public final class Bdev {
    private final String name;
    private final BdevModule module;
    private final int blockSize;
    /** Grows only ({@link #setNumBlocks}); volatile for the threads describing it. */
    private volatile long numBlocks;
    private final UUID uuid;
    private final StaBackend backend;
    private final Map<String, Object> options;
    private final boolean ownedByNamespace;
    private volatile String claimedBy;
    /** What bdev_reset_iostat zeroed: counters and latencies ({@code mode all}), and min/max ({@code maxmin}). */
    private volatile Snapshot countsBase = Snapshot.ZERO;
    private volatile Snapshot maxMinBase = Snapshot.ZERO;
    /** bdev_enable_histogram's settings and the latencies when it was enabled; null: disabled. */
    private volatile HistogramState histogram;

    /** Counters {read bytes, reads, write bytes, writes, other ops, errors} and latency histograms at one time. */
    private record Snapshot(long[] counters, org.HdrHistogram.Histogram read, org.HdrHistogram.Histogram write) {
        static final Snapshot ZERO = new Snapshot(new long[6], null, null);
    }

    /** An enabled histogram: SPDK's layout, the I/O type it counts (null: reads and writes) and its start. */
    private record HistogramState(SpdkHistogram layout, String opc, Snapshot start) {
    }

    /**
     * @param options          its module's options ({@link BdevSpec#options()}, e.g. aio's filename)
     * @param ownedByNamespace made implicitly by jdoca's own namespace form ({@code backend=memory
     *                         size_mb=...}): destroyed with its namespace
     */
    public Bdev(String name, BdevModule module, int blockSize, long numBlocks, UUID uuid, StaBackend backend,
                Map<String, Object> options, boolean ownedByNamespace) {
        this.name = name;
        this.module = module;
        this.blockSize = blockSize;
        this.numBlocks = numBlocks;
        this.uuid = uuid;
        this.backend = backend;
        this.options = Map.copyOf(options);
        this.ownedByNamespace = ownedByNamespace;
    }

    public String name() {
        return name;
    }

    public BdevModule module() {
        return module;
    }

    public int blockSize() {
        return blockSize;
    }

    public long numBlocks() {
        return numBlocks;
    }

    /** The back-end grew: its new block count. sta-main ({@code NvmfTargetOps.bdevGrown}). */
    public void setNumBlocks(long blocks) {
        if (blocks < numBlocks) {
            throw new IllegalArgumentException("bdev " + name + " cannot shrink from " + numBlocks + " to " + blocks
                    + " blocks");
        }
        numBlocks = blocks;
    }

    public UUID uuid() {
        return uuid;
    }

    public StaBackend backend() {
        return backend;
    }

    /** One of its module's options (e.g. aio's {@code filename}), or null. */
    public Object option(String key) {
        return options.get(key);
    }

    public boolean ownedByNamespace() {
        return ownedByNamespace;
    }

    /** "nqn nsid N" of the namespace this bdev backs, or null. */
    public String claimedBy() {
        return claimedBy;
    }

    public void claim(String by) {
        claimedBy = by;
    }

    /** SPDK's {@code bdev_get_bdevs} entry. */
    public Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("aliases", List.of());
        m.put("product_name", module.productName());
        m.put("block_size", blockSize);
        m.put("num_blocks", numBlocks);
        m.put("uuid", uuid.toString());
        m.put("assigned_rate_limits", Map.of("rw_ios_per_sec", 0, "rw_mbytes_per_sec", 0, "r_mbytes_per_sec", 0,
                "w_mbytes_per_sec", 0));
        m.put("claimed", claimedBy != null);
        if (claimedBy != null) {
            m.put("claim_type", "exclusive_write");
        }
        m.put("zoned", false);
        Map<String, Object> io = new LinkedHashMap<>();
        io.put("read", true);
        io.put("write", true);
        io.put("unmap", module.supportsUnmap());
        io.put("flush", true);
        io.put("reset", false);
        io.put("nvme_admin", false);
        io.put("nvme_io", false);
        io.put("write_zeroes", true);
        io.put("compare", false);
        io.put("compare_and_write", false);
        io.put("abort", false);
        m.put("supported_io_types", io);
        m.put("driver_specific", module.driverSpecific(this));
        m.put("jdoca_backend", backend.kind());
        return m;
    }

    /**
     * SPDK's {@code bdev_get_iostat} entry: summed over the back-end's queues since the last
     * {@code bdev_reset_iostat}; latency ticks are nanoseconds from the histograms (2 significant digits).
     */
    public Map<String, Object> iostat() {
        Snapshot now = snapshot();
        Snapshot base = countsBase;
        long[] c = new long[6];
        for (int i = 0; i < c.length; i++) {
            c[i] = now.counters()[i] - base.counters()[i];
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("bytes_read", c[0]);
        m.put("num_read_ops", c[1]);
        m.put("bytes_written", c[2]);
        m.put("num_write_ops", c[3]);
        m.put("bytes_unmapped", 0L);
        m.put("num_unmap_ops", 0L);
        m.put("bytes_copied", 0L);
        m.put("num_copy_ops", 0L);
        if (now.read() != null) {
            latency(m, "read", since(now.read(), base.read()), since(now.read(), maxMinBase.read()));
            latency(m, "write", since(now.write(), base.write()), since(now.write(), maxMinBase.write()));
        }
        m.put("jdoca_other_ops", c[4]);
        m.put("jdoca_errors", c[5]);
        return m;
    }

    private Snapshot snapshot() {
        long[] c = new long[6];
        for (StaBeQueue q : backend.queues()) {
            var s = q.stats();
            c[0] += s.get("read_bytes");
            c[1] += s.get("reads");
            c[2] += s.get("write_bytes");
            c[3] += s.get("writes");
            c[4] += s.get("other_ops");
            c[5] += s.get("errors");
        }
        if (backend instanceof TimedBackend t) {
            return new Snapshot(c, t.readLatency(), t.writeLatency());
        }
        return new Snapshot(c, null, null);
    }

    /** {@code now} less what {@code base} had recorded (histograms only grow, so every bucket stays >= 0). */
    private static org.HdrHistogram.Histogram since(org.HdrHistogram.Histogram now, org.HdrHistogram.Histogram base) {
        org.HdrHistogram.Histogram h = now.copy();
        if (base != null) {
            try {
                h.subtract(base);
            } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
                return now; // a racy copy that missed a bucket: keep what was measured rather than guess
            }
        }
        return h;
    }

    /**
     * SPDK's {@code bdev_reset_iostat} on this bdev: {@code all} zeroes the counters and latencies,
     * {@code maxmin} only the min and max latencies. Control path (sta-main).
     */
    public void resetIostat(boolean all) {
        Snapshot now = snapshot();
        if (all) {
            countsBase = now;
        }
        maxMinBase = now;
    }

    private static void latency(Map<String, Object> m, String kind, org.HdrHistogram.Histogram h,
                                org.HdrHistogram.Histogram maxMin) {
        long n = h.getTotalCount();
        long mm = maxMin.getTotalCount();
        m.put(kind + "_latency_ticks", n == 0 ? 0L : Math.round(h.getMean() * n));
        m.put("max_" + kind + "_latency_ticks", mm == 0 ? 0L : maxMin.getMaxValue());
        m.put("min_" + kind + "_latency_ticks", mm == 0 ? 0L : maxMin.getMinValue());
    }

    /**
     * SPDK's {@code bdev_enable_histogram}: counts latencies of {@code opc} ("read", "write" or
     * null for both: jdoca times reads and writes) from now on in {@code layout}; {@code layout}
     * null disables it. Control path (sta-main).
     */
    public void enableHistogram(SpdkHistogram layout, String opc) {
        histogram = layout == null || !(backend instanceof TimedBackend) ? null
                : new HistogramState(layout, opc, snapshot());
    }

    /** {@code bdev_get_histogram}'s result, or null when no histogram is enabled. Control path (sta-main). */
    public Map<String, Object> histogram() {
        HistogramState st = histogram;
        if (st == null) {
            return null;
        }
        Snapshot now = snapshot();
        org.HdrHistogram.Histogram h = new org.HdrHistogram.Histogram(now.read().getHighestTrackableValue(), 2);
        if (st.opc() == null || st.opc().equals("read")) {
            h.add(since(now.read(), st.start().read()));
        }
        if (st.opc() == null || st.opc().equals("write")) {
            h.add(since(now.write(), st.start().write()));
        }
        SpdkHistogram l = st.layout();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("histogram", l.encode(h));
        m.put("granularity", l.granularity());
        m.put("min_range", l.minRange());
        m.put("max_range", l.maxRange());
        m.put("tsc_rate", 1_000_000_000L); // ticks are nanoseconds
        return m;
    }

    /** Latency quantiles in microseconds of reads or writes ({@code kind}), or null when not measured. */
    public Map<String, Object> latencyUs(String kind) {
        if (!(backend instanceof TimedBackend t)) {
            return null;
        }
        org.HdrHistogram.Histogram h = kind.equals("read") ? t.readLatency() : t.writeLatency();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("count", h.getTotalCount());
        m.put("avg_us", h.getTotalCount() == 0 ? 0.0 : h.getMean() / 1e3);
        m.put("p50_us", h.getValueAtPercentile(50) / 1e3);
        m.put("p90_us", h.getValueAtPercentile(90) / 1e3);
        m.put("p99_us", h.getValueAtPercentile(99) / 1e3);
        m.put("p999_us", h.getValueAtPercentile(99.9) / 1e3);
        m.put("max_us", h.getMaxValue() / 1e3);
        return m;
    }

    /** The {@code {method, params}} entry that recreates this bdev (save_config). */
    public Map<String, Object> configEntry() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("method", "bdev_" + module.name() + "_create");
        m.put("params", module.configParams(this));
        return m;
    }
}
