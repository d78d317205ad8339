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
 * <p>Threads: created, claimed and released by {@code sta-main} (the target state's single
 * writer); the claim is volatile so other threads describing it see the latest. I/O goes straight
 * to the back-end.
 *
 * @see io.jdoca.nvmf.tgt.NvmfTarget#createBdev
 */
public final class Bdev {
    private final String name;
    private final BdevModule module;
    private final int blockSize;
    private final long numBlocks;
    private final UUID uuid;
    private final StaBackend backend;
    private final Map<String, Object> options;
    private final boolean ownedByNamespace;
    private volatile String claimedBy;

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

    /** SPDK's {@code bdev_get_iostat} entry: summed over the back-end's queues (no latency ticks: not measured). */
    public Map<String, Object> iostat() {
        long rb = 0, rn = 0, wb = 0, wn = 0, other = 0, err = 0;
        for (StaBeQueue q : backend.queues()) {
            var s = q.stats();
            rb += s.get("read_bytes");
            rn += s.get("reads");
            wb += s.get("write_bytes");
            wn += s.get("writes");
            other += s.get("other_ops");
            err += s.get("errors");
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("bytes_read", rb);
        m.put("num_read_ops", rn);
        m.put("bytes_written", wb);
        m.put("num_write_ops", wn);
        m.put("bytes_unmapped", 0L);
        m.put("num_unmap_ops", 0L);
        m.put("bytes_copied", 0L);
        m.put("num_copy_ops", 0L);
        if (backend instanceof TimedBackend t) {
            // Ticks are nanoseconds (tick_rate 1e9); sums from the histograms (2 significant digits).
            latency(m, "read", t.readLatency());
            latency(m, "write", t.writeLatency());
        }
        m.put("jdoca_other_ops", other);
        m.put("jdoca_errors", err);
        return m;
    }

    private static void latency(Map<String, Object> m, String kind, org.HdrHistogram.Histogram h) {
        long n = h.getTotalCount();
        m.put(kind + "_latency_ticks", n == 0 ? 0L : Math.round(h.getMean() * n));
        m.put("max_" + kind + "_latency_ticks", n == 0 ? 0L : h.getMaxValue());
        m.put("min_" + kind + "_latency_ticks", n == 0 ? 0L : h.getMinValue());
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
