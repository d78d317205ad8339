package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The libc calls an RDMA engine needs beside rdma-core: {@code poll(2)} over the CM event channel and
 * completion channel fds ({@link VerbsLayouts#POLLFD}, or {@link PollSet}), so one thread sleeps until either
 * has work, and {@code fcntl(2)} to make a channel's fd non-blocking ({@link #setNonBlocking}), so its events
 * can be drained by an engine that learnt of them from its own {@code epoll}.
 * Thread rules: stateless.
 */
@SuppressWarnings("restricted") // FFM: this class is a native binding; its downcall handles are the point
public final class Libc {
    private Libc() {
    }

    private static final MethodHandle POLL = NativeLib.LINKER.defaultLookup().find("poll")
            .map(s -> NativeLib.LINKER.downcallHandle(s, FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT)))
            .orElse(null);
    // int fcntl(int fd, int cmd, ...): variadic after cmd, the one int argument F_SETFL takes
    private static final MethodHandle FCNTL = NativeLib.LINKER.defaultLookup().find("fcntl")
            .map(s -> NativeLib.LINKER.downcallHandle(s, FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
                    Linker.Option.firstVariadicArg(2), Linker.Option.captureCallState("errno")))
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

    /** Sets {@code O_NONBLOCK} on {@code fd} ({@code fcntl} F_GETFL, F_SETFL). Control path; throws on failure. */
    public static void setNonBlocking(int fd) {
        if (FCNTL == null) {
            throw new VerbsException("fcntl", "libc has no fcntl");
        }
        MemorySegment cap = Verbs.capture();
        int flags = fcntl(cap, fd, VerbsConstants.F_GETFL, 0);
        if (flags < 0 || fcntl(cap, fd, VerbsConstants.F_SETFL, flags | VerbsConstants.O_NONBLOCK) < 0) {
            throw new VerbsException("fcntl(O_NONBLOCK)", NativeLib.errno(cap));
        }
    }

    private static int fcntl(MemorySegment cap, int fd, int cmd, int arg) {
        try {
            return (int) FCNTL.invokeExact(cap, fd, cmd, arg);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
