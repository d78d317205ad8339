package io.jdoca.core.mem;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The {@code <sys/mman.h>} calls jdoca makes through FFM, in one place: {@code mmap}, {@code munmap},
 * {@code madvise}, and the flag values they pass (checked against the installed header by {@code MmanTest}). Used
 * by {@link NativeMemory}, the io_uring rings and the RAM back-end's huge-page memory.
 *
 * <p><b>Threads.</b> Stateless; control path only (mapping at start, unmapping at close).
 */
// Restricted FFM calls (libc entry points, native mappings); the launcher runs with --enable-native-access.
@SuppressWarnings("restricted")
public final class Mman {
    /** {@code PROT_READ | PROT_WRITE}. */
    public static final int PROT_READ_WRITE = 0x1 | 0x2;
    /** {@code MAP_SHARED | MAP_POPULATE}. */
    public static final int MAP_SHARED_POPULATE = 0x01 | 0x8000;
    /** {@code MAP_PRIVATE | MAP_ANONYMOUS}. */
    public static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
    /** {@code MADV_HUGEPAGE} ({@code <asm-generic/mman-common.h>}). */
    public static final int MADV_HUGEPAGE = 14;
    /** {@code MADV_DONTNEED} ({@code <asm-generic/mman-common.h>}). */
    public static final int MADV_DONTNEED = 4;
    /** What {@code mmap} returns on failure ({@code MAP_FAILED}). */
    public static final long MAP_FAILED = -1L;

    private static final Linker LINKER = Linker.nativeLinker();
    /** {@code void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)}. */
    public static final MethodHandle MMAP = LINKER.downcallHandle(
            LINKER.defaultLookup().find("mmap").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
    /** {@code int munmap(void *addr, size_t len)}. */
    public static final MethodHandle MUNMAP = LINKER.downcallHandle(
            LINKER.defaultLookup().find("munmap").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    /** {@code int madvise(void *addr, size_t len, int advice)}. */
    public static final MethodHandle MADVISE = LINKER.downcallHandle(
            LINKER.defaultLookup().find("madvise").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT));

    private Mman() {
    }
}
