package io.jdoca.rdma;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Cached direct {@link ByteBuffer} views of memory segments, so socket I/O can go straight to and
 * from registered memory without allocating a view per operation. One instance per thread; each
 * segment gets up to {@code slots} independent views (a gathering write may use one segment twice).
 * Segments of 2 GiB or more get a fresh slice view per call (allocates; rare).
 */
final class SegmentViews {
    private static final int MAX_ENTRIES = 64;
    private final int slots;
    private final MemorySegment[] keys = new MemorySegment[MAX_ENTRIES];
    private final ByteBuffer[][] views = new ByteBuffer[MAX_ENTRIES][];
    private int n;
    private int last;

    SegmentViews(int slots) {
        this.slots = slots;
    }

    /** A view of {@code [off, off+len)} of {@code seg}, positioned and limited to that range. */
    ByteBuffer view(MemorySegment seg, int slot, long off, long len) {
        if (seg.byteSize() > Integer.MAX_VALUE) {
            return seg.asSlice(off, len).asByteBuffer();
        }
        int i = find(seg);
        ByteBuffer[] vs = views[i];
        ByteBuffer b = vs[slot];
        if (b == null) {
            b = unscoped(seg);
            vs[slot] = b;
        }
        b.clear();
        b.position((int) off);
        b.limit((int) (off + len));
        return b;
    }

    /**
     * A view with no memory session attached: NIO's scatter/gather calls allocate a releaser per
     * session-backed buffer per call, which the data path cannot afford. The memory's lifetime is
     * the application's contract (DOCA: buffers stay valid while a task uses them).
     */
    @SuppressWarnings("restricted")
    static ByteBuffer unscoped(MemorySegment seg) {
        return MemorySegment.ofAddress(seg.address()).reinterpret(seg.byteSize()).asByteBuffer();
    }

    private int find(MemorySegment seg) {
        if (keys[last] == seg) {
            return last;
        }
        for (int i = 0; i < n; i++) {
            if (keys[i] == seg) {
                last = i;
                return i;
            }
        }
        if (n == MAX_ENTRIES) {
            // Forget everything rather than track recency: maps come and go on the control path only.
            java.util.Arrays.fill(keys, null);
            java.util.Arrays.fill(views, null);
            n = 0;
        }
        keys[n] = seg;
        views[n] = new ByteBuffer[slots];
        last = n;
        return n++;
    }
}
