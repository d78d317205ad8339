package io.jdoca.sta.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class HugePageMemoryTest {

    @Test
    void largeMemoryIsZeroAlignedUsableAndOnHugePagesWhereTheKernelGivesThem() throws IOException {
        long size = 64L << 20;
        Arena arena = Arena.ofShared();
        MemorySegment m = HugePageMemory.allocate(arena, size);
        assertThat(m.byteSize()).isEqualTo(size);
        assertThat(m.address() % HugePageMemory.HUGE_PAGE).isZero();
        for (long off = 0; off < size; off += 1 << 20) {
            assertThat(m.get(ValueLayout.JAVA_LONG, off)).isZero();
        }
        m.set(ValueLayout.JAVA_LONG, size - 8, 0x1234_5678_9abcL);
        assertThat(m.get(ValueLayout.JAVA_LONG, size - 8)).isEqualTo(0x1234_5678_9abcL);
        Path thp = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");
        if (Files.exists(thp) && !Files.readString(thp).contains("[never]")) {
            // The mapping that holds the segment carries the advice (VmFlags "hg", VM_HUGEPAGE): with THP "madvise",
            // Debian's default, only such a range gets huge pages. Whether the kernel found free 2 MiB pages for
            // it depends on the machine's memory, so AnonHugePages is printed, not asserted.
            assertThat(smapsField(m.address(), "VmFlags:")).as("VmFlags of the mapping at 0x%x", m.address())
                    .matches(".*\\bhg\\b.*");
            System.out.println("HugePageMemoryTest: " + smapsField(m.address(), "AnonHugePages:").strip()
                    + " of 64 MiB");
        }
        arena.close();
        assertThatThrownBy(() -> m.get(ValueLayout.JAVA_LONG, 0)).isInstanceOf(IllegalStateException.class);
    }

    /** A deleted RAM bdev's memory goes back to the kernel at once, with no arena closed (no JVM handshake). */
    @Test
    void releaseGivesThePagesBackAndLeavesTheRangeReadable() throws IOException {
        long size = 32L << 20;
        MemorySegment m = HugePageMemory.allocate(Arena.ofAuto(), size);
        for (long off = 0; off < size; off += 4096) {
            m.set(ValueLayout.JAVA_BYTE, off, (byte) 7);
        }
        assertThat(rssKiB(m.address())).as("resident KiB before release").isGreaterThanOrEqualTo(size >> 10);
        HugePageMemory.release(m);
        assertThat(rssKiB(m.address())).as("resident KiB after release").isLessThan(size >> 12);
        assertThat(m.get(ValueLayout.JAVA_BYTE, size / 2)).as("a stale read sees zeroes, not a fault").isZero();
        assertThat(m.get(ValueLayout.JAVA_BYTE, size - 1)).isZero();
    }

    @Test
    void releaseAdvisesOnlyWholePagesInsideTheSegment() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment neighbour = arena.allocate(8192, 4096);
            neighbour.set(ValueLayout.JAVA_LONG, 8, 9L);
            neighbour.set(ValueLayout.JAVA_LONG, 8184, 42L);
            HugePageMemory.release(neighbour.asSlice(100, 8000)); // [100, 8100): no whole page
            assertThat(neighbour.get(ValueLayout.JAVA_LONG, 8)).isEqualTo(9L);
            assertThat(neighbour.get(ValueLayout.JAVA_LONG, 8184)).isEqualTo(42L);
            HugePageMemory.release(neighbour.asSlice(0, 4196)); // [0, 4196): the first page only
            assertThat(neighbour.get(ValueLayout.JAVA_LONG, 8)).isZero();
            assertThat(neighbour.get(ValueLayout.JAVA_LONG, 8184)).isEqualTo(42L);
        }
    }

    private static long rssKiB(long addr) throws IOException {
        return Long.parseLong(smapsField(addr, "Rss:").replace("kB", "").strip());
    }

    @Test
    void smallMemoryIsAPlainAllocation() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = HugePageMemory.allocate(arena, 64 << 10);
            assertThat(m.byteSize()).isEqualTo(64 << 10);
            assertThat(m.address() % 4096).isZero();
            assertThat(m.get(ValueLayout.JAVA_LONG, 0)).isZero();
        }
    }

    /**
     * The rest of line {@code field} of the /proc/self/smaps entry of the mapping that contains {@code addr}, or "".
     */
    private static String smapsField(long addr, String field) throws IOException {
        boolean in = false;
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
            int dash = line.indexOf('-');
            int sp = line.indexOf(' ');
            if (dash > 0 && sp > dash && line.substring(0, dash).matches("[0-9a-f]+")) {
                long lo = Long.parseUnsignedLong(line.substring(0, dash), 16);
                long hi = Long.parseUnsignedLong(line.substring(dash + 1, sp), 16);
                in = addr >= lo && addr < hi;
            } else if (in && line.startsWith(field)) {
                return line.substring(field.length());
            }
        }
        return "";
    }
}
