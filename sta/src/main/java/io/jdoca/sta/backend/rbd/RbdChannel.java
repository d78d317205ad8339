package io.jdoca.sta.backend.rbd;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.util.Epoll;
import io.jdoca.sta.backend.StaBackendChannel;
import io.jdoca.sta.nvme.NvmeStatus;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * One IO engine's asynchronous path to an {@link RbdBackend}: its own {@code rbd_image_t} whose
 * completions librbd queues and signals by writing a byte to the channel's notification socket
 * ({@code rbd_set_image_notification}, {@code EVENT_TYPE_PIPE}) instead of calling back on a librbd
 * thread. {@link #poll} reaps them with {@code rbd_poll_io_events} on the engine's thread. The
 * socket's other end is a Java {@link SocketChannel} ({@link #selectable()}), so the engine sleeps in
 * one selector on its NVMe/TCP sockets and on its RBD completions together: a completion or a command
 * wakes it at once, with no timer and no thread hop. (An eventfd cannot join a Java selector; sleeping
 * on it instead meant waking every 50 us to look at the sockets, which cost more CPU than the I/O
 * itself at RBD latencies.) No Java allocation per operation (librbd allocates its completion
 * natively).
 *
 * <p>Write Zeroes and Deallocate are asynchronous too ({@link #submitRange}):
 * {@code rbd_aio_write_zeroes}, and for a Deallocate of whole objects {@code rbd_aio_discard}.
 *
 * <p>Not thread-safe: the owning IO engine's thread (close: the thread stopping the engine).
 */
public final class RbdChannel extends StaBackendChannel {
    private static final long CLOSE_WAIT_NANOS = 10_000_000_000L;
    /** Completions reaped between two reads of the event socket at most, whatever the engine's sleeps. */
    static final int DRAIN_EVERY = 256;
    private static final int COMP_OUT = 8;
    private static final int COMPS = 64;
    private static final FileAttribute<Set<PosixFilePermission>> PRIVATE_DIR =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

    private final RbdBackend backend;
    private final long image;
    private final int depth;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment mem;
    private final long comps;
    /** The end librbd writes a byte to per completion (EVENT_TYPE_PIPE); non-blocking. */
    private final int notifyFd;
    /** The end the engine's selector watches and {@link #poll} drains. */
    private final SocketChannel notify;
    /** This channel's own selector over {@link #notify}, for {@link #await} (close; engines that cannot select). */
    private final Selector waitSelector;
    private final ByteBuffer drainBuffer = ByteBuffer.allocateDirect(512);
    private final Consumer<SelectionKey> ignoreKey = k -> { };
    /** Operations librbd refused at submission: delivered with their status by the next poll. */
    private final int[] failedTag;
    private final int[] failedStatus;
    private int failed;
    private int outstanding;
    /** Write Zeroes and Deallocate operations submitted over the channel's life. */
    private long rangeOps;
    /** The last poll filled the whole array: more may be queued although the eventfd was read. */
    private boolean more;
    /**
     * The socket was reported readable ({@link #signalled}, or this channel's own {@link #await}): the next poll
     * drains it. Starts true so that the first poll does.
     */
    private boolean signalled = true;
    /** Completions reaped since the socket was last drained (each left a byte in it): bounded by DRAIN_EVERY. */
    private int sinceDrain;
    private boolean closed;

    RbdChannel(RbdBackend backend, long image, int depth) {
        if (depth <= 0) {
            int ignored = Librbd.rbdClose(image);
            throw new IllegalArgumentException("RBD channel depth must be positive: " + depth);
        }
        this.backend = backend;
        this.image = image;
        this.depth = depth;
        this.failedTag = new int[depth];
        this.failedStatus = new int[depth];
        int fd = -1;
        SocketChannel ch = null;
        Selector sel = null;
        try {
            this.mem = arena.allocate(COMPS + 8L * depth, 64);
            this.comps = mem.address() + COMPS;
            Path dir = Files.createTempDirectory("jdoca-rbd-", PRIVATE_DIR);
            Path path = dir.resolve("n");
            try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
                server.bind(UnixDomainSocketAddress.of(path), 1);
                fd = Epoll.connectUnix(path);
                ch = server.accept(); // the native end's connection is already queued
            } finally {
                Files.deleteIfExists(path);
                Files.deleteIfExists(dir);
            }
            ch.configureBlocking(false);
            sel = Selector.open();
            ch.register(sel, SelectionKey.OP_READ);
            int rc = Librbd.rbdSetImageNotification(image, fd, Librbd.EVENT_TYPE_PIPE);
            if (rc < 0) {
                throw RadosCluster.error(rc, "rbd_set_image_notification on " + backend.pool() + "/"
                        + backend.image());
            }
        } catch (IOException | RuntimeException e) {
            closeQuietly(sel);
            closeQuietly(ch);
            Epoll.close(fd);
            int ignored = Librbd.rbdClose(image);
            arena.close();
            if (e instanceof RuntimeException re) {
                throw re;
            }
            throw new DocaException(DocaError.OPERATING_SYSTEM, "cannot create the completion socket of an RBD "
                    + "channel: " + e.getMessage());
        }
        this.notifyFd = fd;
        this.notify = ch;
        this.waitSelector = sel;
    }

    private static void closeQuietly(java.io.Closeable c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException e) {
                // closing on the failure path: the first error is the one reported
            }
        }
    }

    /**
     * {@code rbd_get_size} on this channel's image handle, which makes librbd refresh the handle if a
     * header update (a resize through another handle) was notified to it: the asynchronous calls
     * clip requests to the size the handle knows and do not refresh first. The size or
     * {@code -errno}. Called by {@link RbdBackend#grow} on its thread (librbd handles are
     * thread-safe), under the back-end's lock, which {@link #close} takes before closing the handle.
     */
    long refreshSize() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ValueLayout.JAVA_LONG);
            int rc = Librbd.rbdGetSize(image, p.address());
            return rc < 0 ? rc : p.get(ValueLayout.JAVA_LONG, 0);
        }
    }

    /** The back-end this channel belongs to. */
    public RbdBackend backend() {
        return backend;
    }

    /**
     * Starts the operation; false only when {@code depth} operations are in flight (the engine
     * then waits for a slot). An operation librbd refuses completes with its error at the next
     * {@link #poll}.
     */
    @Override
    public boolean submit(int op, long offset, MemorySegment buf, int len, int tag) {
        if (outstanding >= depth || closed) {
            return false;
        }
        // The completion's argument: the tag, and for reads the expected byte count (short read = error).
        long comp = completion((tag & 0xffffffffL) | (op == OP_READ ? (long) len << 32 : 0L), tag);
        if (comp == 0) {
            return true;
        }
        int rc = switch (op) {
            case OP_READ -> Librbd.rbdAioRead(image, offset, len, buf.address(), comp);
            case OP_WRITE -> Librbd.rbdAioWrite(image, offset, len, buf.address(), comp);
            case OP_FLUSH -> Librbd.rbdAioFlush(image, comp);
            default -> -Librbd.EINVAL;
        };
        started(rc, comp, tag);
        return true;
    }

    /** Write Zeroes and Deallocate are asynchronous here. */
    @Override
    public boolean supportsRanges() {
        return true;
    }

    /**
     * {@link #OP_WRITE_ZEROES}: {@code rbd_aio_write_zeroes} (librbd discards the whole objects in
     * the range and zeroes the rest). {@link #OP_DEALLOCATE}: {@code rbd_aio_discard} when the range
     * covers whole objects (they are removed, so reads return zeroes as DLFEAT promises), else
     * write-zeroes, because a discard skips the parts of a range smaller than
     * {@code rbd_discard_granularity_bytes} and they would read back their old data. Allocation-free;
     * false only when {@code depth} operations are in flight.
     */
    @Override
    public boolean submitRange(int op, long offset, long len, int tag) {
        if (outstanding >= depth || closed) {
            return false;
        }
        rangeOps++;
        long comp = completion(tag & 0xffffffffL, tag);
        if (comp == 0) {
            return true;
        }
        long obj = backend.objectSize();
        boolean whole = obj > 0 && offset % obj == 0 && len % obj == 0;
        int rc = switch (op) {
            case OP_WRITE_ZEROES -> Librbd.rbdAioWriteZeroes(image, offset, len, comp);
            case OP_DEALLOCATE -> whole ? Librbd.rbdAioDiscard(image, offset, len, comp)
                    : Librbd.rbdAioWriteZeroes(image, offset, len, comp);
            default -> -Librbd.EINVAL;
        };
        started(rc, comp, tag);
        return true;
    }

    /** Write Zeroes and Deallocate operations submitted so far (statistics, tests). Owning thread. */
    public long rangeOps() {
        return rangeOps;
    }

    /** A librbd completion whose argument is {@code arg}; 0 (and {@code tag} failed) when librbd gave none. */
    private long completion(long arg, int tag) {
        long out = mem.address() + COMP_OUT;
        if (Librbd.rbdAioCreateCompletion(arg, out) < 0) {
            fail(tag, NvmeStatus.INTERNAL_ERROR);
            return 0;
        }
        return mem.get(ValueLayout.JAVA_LONG, COMP_OUT);
    }

    /** Accounts an operation librbd accepted ({@code rc} >= 0) or fails it with {@code rc}'s status. */
    private void started(int rc, long comp, int tag) {
        if (rc < 0) {
            Librbd.rbdAioRelease(comp);
            fail(tag, RbdBackend.status(rc, 0));
            return;
        }
        outstanding++;
    }

    private void fail(int tag, int status) {
        failedTag[failed] = tag;
        failedStatus[failed] = status;
        failed++;
        outstanding++;
    }

    @Override
    public int poll(Sink sink) {
        int done = 0;
        if (failed > 0) {
            int n = failed;
            failed = 0;
            for (int i = 0; i < n; i++) {
                outstanding--;
                sink.onComplete(failedTag[i], failedStatus[i]);
            }
            done += n;
        }
        // The socket is read only when it was reported readable (or has collected many bytes): between signals
        // rbd_poll_io_events alone finds the completions, without a syscall. Its bytes left unread only make the
        // next select return at once, and that drains them. Drain before the queue: a completion queued after this
        // read writes another byte, so none can be missed.
        if (signalled || sinceDrain >= DRAIN_EVERY) {
            signalled = false;
            sinceDrain = 0;
            drainNotify();
        } else if (outstanding == 0) {
            return done;
        }
        int n = Librbd.rbdPollIoEvents(image, comps, depth);
        more = n == depth;
        sinceDrain += Math.max(n, 0);
        for (int i = 0; i < n; i++) {
            long comp = mem.get(ValueLayout.JAVA_LONG, COMPS + 8L * i);
            long arg = Librbd.rbdAioGetArg(comp);
            long rv = Librbd.rbdAioGetReturnValue(comp);
            Librbd.rbdAioRelease(comp);
            outstanding--;
            sink.onComplete((int) arg, RbdBackend.status(rv, arg >>> 32));
        }
        return done + Math.max(n, 0);
    }

    /** Reads every byte librbd wrote (a failure is left to the next poll, which looks at the queue anyway). */
    private void drainNotify() {
        try {
            int n;
            while ((n = notify.read(drainBuffer.clear())) > 0) {
                if (n < drainBuffer.capacity()) {
                    break;
                }
            }
        } catch (IOException e) {
            // rbd_poll_io_events below still finds the completions
        }
    }

    @Override
    public SelectableChannel selectable() {
        return notify;
    }

    @Override
    public void signalled() {
        signalled = true;
    }

    /**
     * Sleeps until librbd signals a completion, for at most {@code timeoutNanos}: in this channel's own selector
     * (millisecond resolution) for a millisecond or more, else parked for the timeout. An engine normally sleeps on
     * {@link #selectable()} in its own selector instead.
     */
    @Override
    public void await(long timeoutNanos) {
        if (failed > 0 || more) {
            return;
        }
        long ms = timeoutNanos / 1_000_000L;
        if (ms == 0) {
            LockSupport.parkNanos(timeoutNanos);
            return;
        }
        try {
            if (waitSelector.select(ignoreKey, ms) > 0) {
                signalled = true;
            }
        } catch (IOException | ClosedSelectorException e) {
            LockSupport.parkNanos(timeoutNanos);
        }
    }

    @Override
    public int outstanding() {
        return outstanding;
    }

    /**
     * Waits (at most 10 s) for the operations in flight, since their buffers belong to the engine,
     * then closes the image handle and the eventfd. Completions reaped here are dropped: the
     * engine has already given up on them.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
        Sink drop = (tag, st) -> { };
        while (outstanding > 0 && System.nanoTime() - deadline < 0) {
            if (poll(drop) == 0) {
                await(10_000_000L);
            }
        }
        // rbd_close waits for librbd's own in-flight requests; their completions are released with the image.
        backend.forget(this); // a grow no longer refreshes the handle
        int rc = Librbd.rbdClose(image);
        if (rc < 0) {
            System.getLogger(RbdChannel.class.getName()).log(System.Logger.Level.WARNING, "{0}: rbd_close: {1}",
                    backend.name(), Librbd.strerror(rc));
        }
        closeQuietly(waitSelector);
        closeQuietly(notify);
        Epoll.close(notifyFd);
        if (outstanding == 0) {
            arena.close();
        }
        backend.release();
    }
}
