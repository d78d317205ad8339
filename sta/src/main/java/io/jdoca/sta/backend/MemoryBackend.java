package io.jdoca.sta.backend;

import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A RAM back-end: one zero-filled off-heap segment (a RAM disk, like SPDK's malloc bdev), on transparent huge
 * pages where the kernel gives them ({@link HugePageMemory}).
 *
 * <p>Thread-safe for I/O (plain copies into disjoint or overlapping ranges; NVMe gives no ordering
 * between concurrent commands).
 */
public final class MemoryBackend extends StaBackend {
    private final MemorySegment data;

    public MemoryBackend(String name, long sizeBytes) {
        super(name, sizeBytes);
        // An automatic arena, not a shared one: closing a shared arena is a JVM-wide handshake
        // ("CloseScopedMemory") that stalled the IO engines 15-67 ms whenever a RAM bdev was deleted
        // (RpcStormSystemTest). close() gives the pages back to the kernel at once; the GC unmaps the
        // range once nothing refers to it, so an engine can never touch unmapped memory.
        this.data = HugePageMemory.allocate(Arena.ofAuto(), sizeBytes); // 2 MiB pages where the kernel gives them
    }

    @Override
    public String kind() {
        return "memory";
    }

    /** The backing memory (tests, samples). */
    public MemorySegment segment() {
        return data;
    }

    @Override
    public int read(long offset, MemorySegment dst, long dstOff, int len, MemorySegment scratch) {
        MemorySegment.copy(data, offset, dst, dstOff, len);
        return NvmeStatus.SUCCESS;
    }

    @Override
    public int write(long offset, MemorySegment src, long srcOff, int len, MemorySegment scratch) {
        MemorySegment.copy(src, srcOff, data, offset, len);
        return NvmeStatus.SUCCESS;
    }

    @Override
    public int writeZeroes(long offset, long len, MemorySegment scratch) {
        long done = 0;
        while (done < len) {
            int n = (int) Math.min(len - done, Zeroes.SEGMENT.byteSize());
            MemorySegment.copy(Zeroes.SEGMENT, 0, data, offset + done, n);
            done += n;
        }
        return NvmeStatus.SUCCESS;
    }

    @Override
    protected void close() {
        HugePageMemory.release(data);
    }
}
