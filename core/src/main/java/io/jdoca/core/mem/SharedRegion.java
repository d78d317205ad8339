package io.jdoca.core.mem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Off-heap memory backed by a file in {@code /dev/shm}, so another process on this host can map the
 * same pages: what a {@link MemoryMap} needs for PCI export (host ↔ DPU on one machine) and for the
 * shared-memory RDMA transport. Created by {@link SharedMemory#allocate(long)}.
 *
 * <p>{@link #close()} unmaps the pages and deletes the file. Thread-safe.
 */
public final class SharedRegion implements AutoCloseable {
    private final Path path;
    private final Arena arena;
    private final MemorySegment segment;
    private final boolean owner;
    private volatile boolean closed;

    SharedRegion(Path path, Arena arena, MemorySegment segment, boolean owner) {
        this.path = path;
        this.arena = arena;
        this.segment = segment;
        this.owner = owner;
    }

    /** The mapped pages. */
    public MemorySegment segment() {
        return segment;
    }

    public Path path() {
        return path;
    }

    public long size() {
        return segment.byteSize();
    }

    /** True if {@code [address, address + length)} lies in this region. */
    boolean contains(long address, long length) {
        long base = segment.address();
        return address >= base && length >= 0 && address + length <= base + segment.byteSize();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        SharedMemory.unregister(this);
        arena.close();
        if (owner) {
            try {
                Files.deleteIfExists(path);
            } catch (java.io.IOException ignored) {
                // best effort: the janitor removes files of dead processes
            }
        }
    }

    @Override
    public String toString() {
        return "SharedRegion[" + path + ", " + segment.byteSize() + " bytes]";
    }
}
