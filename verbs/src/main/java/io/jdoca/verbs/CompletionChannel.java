package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * A completion channel ({@code struct ibv_comp_channel}): the file descriptor an engine sleeps on. A CQ
 * created on it raises one event here after each {@link CompletionQueue#arm()}, when its next completion
 * arrives. The fd is made non-blocking at creation, so the owner may wait for it anywhere ({@code poll},
 * its own {@code epoll}, a progress engine's event handle) and then {@link #drain()} the events without
 * blocking; {@link #await} is the single-threaded program's poll-then-drain. Every event is acknowledged
 * at once ({@code ibv_ack_cq_events}), so a CQ can always be destroyed.
 *
 * <p>The usual engine step, as rdma-core's {@code ibv_get_cq_event(3)} describes it: poll the CQ empty, arm
 * it, poll it once more (a completion that raced the arm raised no event), and only then sleep on
 * {@link #fd()}; after the wake-up, {@link #drain()} and poll again.
 *
 * <p>Thread rules: {@link #drain()} and {@link #await} on one thread (the engine's) and allocation-free;
 * {@link #fd()} from any thread; creation and {@link #close()} on the control path.
 */
public final class CompletionChannel implements AutoCloseable {
    private final VerbsContext context;
    private final MemorySegment handle;
    private final int fd;
    private final MemorySegment cqCell;
    private final MemorySegment ctxCell;
    private final PollSet pollSet = new PollSet(1);
    /** The CQs created on this channel, by address, to acknowledge their events without allocating. */
    private volatile CompletionQueue[] cqs = new CompletionQueue[0];
    private boolean closed;

    CompletionChannel(VerbsContext context, MemorySegment handle) {
        this.context = context;
        this.handle = handle;
        this.fd = Verbs.compChannelFd(handle);
        try {
            Libc.setNonBlocking(fd);
        } catch (VerbsException e) {
            Verbs.destroyCompChannel(handle);
            throw e;
        }
        Arena a = Arena.ofAuto();
        this.cqCell = a.allocate(ADDRESS);
        this.ctxCell = a.allocate(ADDRESS);
        pollSet.set(0, fd);
    }

    public VerbsContext context() {
        return context;
    }

    /** The {@code struct ibv_comp_channel *}. */
    public MemorySegment handle() {
        return handle;
    }

    /** The fd: readable while an armed CQ's event waits here. Non-blocking. */
    public int fd() {
        return fd;
    }

    synchronized void add(CompletionQueue cq) {
        CompletionQueue[] a = Arrays.copyOf(cqs, cqs.length + 1);
        a[a.length - 1] = cq;
        cqs = a;
    }

    synchronized void remove(CompletionQueue cq) {
        CompletionQueue[] a = cqs;
        for (int i = 0; i < a.length; i++) {
            if (a[i] == cq) {
                CompletionQueue[] b = new CompletionQueue[a.length - 1];
                System.arraycopy(a, 0, b, 0, i);
                System.arraycopy(a, i + 1, b, i, a.length - i - 1);
                cqs = b;
                return;
            }
        }
    }

    /**
     * Takes and acknowledges every event waiting ({@code ibv_get_cq_event} until EAGAIN); returns how many.
     * Never blocks; allocation-free.
     */
    public int drain() {
        int n = 0;
        while (!closed && Verbs.getCqEvent(handle, cqCell, ctxCell) == 0) {
            ack(cqCell.get(JAVA_LONG, 0));
            n++;
        }
        return n;
    }

    private void ack(long cqAddress) {
        CompletionQueue[] a = cqs;
        for (int i = 0; i < a.length; i++) {
            if (a[i].handle().address() == cqAddress) {
                Verbs.ackCqEvents(a[i].handle(), 1);
                return;
            }
        }
        Verbs.ackCqEvents(cqCell.get(ADDRESS, 0), 1); // a CQ made elsewhere on this channel: rare, may allocate
    }

    /**
     * Waits up to {@code timeoutMs} (-1: no bound) for an event, then {@link #drain()}s; returns the events
     * taken (0 on timeout or EINTR). Allocation-free.
     */
    public int await(int timeoutMs) {
        if (pollSet.poll(timeoutMs) <= 0) {
            return 0;
        }
        return drain();
    }

    /** {@code ibv_destroy_comp_channel}: after every CQ on it is destroyed. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            Verbs.destroyCompChannel(handle);
        }
    }
}
