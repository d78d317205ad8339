package io.jdoca.core.util;

import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
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
    // <sys/timerfd.h>, <time.h>, <sys/socket.h>
    public static final int TFD_NONBLOCK = 04000;
    public static final int TFD_CLOEXEC = 02000000;
    public static final int CLOCK_MONOTONIC = 1;
    public static final int AF_UNIX = 1;
    public static final int SOCK_STREAM = 1;
    public static final int SOCK_NONBLOCK = 04000;
    public static final int SOCK_CLOEXEC = 02000000;
    /** {@code sizeof(struct sockaddr_un)}: {@code sa_family_t sun_family; char sun_path[108];}. */
    public static final int SOCKADDR_UN_SIZE = 110;
    /** {@code offsetof(struct sockaddr_un, sun_path)}. */
    public static final int SUN_PATH_OFFSET = 2;

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
    /** The {@code data} member as read and written (4-byte aligned on x86-64: the struct is packed). */
    private static final ValueLayout.OfLong DATA = JAVA_LONG.withByteAlignment(4);
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
    private static final MethodHandle TIMERFD_CREATE = fn("timerfd_create", FunctionDescriptor.of(JAVA_INT, JAVA_INT,
            JAVA_INT));
    private static final MethodHandle TIMERFD_SETTIME = fn("timerfd_settime", FunctionDescriptor.of(JAVA_INT,
            JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    // The same calls without errno capture, for the idle path: capturing makes the JDK slice the capture segment on
    // every call (SharedUtils.checkCaptureSegment), 40 bytes whenever escape analysis fails to remove it, which it
    // did in one CI JVM (PeNotificationHandleTest). These report failure only; a caller that needs errno retries the
    // call through the capturing handle, where repeating it is harmless.
    private static final MethodHandle READ_Q = quiet("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG));
    private static final MethodHandle WRITE_Q = quiet("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG));
    private static final MethodHandle WAIT_Q = quiet("epoll_wait", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS,
            JAVA_INT, JAVA_INT));
    private static final MethodHandle PWAIT2_Q = quiet("epoll_pwait2", FunctionDescriptor.of(JAVA_INT, JAVA_INT,
            ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle TIMERFD_SETTIME_Q = quiet("timerfd_settime", FunctionDescriptor.of(JAVA_INT,
            JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle SOCKETPAIR = fn("socketpair", FunctionDescriptor.of(JAVA_INT, JAVA_INT,
            JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle SOCKET = fn("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT,
            JAVA_INT));
    private static final MethodHandle CONNECT = fn("connect", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS,
            JAVA_INT));
    /** {@code struct itimerspec}: interval, then first expiry (two {@link #TIMESPEC}s). */
    public static final StructLayout ITIMERSPEC = structLayout(TIMESPEC.withName("it_interval"),
            TIMESPEC.withName("it_value")).withName("itimerspec");
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

    private static MethodHandle quiet(String name, FunctionDescriptor fd) {
        Linker l = Linker.nativeLinker();
        return l.defaultLookup().find(name).map(a -> l.downcallHandle(a, fd)).orElse(null);
    }

    /** True when epoll, eventfd, timerfd, read, write and close could all be bound. */
    public static boolean isAvailable() {
        return CREATE != null && CTL != null && WAIT != null && EVENTFD != null && READ != null && WRITE != null
                && CLOSE != null && TIMERFD_CREATE != null && TIMERFD_SETTIME != null && READ_Q != null
                && WRITE_Q != null && WAIT_Q != null && TIMERFD_SETTIME_Q != null;
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

    /** {@code timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)}: the fd (disarmed), or {@code -errno}. */
    public static int timerfd() {
        MemorySegment cap = CAP.get();
        try {
            int fd = (int) TIMERFD_CREATE.invokeExact(cap, CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
            return fd >= 0 ? fd : -errno(cap);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Arms a timerfd to become readable once, {@code nanos} from now (0: disarm); {@code spec} is the caller's
     * {@link #ITIMERSPEC}. Returns 0 or {@code -errno}. Allocation-free.
     */
    public static int armTimer(int timerfd, long nanos, MemorySegment spec) {
        spec.fill((byte) 0);
        spec.set(JAVA_LONG, 16, nanos / 1_000_000_000L);
        spec.set(JAVA_LONG, 24, nanos % 1_000_000_000L);
        try {
            if ((int) TIMERFD_SETTIME_Q.invokeExact(timerfd, 0, spec, MemorySegment.NULL) == 0) {
                return 0;
            }
            MemorySegment cap = CAP.get(); // failed: again, capturing errno (setting the same time twice is harmless)
            int rc = (int) TIMERFD_SETTIME.invokeExact(cap, timerfd, 0, spec, MemorySegment.NULL);
            return rc == 0 ? 0 : -errno(cap);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * {@code socketpair(AF_UNIX, SOCK_STREAM)}: two connected sockets (for samples and tests that wait on a socket
     * beside engines' handles). Control path; throws {@link IllegalStateException} on failure.
     */
    public static int[] socketPair() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment fds = a.allocate(JAVA_INT, 2);
            MemorySegment cap = CAP.get();
            int rc = (int) SOCKETPAIR.invokeExact(cap, AF_UNIX, SOCK_STREAM, 0, fds);
            if (rc != 0) {
                throw new IllegalStateException("socketpair failed: errno " + errno(cap));
            }
            return new int[] {fds.get(JAVA_INT, 0), fds.get(JAVA_INT, 4)};
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * A non-blocking, close-on-exec {@code AF_UNIX} stream socket connected to the listening socket at {@code path}
     * (which must already be listening): the native end of a notification socket whose other end a Java
     * {@code ServerSocketChannel} accepts, so that a library writing to the fd wakes a {@code Selector}. Control path;
     * throws {@link IllegalStateException} on failure (the fd is closed then).
     */
    public static int connectUnix(java.nio.file.Path path) {
        byte[] name = path.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (name.length >= SOCKADDR_UN_SIZE - SUN_PATH_OFFSET) {
            throw new IllegalStateException("socket path too long (" + name.length + " bytes): " + path);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = CAP.get();
            int fd = (int) SOCKET.invokeExact(cap, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            if (fd < 0) {
                throw new IllegalStateException("socket(AF_UNIX) failed: errno " + errno(cap));
            }
            MemorySegment addr = a.allocate(SOCKADDR_UN_SIZE, 2); // zeroed: sun_path ends with NUL
            addr.set(JAVA_SHORT, 0, (short) AF_UNIX);
            MemorySegment.copy(name, 0, addr, JAVA_BYTE, SUN_PATH_OFFSET, name.length);
            int rc = (int) CONNECT.invokeExact(cap, fd, addr, SOCKADDR_UN_SIZE);
            if (rc != 0) {
                int err = errno(cap);
                close(fd);
                throw new IllegalStateException("connect(" + path + ") failed: errno " + err);
            }
            return fd;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code write(fd, buf, n)}: bytes written or {@code -errno}. */
    public static long write(int fd, MemorySegment buf, long n) {
        MemorySegment cap = CAP.get();
        try {
            long w = (long) WRITE.invokeExact(cap, fd, buf, n);
            return w >= 0 ? w : -errno(cap);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code read(fd, buf, n)}: bytes read (0 at end of stream) or {@code -errno}. */
    public static long read(int fd, MemorySegment buf, long n) {
        MemorySegment cap = CAP.get();
        try {
            long r = (long) READ.invokeExact(cap, fd, buf, n);
            return r >= 0 ? r : -errno(cap);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code epoll_ctl(ADD)} of {@code fd} for input, tagged {@code data}: 0 or {@code -errno}. Control path. */
    public static int add(int epfd, int fd, long data) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ev = a.allocate(EPOLL_EVENT);
            ev.set(JAVA_INT, 0, EPOLLIN);
            ev.set(DATA, EV_DATA, data);
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
        return events.get(DATA, i * EV_SIZE + EV_DATA);
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
                int ms = timeoutNanos < 0 ? -1 : (int) Math.min(Integer.MAX_VALUE, (timeoutNanos
                        + 999_999) / 1_000_000);
                rc = (int) WAIT.invokeExact(cap, epfd, events, max, ms);
            }
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        return rc >= 0 ? rc : -errno(cap);
    }

    /**
     * {@link #await} without errno: the number of ready events, 0 on timeout, or -1 on any failure ({@code EINTR}
     * included). For an owner's idle wait that treats every failure as "nothing ready". Allocation-free.
     */
    public static int awaitQuiet(int epfd, MemorySegment events, int max, long timeoutNanos, MemorySegment ts) {
        int rc;
        try {
            if (PWAIT2_Q != null && timeoutNanos >= 0) {
                ts.set(JAVA_LONG, 0, timeoutNanos / 1_000_000_000L);
                ts.set(JAVA_LONG, 8, timeoutNanos % 1_000_000_000L);
                rc = (int) PWAIT2_Q.invokeExact(epfd, events, max, ts, MemorySegment.NULL);
            } else {
                int ms = timeoutNanos < 0 ? -1 : (int) Math.min(Integer.MAX_VALUE, (timeoutNanos
                        + 999_999) / 1_000_000);
                rc = (int) WAIT_Q.invokeExact(epfd, events, max, ms);
            }
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        return rc >= 0 ? rc : -1;
    }

    /** Adds 1 to an eventfd's counter (it becomes readable). Any thread; allocation-free. */
    public static void signal(int eventfd) {
        try {
            if ((long) WRITE_Q.invokeExact(eventfd, ONE, 8L) == 8L) {
                return;
            }
            MemorySegment cap = CAP.get(); // failed: again, capturing errno (one more increment is harmless)
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
        try {
            return (long) READ_Q.invokeExact(eventfd, scratch, 8L) == 8L;
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
