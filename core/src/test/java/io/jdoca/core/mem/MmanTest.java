package io.jdoca.core.mem;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.testkit.CProgram;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Mman}'s constants against the installed header; {@link NativeMemory}'s release. */
class MmanTest {

    @Test
    void constantsMatchTheInstalledHeaders(@TempDir Path dir) throws IOException, InterruptedException {
        String out = CProgram.run(dir, "sys/mman.h", """
                #include <sys/mman.h>
                #include <stdio.h>
                int main(void) { printf("%d %d %d %d %d %ld\\n", PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                        MAP_PRIVATE | MAP_ANONYMOUS,
                        MADV_HUGEPAGE, MADV_DONTNEED, (long) MAP_FAILED); return 0; }
                """);
        assertThat(out).isEqualTo(Mman.PROT_READ_WRITE + " " + Mman.MAP_SHARED_POPULATE + " "
                + Mman.MAP_PRIVATE_ANONYMOUS + " "
                + Mman.MADV_HUGEPAGE + " " + Mman.MADV_DONTNEED + " " + Mman.MAP_FAILED);
    }

    /** Closed: whole pages read as zeroes (given back), the range stays usable, a shared edge page is untouched. */
    @Test
    void closeGivesThePagesBackAndLeavesTheRangeUsable() {
        NativeMemory mem = new NativeMemory();
        MemorySegment a = mem.allocate(64 * 1024, 4096);
        a.fill((byte) 7);
        MemorySegment small = mem.allocate(100, 8);
        small.fill((byte) 9);
        mem.close();
        assertThat(mem.isClosed()).isTrue();
        for (long off = 0; off < a.byteSize(); off += 4096) {
            assertThat(a.get(ValueLayout.JAVA_BYTE, off)).as("offset %d after release", off).isZero();
        }
        assertThat(small.get(ValueLayout.JAVA_BYTE, 99)).as("no whole page: not released").isEqualTo((byte) 9);
        a.set(ValueLayout.JAVA_LONG, 8, 42L); // a stale writer faults a fresh page in, nothing worse
        assertThat(a.get(ValueLayout.JAVA_LONG, 8)).isEqualTo(42L);
        mem.close(); // idempotent
    }
}
