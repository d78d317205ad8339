package io.jdoca.sta.nvmf;

import io.jdoca.sta.backend.StaBeQueue;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One IO engine's share of the command layer (SPDK's {@code spdk_nvmf_poll_group}): its index
 * (which selects back-end queues and counter blocks), its scratch buffer, its asynchronous
 * back-end channels, its counters, and where back-end timeouts are reported. Every queue pair the
 * engine owns executes its commands against this group.
 *
 * <p><b>Threads.</b> The engine's thread writes everything; the counters are read racily by
 * statistics (single writer, plain stores). {@link #close} on the engine thread when it stops.
 */
public final class NvmfPollGroup {
    /** The back-end timeout: its current limit, and where operations slower than it are reported. */
    public interface BackendTimeouts {
        /** Operations slower than this are reported (read per command: it may change at run time). */
        long limitNanos();

        /** An operation exceeded the limit (rare path: may allocate). */
        void onBackendTimeout(StaBeQueue queue, NvmfNamespace ns, int opcode, long elapsedNanos);
    }

    private final int index;
    private final MemorySegment scratch;
    private final NvmfBackendChannels backendChannels;
    private final BackendTimeouts timeouts;

    // Engine statistics: written by the engine thread only, read racily.
    long reads;
    long writes;
    long readBytes;
    long writeBytes;
    long nonOffloaded;
    long ioErrors;
    long digestErrors;
    long protocolErrors;

    /**
     * @param index               the engine's index (back-end queue {@code index % queues}, counter block)
     * @param arena               where the scratch buffer lives (the engine's)
     * @param maxIo               the largest data transfer of one command
     * @param timeouts the back-end timeout's limit and where it is reported
     */
    public NvmfPollGroup(int index, Arena arena, int maxIo, BackendTimeouts timeouts) {
        this.index = index;
        this.scratch = arena.allocate(Math.max(maxIo, 1 << 16), 4096);
        this.backendChannels = new NvmfBackendChannels(this, maxIo);
        this.timeouts = timeouts;
    }

    /** The engine's index. */
    public int index() {
        return index;
    }

    /** A 4096-aligned engine-owned buffer of at least the maximum I/O size (back-ends that need one). */
    public MemorySegment scratch() {
        return scratch;
    }

    /** The engine's asynchronous back-end side. */
    public NvmfBackendChannels backendChannels() {
        return backendChannels;
    }

    long backendTimeoutNanos() {
        return timeouts.limitNanos();
    }

    void reportBackendTimeout(StaBeQueue q, NvmfNamespace ns, int opcode, long elapsed) {
        timeouts.onBackendTimeout(q, ns, opcode, elapsed);
    }

    /** A transport saw a header or data digest error (engine thread). */
    public void countDigestError() {
        digestErrors++;
    }

    /** A command was refused before execution (engine thread). */
    public void countIoError() {
        ioErrors++;
    }

    /** A transport saw a protocol error (engine thread). */
    public void countProtocolError() {
        protocolErrors++;
    }

    public long reads() {
        return reads;
    }

    public long writes() {
        return writes;
    }

    public long readBytes() {
        return readBytes;
    }

    public long writeBytes() {
        return writeBytes;
    }

    /** Commands handed to the application (not offloaded). */
    public long nonOffloaded() {
        return nonOffloaded;
    }

    /** Commands completed with an error status. */
    public long ioErrors() {
        return ioErrors;
    }

    public long digestErrors() {
        return digestErrors;
    }

    public long protocolErrors() {
        return protocolErrors;
    }

    /** The engine stops: outstanding back-end operations finish (bounded), channels close. Engine thread. */
    public void close() {
        backendChannels.close();
    }
}
