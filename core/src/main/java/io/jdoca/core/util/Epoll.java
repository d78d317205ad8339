package io.jdoca.core.util;

import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * Linux {@code epoll(7)} and {@code eventfd(2)} through the FFM API: what the progress engine's notification
 * handle is made of (an epoll set holding an eventfd that {@code notifyWork} writes, plus the file descriptors
 * its contexts' work arrives on). The layout of {@code struct epoll_event} is the one place this module knows a
 * libc struct; {@code EpollTest} checks it and the constants against the installed headers.
 *
 * <p>Fails soft: where libc lacks a symbol, {@link #isAvailable()} is false and callers fall back to parking.
 * Data-path calls ({@link #await}, {@link #signal}, {@link #drain}) return a count or {@code -errno} and allocate
 * nothing. Thread rules: stateless; an events buffer or timespec belongs to one thread.
 */
@SuppressWarnings("restricted") // FFM: a native binding
public final class Epoll {
    private Epoll() {
    }

    // <sys/epoll.h>, <sys/eventfd.h>, <fcntl.h>, <errno.h>
    public static final int EPOLLIN = 0x001;
    public static final int EPOLL_CTL_ADD = 1;
    public static final int EPOLL_CTL_DEL = 2;
    public static final int EPOLL_CLOEXEC = 02000000;
    public static final int EFD_NONBLOCK = 04000;
    public static final int EFD_CLOEXEC = 02000000;
    public static final int EAGAIN = 11;
    public static final int EINTR = 4;

    /**
     * {@code struct epoll_event}: {@code uint32_t events; epoll_data_t data;}, packed on x86-64 (12 bytes, the
     * kernel ABI's {@code __EPOLL_PACKED}) and naturally aligned elsewhere (16 bytes).
     */
    public static final StructLayout EPOLL_EVENT = isX86()
            ? structLayout(JAVA_INT.withName("events"), JAVA_LONG.withByteAlignment(4).withName("data"))
                    .withName("epoll_event")
            : structLayout(JAVA_INT.withName("events"), paddingLayout(4), JAVA_LONG.withName("data"))
                    .withName("epoll_event");
    /** {@code struct timespec} (LP64): seconds, nanoseconds. */
    public static final StructLayout TIMESPEC = structLayout(JAVA_LONG.withName("tv_sec"),
            JAVA_LONG.withName("tv_nsec")).withName("timespec");
    private static final long EV_SIZE = EPOLL_EVENT.byteSize();
    private static final long EV_DATA = EPOLL_EVENT.byteOffset(MemoryLayout.PathElement.groupElement("data"));
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final long ERRNO_OFF = CAPTURE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle CREATE = fn("epoll_create1", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle CTL = fn("epoll_ctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT,
            JAVA_INT, ADDRESS));
    private static final MethodHandle WAIT = fn("epoll_wait", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS,
            JAVA_INT, JAVA_INT));
    /** glibc 2.35+ (kernel 5.11+): a timespec timeout, so a sub-millisecond sleep is not rounded to 1 ms. */
    private static final MethodHandle PWAIT2 = fn("epoll_pwait2", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS,
            JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle EVENTFD = fn("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle READ = fn("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG));
    private static final MethodHandle WRITE = fn("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG));
    private static final MethodHandle CLOSE = fn("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    /** The 8 bytes every {@link #signal} writes (a counter increment of 1); read-only, shared. */
    private static final MemorySegment ONE = Arena.global().allocate(JAVA_LONG);
    private static final ThreadLocal<MemorySegment> CAP = ThreadLocal.withInitial(() -> Arena.ofAuto()
            .allocate(CAPTURE));

    static {
        ONE.set(JAVA_LONG, 0, 1L);
    }

    private static boolean isX86() {
        String a = System.getProperty("os.arch", "");
        return a.equals("amd64") || a.equals("x86_64");
    }

    private static MethodHandle fn(String name, FunctionDescriptor fd) {
        Linker l = Linker.nativeLinker();
        SymbolLookup libc = l.defaultLookup();
        return libc.find(name).map(a -> l.downcallHandle(a, fd, ERRNO)).orElse(null);
    }

    /** True when epoll, eventfd, read, write and close could all be bound. */
    public static boolean isAvailable() {
        return CREATE != null && CTL != null && WAIT != null && EVENTFD != null && READ != null && WRITE != null
                && CLOSE != null;
    }

    private static int errno(MemorySegment cap) {
        return cap.get(JAVA_INT, ERRNO_OFF);
    }

    /** {@code epoll_create1(EPOLL_CLOEXEC)}: the fd, or {@code -errno}. */
    public static int create() {
        MemorySegment cap = CAP.get();
        try {
            int fd = (int) CREATE.invokeExact(cap, EPOLL_CLOEXEC);
            return fd >= 0 ? fd : -errno(cap);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)}: the fd, or {@code -errno}. */
    public static int eventfd() {
        MemorySegment cap = CAP.get();
        try {
            int fd = (int) EVENTFD.invokeExact(cap, 0, EFD_NONBLOCK | EFD_CLOEXEC);
            return fd >= 0 ? fd : -errno(cap);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code epoll_ctl(ADD)} of {@code fd} for input, tagged {@code data}: 0 or {@code -errno}. Control path. */
    public static int add(int epfd, int fd, long data) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ev = a.allocate(EPOLL_EVENT);
            ev.set(JAVA_INT, 0, EPOLLIN);
            ev.set(JAVA_LONG.withByteAlignment(4), EV_DATA, data);
            return ctl(epfd, EPOLL_CTL_ADD, fd, ev);
        }
    }

    /** {@code epoll_ctl(DEL)}: 0 or {@code -errno}. Control path. */
    public static int remove(int epfd, int fd) {
        try (Arena a = Arena.ofConfined()) {
            return ctl(epfd, EPOLL_CTL_DEL, fd, a.allocate(EPOLL_EVENT));
        }
    }

    private static int ctl(int epfd, int op, int fd, MemorySegment ev) {
        MemorySegment cap = CAP.get();
        try {
            int rc = (int) CTL.invokeExact(cap, epfd, op, fd, ev);
            return rc == 0 ? 0 : -errno(cap);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** A buffer for {@code n} events (one per waiting thread). */
    public static MemorySegment events(Arena a, int n) {
        return a.allocate(EPOLL_EVENT, n);
    }

    /** The {@code data} tag of event {@code i} of a buffer {@link #await} filled. */
    public static long data(MemorySegment events, int i) {
        return events.get(JAVA_LONG.withByteAlignment(4), i * EV_SIZE + EV_DATA);
    }

    /** The {@code events} bits of event {@code i}. */
    public static int readyEvents(MemorySegment events, int i) {
        return events.get(JAVA_INT, i * EV_SIZE);
    }

    /**
     * Waits up to {@code timeoutNanos} (negative: no bound; 0: just look) for {@code epfd}: the number of ready
     * events put in {@code events} (at most {@code max}), 0 on timeout, or {@code -errno} ({@code -EINTR}
     * included). {@code ts} is the caller's {@link #TIMESPEC}. Sub-millisecond timeouts need {@code epoll_pwait2};
     * without it they are rounded up to 1 ms. Allocation-free.
     */
    public static int await(int epfd, MemorySegment events, int max, long timeoutNanos, MemorySegment ts) {
        MemorySegment cap = CAP.get();
        int rc;
        try {
            if (PWAIT2 != null && timeoutNanos >= 0) {
                ts.set(JAVA_LONG, 0, timeoutNanos / 1_000_000_000L);
                ts.set(JAVA_LONG, 8, timeoutNanos % 1_000_000_000L);
                rc = (int) PWAIT2.invokeExact(cap, epfd, events, max, ts, MemorySegment.NULL);
            } else {
                int ms = timeoutNanos < 0 ? -1 : (int) Math.min(Integer.MAX_VALUE, (timeoutNanos + 999_999) / 1_000_000);
                rc = (int) WAIT.invokeExact(cap, epfd, events, max, ms);
            }
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        return rc >= 0 ? rc : -errno(cap);
    }

    /** Adds 1 to an eventfd's counter (it becomes readable). Any thread; allocation-free. */
    public static void signal(int eventfd) {
        MemorySegment cap = CAP.get();
        try {
            long n = (long) WRITE.invokeExact(cap, eventfd, ONE, 8L);
            if (n < 0 && errno(cap) != EAGAIN) {
                throw new IllegalStateException("write(eventfd) failed: errno " + errno(cap));
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Reads an eventfd's counter back to 0 ({@code scratch}: 8 bytes of the reader's); true if it was set. */
    public static boolean drain(int eventfd, MemorySegment scratch) {
        MemorySegment cap = CAP.get();
        try {
            return (long) READ.invokeExact(cap, eventfd, scratch, 8L) == 8L;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code close(fd)}. Control path. */
    public static void close(int fd) {
        if (fd < 0) {
            return;
        }
        MemorySegment cap = CAP.get();
        try {
            int ignored = (int) CLOSE.invokeExact(cap, fd);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
