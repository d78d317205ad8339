package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The libc call an RDMA engine needs beside rdma-core: {@code poll(2)} over the CM event channel and
 * completion channel fds ({@link VerbsLayouts#POLLFD}), so one thread sleeps until either has work.
 * Thread rules: stateless.
 */
@SuppressWarnings("restricted") // FFM: this class is a native binding; its downcall handles and reinterpreted segments are the point
public final class Libc {
    private Libc() {
    }

    private static final MethodHandle POLL = NativeLib.LINKER.defaultLookup().find("poll")
            .map(s -> NativeLib.LINKER.downcallHandle(s, FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT)))
            .orElse(null);

    /** {@code poll(fds, n, timeoutMs)}: the number of ready fds, 0 on timeout, -1 on error (EINTR included). */
    public static int poll(MemorySegment fds, int n, int timeoutMs) {
        if (POLL == null) {
            throw new VerbsException("poll", "libc has no poll");
        }
        try {
            return (int) POLL.invokeExact(fds, (long) n, timeoutMs);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
