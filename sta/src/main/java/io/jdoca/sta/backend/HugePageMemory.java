package io.jdoca.sta.backend;

import io.jdoca.core.mem.Mman;
import io.jdoca.core.mem.NativeMemory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Large zero-filled memory for RAM back-ends, on 2 MiB transparent huge pages where the kernel gives them:
 * an anonymous {@code mmap(2)}, aligned to 2 MiB and advised {@code MADV_HUGEPAGE} ({@code madvise(2)}) before
 * its first touch, then touched page by page so that no page fault is left for the data path (DOCA's rule:
 * allocate at start). Why: with 4 KiB pages every random 4 KiB read of a 1 GiB RAM disk is a TLB miss; random
 * 4 KiB reads of the memory back-end gained about 10 % with huge pages, 128 KiB sequential reads nothing
 * (docs/performance/nvmf.md, 2026-11-28), and SPDK's malloc bdev lives in hugepages too. Debian's default THP mode is
 * {@code madvise},
 * which gives huge pages only to advised ranges; with THP {@code never}, or when {@code mmap} fails, the memory
 * is the same, on 4 KiB pages.
 *
 * <p><b>Threads.</b> Control path (back-end creation and deletion); the range lives as long as the given arena,
 * its pages until {@link #release}.
 */
// Restricted FFM calls (libc entry points, native mappings); the launcher runs with --enable-native-access.
@SuppressWarnings("restricted")
final class HugePageMemory {
    static final long HUGE_PAGE = 2L << 20;
    private static final long PAGE = 4096;

    private HugePageMemory() {
    }

    /**
     * {@code size} zero-filled bytes, 4096-aligned (2 MiB-aligned when at least 2 MiB), faulted in, released when
     * {@code arena} closes. Below 2 MiB, or when the mapping fails, plain {@code arena.allocate}.
     */
    static MemorySegment allocate(Arena arena, long size) {
        if (size < HUGE_PAGE) {
            return arena.allocate(size, PAGE);
        }
        long span = (size + HUGE_PAGE - 1) & -HUGE_PAGE;
        long len = span + HUGE_PAGE; // room to align the start to 2 MiB
        long addr;
        try {
            addr = (long) Mman.MMAP.invokeExact(0L, len, Mman.PROT_READ_WRITE, Mman.MAP_PRIVATE_ANONYMOUS, -1, 0L);
        } catch (Throwable t) {
            addr = Mman.MAP_FAILED;
        }
        if (addr == Mman.MAP_FAILED) {
            return arena.allocate(size, PAGE);
        }
        long aligned = (addr + HUGE_PAGE - 1) & -HUGE_PAGE;
        try {
            // Fails only without THP support (EINVAL): the memory then stays on 4 KiB pages.
            int ignored = (int) Mman.MADVISE.invokeExact(aligned, span, Mman.MADV_HUGEPAGE);
        } catch (Throwable t) {
            // same: 4 KiB pages
        }
        long base = addr;
        MemorySegment seg = MemorySegment.ofAddress(aligned).reinterpret(size, arena, s -> unmap(base, len));
        for (long off = 0; off < size; off += PAGE) {
            seg.set(ValueLayout.JAVA_BYTE, off, (byte) 0); // fault every page in now, not on the first I/O
        }
        return seg;
    }

    /**
     * Gives the physical pages under {@code seg} back to the kernel now ({@code MADV_DONTNEED}: a later read of
     * the range sees zeroes, nothing faults), without unmapping it: the range stays valid until its arena
     * releases it. Only whole pages inside the segment are advised (a small segment may share its last page with
     * other allocations). Control path.
     */
    static void release(MemorySegment seg) {
        NativeMemory.releasePages(seg);
    }

    private static void unmap(long addr, long len) {
        try {
            int ignored = (int) Mman.MUNMAP.invokeExact(addr, len);
        } catch (Throwable t) {
            // the process is left with the mapping; nothing else refers to it
        }
    }
}
