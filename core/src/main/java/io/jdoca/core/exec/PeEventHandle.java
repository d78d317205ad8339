package io.jdoca.core.exec;

import io.jdoca.core.util.Epoll;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.util.Arrays;

/**
 * A progress engine's notification handle (DOCA's event handle, {@code doca-core} §3.4.5): an {@code epoll} set
 * holding an {@code eventfd} that {@link ProgressEngine#notifyWork()} writes, plus the event sources of the
 * engine's contexts (a verbs completion channel, ...), plus a {@code timerfd} for contexts that cannot wake the
 * engine and bound its sleep instead (a shared-memory ring fed by another process: {@link #armTimer}). Its fd is
 * readable whenever the engine has, or may have, work; an application can put it in its own {@code epoll} next to
 * other engines' handles and its sockets. The engine's own {@code waitForNotification} sleeps in {@link #await}.
 *
 * <p>Event sources report readiness; {@link #dispatch} calls their {@link ProgressEngine.EventSource#onReady()}
 * (take and acknowledge what woke the fd, e.g. {@code ibv_get_cq_event}), so a level-triggered fd does not stay
 * readable. The fds are closed by {@link #close()}, or by a cleaner once the engine is unreachable.
 *
 * <p>Threads: {@link #signal()} from any thread; everything else on the engine's owner thread (the sources
 * array is replaced, not mutated, by the control path on that thread). Allocation-free except control path.
 */
final class PeEventHandle implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final int MAX_EVENTS = 16;
    /** The eventfd's tag; the timer's; sources are tagged with their index + 1. */
    private static final long TAG_EVENTFD = 0;
    private static final long TAG_TIMER = 1L << 62;

    private final int epfd;
    private final int eventfd;
    private final int timerfd;
    private final MemorySegment spec;
    private boolean timerArmed;
    private final MemorySegment events;
    private final MemorySegment ts;
    private final MemorySegment scratch;
    private final Cleaner.Cleanable cleanable;
    private ProgressEngine.EventSource[] sources = new ProgressEngine.EventSource[0];

    private PeEventHandle(int epfd, int eventfd, int timerfd) {
        this.epfd = epfd;
        this.eventfd = eventfd;
        this.timerfd = timerfd;
        Arena a = Arena.ofAuto();
        this.events = Epoll.events(a, MAX_EVENTS);
        this.ts = a.allocate(Epoll.TIMESPEC);
        this.spec = a.allocate(Epoll.ITIMERSPEC);
        this.scratch = a.allocate(8);
        this.cleanable = CLEANER.register(this, new Fds(epfd, eventfd, timerfd));
    }

    /** The fds, closed once: a record holding no reference to the handle. */
    private record Fds(int epfd, int eventfd, int timerfd) implements Runnable {
        @Override
        public void run() {
            Epoll.close(timerfd);
            Epoll.close(eventfd);
            Epoll.close(epfd);
        }
    }

    /** A new handle, or null where epoll or eventfd is unavailable (the engine then parks). */
    static PeEventHandle open() {
        if (!Epoll.isAvailable()) {
            return null;
        }
        int ep = Epoll.create();
        if (ep < 0) {
            return null;
        }
        int ev = Epoll.eventfd();
        int tm = Epoll.timerfd();
        if (ev < 0 || tm < 0 || Epoll.add(ep, ev, TAG_EVENTFD) != 0 || Epoll.add(ep, tm, TAG_TIMER) != 0) {
            Epoll.close(tm);
            Epoll.close(ev);
            Epoll.close(ep);
            return null;
        }
        return new PeEventHandle(ep, ev, tm);
    }

    /** The epoll fd applications wait on. */
    int fd() {
        return epfd;
    }

    boolean hasSources() {
        return sources.length > 0;
    }

    /** Adds a source's fd to the set. Control path, owner thread. */
    boolean add(ProgressEngine.EventSource s) {
        ProgressEngine.EventSource[] a = Arrays.copyOf(sources, sources.length + 1);
        a[a.length - 1] = s;
        if (Epoll.add(epfd, s.fd(), a.length) != 0) {
            return false;
        }
        sources = a;
        return true;
    }

    /** Removes a source (before its fd is closed). Control path, owner thread. */
    void remove(ProgressEngine.EventSource s) {
        ProgressEngine.EventSource[] a = sources;
        int at = -1;
        for (int i = 0; i < a.length; i++) {
            if (a[i] == s) {
                at = i;
            }
        }
        if (at < 0) {
            return;
        }
        Epoll.remove(epfd, s.fd());
        // re-tag the sources after it: their tags are their indices
        for (int i = at + 1; i < a.length; i++) {
            Epoll.remove(epfd, a[i].fd());
        }
        ProgressEngine.EventSource[] b = new ProgressEngine.EventSource[a.length - 1];
        System.arraycopy(a, 0, b, 0, at);
        System.arraycopy(a, at + 1, b, at, a.length - at - 1);
        for (int i = at; i < b.length; i++) {
            Epoll.add(epfd, b[i].fd(), i + 1);
        }
        sources = b;
    }

    /**
     * Makes the handle readable {@code nanos} from now unless it is cleared first: the bound of a context that
     * cannot wake the engine itself. Owner thread; allocation-free.
     */
    void armTimer(long nanos) {
        Epoll.armTimer(timerfd, Math.max(1, nanos), spec);
        timerArmed = true;
    }

    /** Makes the fd readable (the eventfd's counter goes up). Any thread; allocation-free. */
    void signal() {
        Epoll.signal(eventfd);
    }

    /**
     * Sleeps up to {@code timeoutNanos} until the set is readable, then {@link #dispatch}es what is ready; returns
     * the number of ready fds (0 on timeout or EINTR). Owner thread; allocation-free.
     */
    int await(long timeoutNanos) {
        int n = Epoll.awaitQuiet(epfd, events, MAX_EVENTS, timeoutNanos, ts);
        return n > 0 ? dispatch(n) : 0;
    }

    /** Looks without sleeping and {@link #dispatch}es, and disarms the timer: DOCA's clear-notification. */
    int clear() {
        int n = await(0);
        disarmTimer();
        return n;
    }

    /** Disarms the timer if {@link #armTimer} armed it and it has not fired. */
    void disarmTimer() {
        if (timerArmed) {
            Epoll.armTimer(timerfd, 0, spec);
            timerArmed = false;
        }
    }

    /** Resets the eventfd and lets each ready source take its events. */
    private int dispatch(int n) {
        ProgressEngine.EventSource[] a = sources;
        for (int i = 0; i < n; i++) {
            long tag = Epoll.data(events, i);
            if (tag == TAG_EVENTFD) {
                Epoll.drain(eventfd, scratch);
            } else if (tag == TAG_TIMER) {
                Epoll.drain(timerfd, scratch);
                timerArmed = false;
            } else if (tag > 0 && tag <= a.length) {
                a[(int) tag - 1].onReady();
            }
        }
        return n;
    }

    @Override
    public void close() {
        cleanable.clean();
    }
}
