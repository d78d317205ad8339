package io.jdoca.sta.nvmf;

import io.jdoca.sta.backend.StaBackend;
import io.jdoca.sta.backend.StaCounters;

/**
 * What the command layer needs of a namespace (SPDK's {@code spdk_nvmf_ns} as a poll group sees
 * it): the front-end namespace id, the logical block size, the back-end it maps to, the removed
 * flag and the per-engine counters. The STA API's namespace ({@code StaNamespace}) is this plus
 * its subsystem and statistics.
 *
 * <p>Thread-safe: immutable geometry, a volatile removed flag, and per-engine counter blocks
 * ({@link StaCounters}: each IO engine writes its own, readers sum them).
 */
public class NvmfNamespace {
    private final int nsid;
    private final int blockSize;
    private final int blockShift;
    private final StaBackend backend;
    private final int beNsId;
    private final long sizeBlocks;
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
