package io.jdoca.sta;

import static io.jdoca.sta.StaCounters.Field;

/**
 * A namespace of a subsystem ({@code doca_sta_ns}): front-end namespace id, logical block size,
 * and the back-end (plus back-end namespace id) it maps to. Removed asynchronously with
 * {@link StaTaskRmNs}; I/O to a removed namespace completes with Invalid Namespace.
 *
 * <p>Thread-safe: immutable geometry, volatile removed flag, and per-engine counter blocks
 * ({@link StaCounters}: each IO engine writes its own, readers sum them).
 */
public final class StaNamespace {
    private final StaSubsystem subsystem;
    private final int nsid;
    private final int blockSize;
    private final int blockShift;
    private final StaBackend backend;
    private final int beNsId;
    private final long sizeBlocks;
    volatile boolean removed;
    /** One counter block per IO engine, indexed by {@link StaIo#index()}. */
    final StaCounters[] counters = StaCounters.perEngine();

    StaNamespace(StaSubsystem subsystem, int nsid, int blockSize, StaBackend backend, int beNsId) {
        this.subsystem = subsystem;
        this.nsid = nsid;
        this.blockSize = blockSize;
        this.blockShift = Integer.numberOfTrailingZeros(blockSize);
        this.backend = backend;
        this.beNsId = beNsId;
        this.sizeBlocks = backend.sizeBytes() >>> blockShift;
    }

    public StaSubsystem subsystem() {
        return subsystem;
    }

    /** Front-end namespace id (what hosts see). */
    public int nsid() {
        return nsid;
    }

    public int blockSize() {
        return blockSize;
    }

    public int blockShift() {
        return blockShift;
    }

    /** Size in logical blocks (NSZE). */
    public long sizeBlocks() {
        return sizeBlocks;
    }

    public StaBackend backend() {
        return backend;
    }

    public int backendNsId() {
        return beNsId;
    }

    public boolean isRemoved() {
        return removed;
    }

    /** Commands executing on this namespace now. */
    public int inflight() {
        return (int) StaCounters.sum(counters, Field.INFLIGHT);
    }

    /** Counter snapshot ({@code doca_sta_stats} for a namespace). */
    public StaStats stats() {
        return StaStats.of("namespace", subsystem.nqn() + "/" + nsid,
                "reads", sum(Field.READS), "writes", sum(Field.WRITES), "read_bytes", sum(Field.READ_BYTES),
                "write_bytes", sum(Field.WRITE_BYTES), "other_ops", sum(Field.OTHER_OPS), "errors", sum(Field.ERRORS));
    }

    private long sum(Field f) {
        return StaCounters.sum(counters, f);
    }
}
