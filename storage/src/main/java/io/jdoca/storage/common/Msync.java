package io.jdoca.storage.common;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * {@code msync(addr, len, MS_SYNC)} through the FFM API, on a byte range of a shared file mapping:
 * what target-rdma's {@code --durability write} calls before a write's response, and gga-offload's
 * dirty-stripe log before a degraded write's. The range is widened to whole pages. The address goes
 * down as a 64-bit integer (LP64 Linux), so a call allocates nothing: it runs on data paths.
 *
 * <p>Stateless; any thread. The call blocks until the pages are on the device.
 */
@SuppressWarnings("restricted") // FFM: a native binding
public final class Msync {
    /** {@code MS_SYNC} of Linux's {@code asm-generic/mman-common.h}. */
    static final int MS_SYNC = 4;
    /** {@code _SC_PAGESIZE} of glibc's {@code bits/confname.h}. */
    private static final int SC_PAGESIZE = 30;
    private static final MethodHandle MSYNC;
    private static final long PAGE;

    static {
        Linker l = Linker.nativeLinker();
        MSYNC = l.defaultLookup().find("msync").map(a -> l.downcallHandle(a, FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT))).orElse(null);
        long page = 4096;
        var sysconf = l.defaultLookup().find("sysconf");
        if (sysconf.isPresent()) {
            try {
                page = (long) l.downcallHandle(sysconf.get(), FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_INT)).invokeExact(SC_PAGESIZE);
            } catch (Throwable e) {
                page = 4096;
            }
        }
        PAGE = page > 0 ? page : 4096;
    }

    private Msync() {
    }

    /** True where msync can be called (Linux with glibc). */
    public static boolean available() {
        return MSYNC != null;
    }

    /**
     * Flushes {@code [address, address + length)} of a shared mapping to its file and waits; 0 on
     * success, -1 on failure (or no msync). Allocation-free.
     */
    public static int sync(long address, long length) {
        if (MSYNC == null || length <= 0) {
            return MSYNC == null ? -1 : 0;
        }
        long start = address & -PAGE;
        long end = (address + length + PAGE - 1) & -PAGE;
        try {
            return (int) MSYNC.invokeExact(start, end - start, MS_SYNC) == 0 ? 0 : -1;
        } catch (Throwable e) {
            return -1;
        }
    }
}
