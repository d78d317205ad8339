package io.jdoca.nvmf.tgt;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * How long the calling thread has waited, runnable, for a CPU (Linux's per-thread scheduler
 * statistics, {@code /proc/thread-self/schedstat}: "run time, run-queue wait, slices", in ns). An
 * IO engine reads it to tell its own stalls (a lock, a safepoint, a long duty cycle) from the OS
 * running other threads on a busy machine. One {@code pread} of a file kept open, into memory
 * allocated once: no allocation and no lock (the JDK's {@code FileChannel} would take a monitor),
 * about a microsecond.
 *
 * <p>Threads: opened and read by the one thread it describes (the file names the opening thread).
 */
// Restricted FFM calls (libc entry points); the launcher runs with --enable-native-access.
@SuppressWarnings("restricted")
final class RunQueueDelay implements AutoCloseable {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final MethodHandle OPEN = LINKER.downcallHandle(LIBC.find("open").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT),
            Linker.Option.firstVariadicArg(2));
    private static final MethodHandle PREAD = LINKER.downcallHandle(LIBC.find("pread").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(LIBC.find("close").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 02000000;
    private static final int SIZE = 128;

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment buf = arena.allocate(SIZE);
    private final int fd;

    private RunQueueDelay(int fd) {
        this.fd = fd;
    }

    /** The calling thread's statistics, or null where the kernel does not keep them. */
    static RunQueueDelay ofCurrentThread() {
        try (Arena a = Arena.ofConfined()) {
            int fd = (int) OPEN.invokeExact(a.allocateFrom("/proc/thread-self/schedstat"), O_RDONLY | O_CLOEXEC);
            return fd < 0 ? null : new RunQueueDelay(fd);
        } catch (Throwable e) {
            return null;
        }
    }

    /** Nanoseconds the thread has waited on a run queue since it started, or -1 if unreadable. Owner thread. */
    long nanos() {
        long n;
        try {
            n = (long) PREAD.invokeExact(fd, buf, (long) SIZE, 0L);
        } catch (Throwable e) {
            return -1;
        }
        // The second field of "run_time run_delay slices\n".
        int i = 0;
        while (i < n && buf.get(ValueLayout.JAVA_BYTE, i) != ' ') {
            i++;
        }
        if (i >= n) {
            return -1;
        }
        long v = 0;
        for (i++; i < n; i++) {
            byte b = buf.get(ValueLayout.JAVA_BYTE, i);
            if (b < '0' || b > '9') {
                break;
            }
            v = v * 10 + (b - '0');
        }
        return v;
    }

    @Override
    public void close() {
        try {
            int rc = (int) CLOSE.invokeExact(fd); // nothing to do about a failed close of a procfs file
        } catch (Throwable ignored) {
            // closing a procfs file
        }
        arena.close();
    }
}
