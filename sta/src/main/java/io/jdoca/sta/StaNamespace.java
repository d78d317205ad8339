package io.jdoca.sta;


import io.jdoca.sta.backend.StaBackend;
import io.jdoca.sta.backend.StaCounters.Field;
import io.jdoca.sta.backend.StaStats;
import io.jdoca.sta.nvmf.NvmfNamespace;

/**
 * A namespace of a subsystem ({@code doca_sta_ns}): front-end namespace id, logical block size,
 * and the back-end (plus back-end namespace id) it maps to; the command layer's
 * {@link NvmfNamespace} plus its subsystem and statistics. Removed asynchronously with
 * {@link StaTaskRmNs}; I/O to a removed namespace completes with Invalid Namespace.
 *
 * <p>Thread-safe: immutable geometry, volatile removed flag, and per-engine counter blocks (each
 * IO engine writes its own, readers sum them).
 */
public final class StaNamespace extends NvmfNamespace {
    private final StaSubsystem subsystem;

    StaNamespace(StaSubsystem subsystem, int nsid, int blockSize, StaBackend backend, int beNsId) {
        super(nsid, blockSize, backend, beNsId);
        this.subsystem = subsystem;
    }

    public StaSubsystem subsystem() {
        return subsystem;
    }

    /** Counter snapshot ({@code doca_sta_stats} for a namespace). */
    public StaStats stats() {
        return StaStats.of("namespace", subsystem.nqn() + "/" + nsid(),
                "reads", sum(Field.READS), "writes", sum(Field.WRITES), "read_bytes", sum(Field.READ_BYTES),
                "write_bytes", sum(Field.WRITE_BYTES), "other_ops", sum(Field.OTHER_OPS), "errors", sum(Field.ERRORS));
    }
}
