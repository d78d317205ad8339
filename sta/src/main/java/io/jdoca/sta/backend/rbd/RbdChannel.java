package io.jdoca.sta.backend.rbd;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.util.Epoll;
import io.jdoca.sta.backend.StaBackendChannel;
import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One IO engine's asynchronous path to an {@link RbdBackend}: its own {@code rbd_image_t} whose
 * completions librbd queues and signals on the channel's eventfd
 * ({@code rbd_set_image_notification}) instead of calling back on a librbd thread. {@link #poll}
 * reaps them with {@code rbd_poll_io_events} on the engine's thread, and {@link #await} sleeps on
 * the eventfd, so a completion wakes an idle engine with no thread hop and no Java allocation per
 * operation (librbd allocates its completion natively).
 *
 * <p>The engine's channel interface has read, write and flush only: Write Zeroes and Dataset
 * Management stay on the back-end's synchronous calls.
 *
 * <p>Not thread-safe: the owning IO engine's thread (close: the thread stopping the engine).
 */
public final class RbdChannel extends StaBackendChannel {
    private static final long CLOSE_WAIT_NANOS = 10_000_000_000L;
    private static final int EV_COUNT = 0;
    private static final int COMP_OUT = 8;
    private static final int TIMESPEC = 16;
    private static final int EVENTS = 32;
    private static final int COMPS = 64;

    private final RbdBackend backend;
    private final long image;
    private final int depth;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment mem;
    private final long comps;
    // Slices made once: a slice per poll or wait would allocate when escape analysis fails.
    private final MemorySegment evCount;
    private final MemorySegment events;
    private final MemorySegment timespec;
    private final int efd;
    private final int epfd;
    /** Operations librbd refused at submission: delivered with their status by the next poll. */
    private final int[] failedTag;
    private final int[] failedStatus;
    private int failed;
    private int outstanding;
    /** The last poll filled the whole array: more may be queued although the eventfd was read. */
    private boolean more;
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
        int ev = -1;
        int ep = -1;
        try {
            this.mem = arena.allocate(COMPS + 8L * depth, 64);
            this.comps = mem.address() + COMPS;
            this.evCount = mem.asSlice(EV_COUNT, 8);
            this.events = mem.asSlice(EVENTS, Epoll.EPOLL_EVENT.byteSize());
            this.timespec = mem.asSlice(TIMESPEC, Epoll.TIMESPEC.byteSize());
            ev = Epoll.eventfd();
            ep = ev < 0 ? -1 : Epoll.create();
            if (ev < 0 || ep < 0 || Epoll.add(ep, ev, 1) < 0) {
                throw new DocaException(DocaError.OPERATING_SYSTEM, "cannot create the completion eventfd of an "
                        + "RBD channel: " + Librbd.strerror(ev < 0 ? ev : ep < 0 ? ep : Librbd.EIO));
            }
            int rc = Librbd.rbdSetImageNotification(image, ev, Librbd.EVENT_TYPE_EVENTFD);
            if (rc < 0) {
                throw RadosCluster.error(rc, "rbd_set_image_notification on " + backend.pool() + "/"
                        + backend.image());
            }
        } catch (RuntimeException e) {
            Epoll.close(ev);
            Epoll.close(ep);
            int ignored = Librbd.rbdClose(image);
            arena.close();
            throw e;
        }
        this.efd = ev;
        this.epfd = ep;
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
        long arg = (tag & 0xffffffffL) | (op == OP_READ ? (long) len << 32 : 0L);
        long out = mem.address() + COMP_OUT;
        int rc = Librbd.rbdAioCreateCompletion(arg, out);
        if (rc < 0) {
            fail(tag, NvmeStatus.INTERNAL_ERROR);
            return true;
        }
        long comp = mem.get(ValueLayout.JAVA_LONG, COMP_OUT);
        rc = switch (op) {
            case OP_READ -> Librbd.rbdAioRead(image, offset, len, buf.address(), comp);
            case OP_WRITE -> Librbd.rbdAioWrite(image, offset, len, buf.address(), comp);
            case OP_FLUSH -> Librbd.rbdAioFlush(image, comp);
            default -> -Librbd.EINVAL;
        };
        if (rc < 0) {
            Librbd.rbdAioRelease(comp);
            fail(tag, RbdBackend.status(rc, 0));
            return true;
        }
        outstanding++;
        return true;
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
        // Read the eventfd before the queue: an event queued after this read signals it again.
        if (!Epoll.drain(efd, evCount) && !more) {
            return done;
        }
        int n = Librbd.rbdPollIoEvents(image, comps, depth);
        more = n == depth;
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

    /** Sleeps on the completion eventfd (woken by librbd's signal) for at most {@code timeoutNanos}. */
    @Override
    public void await(long timeoutNanos) {
        if (failed > 0 || more) {
            return;
        }
        int ignored = Epoll.awaitQuiet(epfd, events, 1, timeoutNanos, timespec);
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
        int rc = Librbd.rbdClose(image);
        if (rc < 0) {
            System.getLogger(RbdChannel.class.getName()).log(System.Logger.Level.WARNING, "{0}: rbd_close: {1}",
                    backend.name(), Librbd.strerror(rc));
        }
        Epoll.close(efd);
        Epoll.close(epfd);
        if (outstanding == 0) {
            arena.close();
        }
        backend.release();
    }
}
