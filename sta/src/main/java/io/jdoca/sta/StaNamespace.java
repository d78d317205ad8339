package io.jdoca.sta;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A namespace of a subsystem ({@code doca_sta_ns}): front-end namespace id, logical block size,
 * and the back-end (plus back-end namespace id) it maps to. Removed asynchronously with
 * {@link StaTaskRmNs}; I/O to a removed namespace completes with Invalid Namespace.
 *
 * <p>Thread-safe: immutable geometry, atomic counters, volatile removed flag.
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
    final AtomicInteger inflight = new AtomicInteger();
    final AtomicLong reads = new AtomicLong();
    final AtomicLong writes = new AtomicLong();
    final AtomicLong readBytes = new AtomicLong();
    final AtomicLong writeBytes = new AtomicLong();
    final AtomicLong otherOps = new AtomicLong();
    final AtomicLong errors = new AtomicLong();

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
        return inflight.get();
    }

    /** Counter snapshot ({@code doca_sta_stats} for a namespace). */
    public StaStats stats() {
        return StaStats.of("namespace", subsystem.nqn() + "/" + nsid,
                "reads", reads.get(), "writes", writes.get(), "read_bytes", readBytes.get(),
                "write_bytes", writeBytes.get(), "other_ops", otherOps.get(), "errors", errors.get());
    }
}
