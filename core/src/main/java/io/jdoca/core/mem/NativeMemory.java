package io.jdoca.core.mem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Off-heap memory that one owner (a queue pair, a connection, a worker) allocates at start and gives back at its
 * end without stopping the other threads. Why not a shared {@link Arena}: closing one is a JVM-wide handshake
 * ({@code CloseScopedMemory}) that stalls every thread, so each disconnect of one host would pause every IO engine
 * of the target (a RAM bdev's shared arena did, 15-67 ms, in {@code RpcStormSystemTest}); and a confined arena
 * cannot be closed by the control thread. Here the memory comes from an automatic arena, and {@link #close}
 * gives its pages back to the kernel at once ({@code madvise(MADV_DONTNEED)} on every whole page of every
 * allocation: a later read sees zeroes, nothing faults); the address ranges themselves are freed by the garbage
 * collector when nothing refers to them any more, so no thread can ever touch unmapped memory. Register memory
 * with a device only for as long as the owner lives, and deregister it before {@link #close}.
 *
 * <p><b>Threads.</b> Allocation and {@link #close} on the control path of the owner (one thread at a time); the
 * segments themselves may be used from any thread, as a shared arena's.
 */
// Restricted FFM call (madvise); the launcher runs with --enable-native-access.
@SuppressWarnings("restricted")
public final class NativeMemory implements AutoCloseable {
    private static final long PAGE = 4096;

    private final Arena arena = Arena.ofAuto();
    private final List<MemorySegment> allocations = new ArrayList<>();
    private boolean closed;

    /** {@code size} zero-filled bytes aligned to {@code align}, released by {@link #close}. Control path. */
    public MemorySegment allocate(long size, long align) {
        if (closed) {
            throw new IllegalStateException("native memory already released");
        }
        MemorySegment s = arena.allocate(size, align);
        allocations.add(s);
        return s;
    }

    /** True once {@link #close} ran. */
    public boolean isClosed() {
        return closed;
    }

    /** Gives every allocation's whole pages back to the kernel now; idempotent. Control path. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (MemorySegment s : allocations) {
            releasePages(s);
        }
        allocations.clear();
    }

    /**
     * Gives the physical pages wholly inside {@code seg} back to the kernel now, without unmapping them: a later
     * read sees zeroes. A page {@code seg} shares with other memory is left alone.
     */
    public static void releasePages(MemorySegment seg) {
        long start = (seg.address() + PAGE - 1) & -PAGE;
        long end = (seg.address() + seg.byteSize()) & -PAGE;
        if (end <= start) {
            return;
        }
        try {
            int ignored = (int) Mman.MADVISE.invokeExact(start, end - start, Mman.MADV_DONTNEED);
        } catch (Throwable t) {
            // the pages stay resident until the garbage collector frees the range
        }
    }
}
