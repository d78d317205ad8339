package io.jdoca.nvmf.tgt;

/**
 * An IO engine's longest pause and stall ({@link PauseMeter}): the longest time between two duty
 * cycles, asleep by choice excluded, and the part of it the OS scheduler does not explain (time
 * waiting, runnable, for a CPU); each since start and since {@link NvmfTarget#resetEnginePauses}.
 *
 * <p>Immutable; any thread (read racily from the engine's own single-writer meter).
 */
public record EnginePause(String engine, long maxNanos, long windowMaxNanos, long maxStallNanos,
                          long windowMaxStallNanos) {
    static EnginePause of(NvmfEngine e) {
        PauseMeter p = e.pauses;
        return new EnginePause(e.io.name(), p.maxPauseNanos, p.windowMaxPauseNanos, p.maxStallNanos,
                p.windowMaxStallNanos);
    }
}
