package io.jdoca.sta.nvmf;

import io.jdoca.sta.backend.StaBackend;
import io.jdoca.sta.backend.StaCounters;

/**
 * What the command layer needs of a namespace (SPDK's {@code spdk_nvmf_ns} as a poll group sees
 * it): the front-end namespace id, the logical block size, the back-end it maps to, the removed
 * flag and the per-engine counters. The STA API's namespace ({@code StaNamespace}) is this plus
 * its subsystem and statistics.
 *
 * <p>Thread-safe: immutable block size and back-end, a size that only grows ({@link #grow}: one
 * volatile write by the management thread, one volatile read per I/O), a volatile removed flag,
 * and per-engine counter blocks ({@link StaCounters}: each IO engine writes its own, readers sum
 * them).
 */
public class NvmfNamespace {
    private final int nsid;
    private final int blockSize;
    private final int blockShift;
    private final StaBackend backend;
    private final int beNsId;
    /** Grows only ({@link #grow}): the engines' range checks read it once per command. */
    private volatile long sizeBlocks;
    private volatile boolean removed;
    /** The reservation held on the namespace, or null (none: one volatile read per I/O). */
    private volatile NvmfReservationView reservation;
    /** ANA group (Identify Namespace ANAGRPID); SPDK's default is the namespace id. */
    private volatile int anaGroup;
    /** One counter block per IO engine, indexed by the engine's index. */
    private final StaCounters[] counters = StaCounters.perEngine();

    protected NvmfNamespace(int nsid, int blockSize, StaBackend backend, int beNsId) {
        this.nsid = nsid;
        this.blockSize = blockSize;
        this.blockShift = Integer.numberOfTrailingZeros(blockSize);
        this.backend = backend;
        this.beNsId = beNsId;
        this.sizeBlocks = backend.sizeBytes() >>> blockShift;
        this.anaGroup = nsid;
    }

    /** The reservation the IO engines enforce, or null when none is held. Any thread. */
    public final NvmfReservationView reservation() {
        return reservation;
    }

    /** Publishes the namespace's reservation after a reservation command changed it. Management thread. */
    public final void setReservation(NvmfReservationView view) {
        reservation = view;
    }

    /** The namespace's ANA group id (1..ANAGRPMAX). Any thread. */
    public final int anaGroup() {
        return anaGroup;
    }

    /** Moves the namespace to ANA group {@code id}. Control path, before hosts see the namespace. */
    public final void setAnaGroup(int id) {
        anaGroup = id;
    }

    /** Front-end namespace id (what hosts see). */
    public final int nsid() {
        return nsid;
    }

    public final int blockSize() {
        return blockSize;
    }

    public final int blockShift() {
        return blockShift;
    }

    /** Size in logical blocks (NSZE). */
    public final long sizeBlocks() {
        return sizeBlocks;
    }

    /**
     * The namespace grows to {@code blocks} (its back-end grew first, {@link StaBackend#grow}): from
     * the next command on, every IO engine accepts LBAs below it. No lock: the engines read the
     * size once per command. Telling the hosts (the namespace attribute changed event) is the
     * caller's. Management thread; never shrinks.
     */
    public final void grow(long blocks) {
        if (blocks < sizeBlocks || (blocks << blockShift) > backend.sizeBytes()) {
            throw new IllegalArgumentException("namespace " + nsid + " cannot go from " + sizeBlocks + " to "
                    + blocks + " blocks (back-end " + backend.sizeBytes() + " B)");
        }
        sizeBlocks = blocks;
    }

    public final StaBackend backend() {
        return backend;
    }

    public final int backendNsId() {
        return beNsId;
    }

    public final boolean isRemoved() {
        return removed;
    }

    /** From now on I/O to the namespace fails with Invalid Namespace (the removal has begun). Control path. */
    public final void markRemoved() {
        removed = true;
    }

    /** Commands executing on this namespace now (all engines). */
    public final int inflight() {
        return (int) StaCounters.sum(counters, StaCounters.Field.INFLIGHT);
    }

    /** Engine {@code engine}'s counter block. */
    public final StaCounters counters(int engine) {
        return counters[engine];
    }

    /** The sum of {@code f} over every engine's block. */
    protected final long sum(StaCounters.Field f) {
        return StaCounters.sum(counters, f);
    }
}
