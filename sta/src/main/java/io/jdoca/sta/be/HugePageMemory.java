package io.jdoca.sta.be;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Large zero-filled memory for RAM back-ends, on 2 MiB transparent huge pages where the kernel gives them:
 * an anonymous {@code mmap(2)}, aligned to 2 MiB and advised {@code MADV_HUGEPAGE} ({@code madvise(2)}) before
 * its first touch, then touched page by page so that no page fault is left for the data path (DOCA's rule:
 * allocate at start). Why: with 4 KiB pages every random 4 KiB read of a 1 GiB RAM disk is a TLB miss; the
 * memory back-end read 8 % (4 KiB) to 14 % (128 KiB) more with huge pages (docs/performance/nvmf.md,
 * 2026-11-28), and SPDK's malloc bdev lives in hugepages too. Debian's default THP mode is {@code madvise},
 * which gives huge pages only to advised ranges; with THP {@code never}, or when {@code mmap} fails, the memory
 * is the same, on 4 KiB pages.
 *
 * <p><b>Threads.</b> Control path (back-end creation); the memory lives as long as the given arena.
 */
final class HugePageMemory {
    /** {@code PROT_READ | PROT_WRITE}, {@code <bits/mman-linux.h>}. */
    static final int PROT_READ_WRITE = 0x1 | 0x2;
    /** {@code MAP_PRIVATE | MAP_ANONYMOUS}, {@code <bits/mman-linux.h>}. */
    static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
    /** {@code MADV_HUGEPAGE}, {@code <asm-generic/mman-common.h>}. */
    static final int MADV_HUGEPAGE = 14;
    static final long HUGE_PAGE = 2L << 20;
    private static final long PAGE = 4096;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle MMAP = LINKER.downcallHandle(LINKER.defaultLookup().find("mmap").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
    private static final MethodHandle MADVISE = LINKER.downcallHandle(LINKER.defaultLookup().find("madvise").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    private static final MethodHandle MUNMAP = LINKER.downcallHandle(LINKER.defaultLookup().find("munmap").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));

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
            addr = (long) MMAP.invokeExact(0L, len, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0L);
        } catch (Throwable t) {
            addr = -1L;
        }
        if (addr == -1L) {
            return arena.allocate(size, PAGE);
        }
        long aligned = (addr + HUGE_PAGE - 1) & -HUGE_PAGE;
        try {
            // Fails only without THP support (EINVAL): the memory then stays on 4 KiB pages.
            int ignored = (int) MADVISE.invokeExact(aligned, span, MADV_HUGEPAGE);
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

    private static void unmap(long addr, long len) {
        try {
            int ignored = (int) MUNMAP.invokeExact(addr, len);
        } catch (Throwable t) {
            // the process is left with the mapping; nothing else refers to it
        }
    }
}
