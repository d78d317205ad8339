package io.jdoca.core.mem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Off-heap memory backed by a file in this user's private shared-memory directory
 * ({@link SharedMemory#directory()}), so another jdoca process of the same user on this host can
 * map the same pages: what a {@link MemoryMap} needs for PCI export (host ↔ DPU on one machine) and
 * for the shared-memory RDMA transport. Created by {@link SharedMemory#allocate(long)}.
 *
 * <p>A region is named by its {@link #name() id} ({@code <owner pid>-<sequence>}), never by a path
 * on the wire. The file holds a {@value SharedMemory#HEADER_PAGE}-byte header page (the grant
 * table, see {@link SharedMemory}) before the data; {@link #segment()} is the data.
 *
 * <p>{@link #close()} unmaps the pages and, for the owner, deletes the file. Thread-safe.
 */
public final class SharedRegion implements AutoCloseable {
    private final Path path;
    private final long pid;
    private final long seq;
    private final Arena arena;
    private final MemorySegment segment;
    /** The owner's mapping of the grant table; null for a mapping of another process's region. */
    private final MemorySegment header;
    private final boolean owner;
    private volatile boolean closed;

    SharedRegion(Path path, long pid, long seq, Arena arena, MemorySegment header, MemorySegment segment,
            boolean owner) {
        this.path = path;
        this.pid = pid;
        this.seq = seq;
        this.arena = arena;
        this.header = header;
        this.segment = segment;
        this.owner = owner;
    }

    /** The mapped pages. */
    public MemorySegment segment() {
        return segment;
    }

    /** The file, for diagnostics; peers name the region by {@link #name()}. */
    public Path path() {
        return path;
    }

    /** The region's id on the wire: {@code <owner pid>-<sequence>}. */
    public String name() {
        return pid + "-" + seq;
    }

    /** Pid of the process that created the region. */
    public long ownerPid() {
        return pid;
    }

    /** The creator's sequence number of the region (with {@link #ownerPid()}, its id). */
    public long sequence() {
        return seq;
    }

    MemorySegment header() {
        return header;
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
        return "SharedRegion[" + name() + ", " + segment.byteSize() + " bytes]";
    }
}
