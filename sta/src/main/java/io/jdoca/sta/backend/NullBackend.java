package io.jdoca.sta.backend;

import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.MemorySegment;

/**
 * A null back-end (SPDK's null bdev): writes are discarded, reads return zeroes. For measuring the
 * transport without storage.
 *
 * <p>Thread-safe (stateless).
 */
public final class NullBackend extends StaBackend {
    public NullBackend(String name, long sizeBytes) {
        super(name, sizeBytes);
    }

    @Override
    public String kind() {
        return "null";
    }

    /** SPDK's {@code bdev_null_resize}: a null back-end holds nothing, so it grows at once. */
    @Override
    public boolean canGrow() {
        return true;
    }

    @Override
    public void grow(long newBytes) {
        grown(newBytes);
    }

    @Override
    public int read(long offset, MemorySegment dst, long dstOff, int len, MemorySegment scratch) {
        int done = 0;
        while (done < len) {
            int n = (int) Math.min(len - done, Zeroes.SEGMENT.byteSize());
            MemorySegment.copy(Zeroes.SEGMENT, 0, dst, dstOff + done, n);
            done += n;
        }
        return NvmeStatus.SUCCESS;
    }

    @Override
    public int write(long offset, MemorySegment src, long srcOff, int len, MemorySegment scratch) {
        return NvmeStatus.SUCCESS;
    }

    @Override
    public int writeZeroes(long offset, long len, MemorySegment scratch) {
        return NvmeStatus.SUCCESS;
    }

    @Override
    protected void close() {
    }
}
