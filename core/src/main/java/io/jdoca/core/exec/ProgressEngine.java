package io.jdoca.core.exec;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * The progress engine ({@code doca_pe}): the one place where task completions are delivered.
 * {@link #progress()} polls every connected context once and returns whether anything completed.
 *
 * <p><b>Notification mode</b> ({@code doca_pe_get_notification_handle} / {@code request_notification} /
 * {@code clear_notification}, doca-core §3.4.5): {@link #notificationHandle()} is a file descriptor (an
 * {@code epoll} set) that becomes readable when the engine has work: another thread called
 * {@link #notifyWork()}, or an event source of a connected context fired (a verbs completion channel: the
 * device completed something). An application waits on it in its own {@code epoll} with its other fds:
 * {@link #requestNotification()} (arms the contexts, and makes the handle readable at once if work is already
 * pending, and arms a timer for contexts that can only bound the sleep), wait, {@link #clearNotification()} (takes
 * the events that woke it), then {@link #progress()}.
 * {@link #waitForNotification(long)} does the same inside the library: it sleeps in {@code epoll_wait} on the
 * handle. An idle engine in this mode burns no CPU. Contexts fed by another process cannot wake the engine and
 * instead bound the sleep ({@link Pollable#maxSleepNanos()}). A context whose work arrives on Java channels this
 * thread serves itself (the RDMA tcp transport run by the engine) installs a {@link #setSleeper sleeper}: the
 * wait then blocks there (its selector) instead, so a ready socket wakes the engine; with event sources as well,
 * that sleep is bounded to {@link #MIXED_SLEEP_NANOS} and the sources are looked at after it.
 *
 * <p><b>Threads.</b> One owner thread calls everything except {@link #notifyWork()}, which any
 * thread may call.
 */
public final class ProgressEngine implements AutoCloseable {
    private static final VarHandle SIGNALLED;

    static {
        try {
            SIGNALLED = MethodHandles.lookup().findVarHandle(ProgressEngine.class, "signalled", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * A file descriptor a context's work arrives on (a verbs completion channel): the engine's handle watches it,
     * and {@link #onReady()} runs on the engine thread when it is readable, to take what woke it (so the fd does
     * not stay readable) without blocking. Allocation-free.
     */
    public interface EventSource {
        int fd();

        void onReady();
    }

    /** How long a sleep in an installed sleeper may last when event sources are watched too (they are not in it). */
    public static final long MIXED_SLEEP_NANOS = 1_000_000L;

    private Pollable[] pollables = new Pollable[0];
    /** The notification handle, opened on first need; null where epoll is unavailable (then: park). */
    private PeEventHandle handle;
    private boolean handleTried;
    private Ctx[] ctxs = new Ctx[0];
    @SuppressWarnings("unused")
    private volatile int signalled;
    private volatile Thread waiter;
    /** Where {@link #waitForNotification} sleeps instead of parking (a transport's selector), or null. */
    private volatile IdleStrategy.Sleeper sleeper;
    private volatile boolean armed;
    /** {@link #requestNotification()} ran the pollables' {@code beforeWait}: the wait need not run it again. */
    private boolean prepared;
    /** The last wait took the handle's events itself: {@link #clearNotification()} has nothing to take. */
    private boolean drained;
    private boolean closed;
    private long hits;
    private long misses;

    private ProgressEngine() {
    }

    /** {@code doca_pe_create}. */
    public static ProgressEngine create() {
        return new ProgressEngine();
    }

    /** {@code doca_pe_connect_ctx}: the context must be IDLE and not connected elsewhere. */
    public DocaError connectCtx(Ctx ctx) {
        if (closed) {
            return DocaError.BAD_STATE;
        }
        DocaError e = ctx.attach(this);
        if (e != DocaError.SUCCESS) {
            return e;
        }
        ctxs = append(ctxs, ctx);
        pollables = append(pollables, ctx);
        return DocaError.SUCCESS;
    }

    /**
     * Control path, owner thread: makes {@link #waitForNotification} sleep in {@code s} (a transport
     * driven by this engine sleeps in its selector, so a readable socket wakes the engine) instead of
     * parking; {@link #notifyWork()} then also wakes {@code s}. One sleeper per engine: returns
     * {@link DocaError#IN_USE} if another is installed. {@code null} removes it.
     */
    public DocaError setSleeper(IdleStrategy.Sleeper s) {
        if (s != null && sleeper != null && sleeper != s) {
            return DocaError.IN_USE;
        }
        sleeper = s;
        return DocaError.SUCCESS;
    }

    /** The installed sleeper ({@link #setSleeper}), or null. Owner thread. */
    public IdleStrategy.Sleeper sleeper() {
        return sleeper;
    }

    /** Adds a non-context pollable (a graph's runner). Control path. */
    public void addPollable(Pollable p) {
        pollables = append(pollables, p);
    }

    /** True once the notification handle is open (tests). Owner thread. */
    boolean handleOpen() {
        return handle != null;
    }

    private PeEventHandle handle() {
        if (handle == null && !handleTried && !closed) {
            handleTried = true;
            handle = PeEventHandle.open();
        }
        return handle;
    }

    /**
     * {@code doca_pe_get_notification_handle}: the engine's event handle, a file descriptor (an {@code epoll} set)
     * to wait on for input next to others; -1 where the platform has no epoll. Owner thread; stays valid until
     * {@link #close()}.
     */
    public int notificationHandle() {
        boolean opened = handle == null;
        PeEventHandle h = handle();
        if (h != null && opened && armed) {
            armHandle(h); // asked for after requestNotification: armed as that call would have
        }
        return h == null ? -1 : h.fd();
    }

    /**
     * Control path, owner thread: the handle watches {@code s}'s fd from now on (a context calls this when it starts
     * and {@link #removeEventSource} before it closes the fd). NOT_SUPPORTED where there is no epoll: the context
     * must then bound the engine's sleep ({@link Pollable#maxSleepNanos()}).
     */
    public DocaError addEventSource(EventSource s) {
        PeEventHandle h = handle();
        if (h == null) {
            return DocaError.NOT_SUPPORTED;
        }
        return h.add(s) ? DocaError.SUCCESS : DocaError.OPERATING_SYSTEM;
    }

    /** Control path, owner thread: stops watching {@code s} (before its fd is closed). */
    public void removeEventSource(EventSource s) {
        if (handle != null) {
            handle.remove(s);
        }
    }

    private static <T> T[] append(T[] a, T x) {
        T[] b = Arrays.copyOf(a, a.length + 1);
        b[a.length] = x;
        return b;
    }

    /**
     * {@code doca_pe_progress}: polls each connected context once, delivering completions through
     * their callbacks. Returns true if at least one completion was delivered. Allocation-free.
     */
    public boolean progress() {
        return progressCount() > 0;
    }

    /**
     * {@link #progress()} returning how much work the connected contexts did (the sum of their
     * {@link Pollable#doWork()} results: completions, commands, hand-overs), e.g. for an agent's
     * duty cycle. Allocation-free.
     */
    public int progressCount() {
        int n = 0;
        Pollable[] ps = pollables;
        for (int i = 0; i < ps.length; i++) {
            n += ps[i].doWork();
        }
        if (n > 0) {
            hits++;
        } else {
            misses++;
        }
        return n;
    }

    /** Calls on which {@link #progress()} delivered something (the apps' "PE hit rate" numerator). */
    public long hits() {
        return hits;
    }

    public long misses() {
        return misses;
    }

    /**
     * {@code doca_pe_request_notification}: arms the engine, so the next {@link #notifyWork()} or event source makes
     * the {@link #notificationHandle()} readable; the contexts arm their sources ({@link Pollable#beforeWait()}).
     * If work is already pending the handle is made readable at once, so a caller that now waits does not sleep
     * over it. Owner thread.
     */
    public DocaError requestNotification() {
        armed = true;
        prepared = true;
        drained = false;
        Pollable[] ps = pollables;
        for (int i = 0; i < ps.length; i++) {
            ps[i].beforeWait();
        }
        // Only a handle that exists is armed: it is opened when the application asks for it or a context adds an
        // event source. Without one the engine's own wait parks (one futex call), not four system calls on an
        // epoll set, a timer and an eventfd nobody else watches.
        PeEventHandle h = handle;
        if (h != null) {
            armHandle(h);
        }
        return DocaError.SUCCESS;
    }

    /** Makes {@code h} readable now if work is pending, else arms its timer for the contexts' bound. Owner thread. */
    private void armHandle(PeEventHandle h) {
        if ((int) SIGNALLED.getAcquire(this) != 0 || anyPending()) {
            h.signal();
            return;
        }
        long bound = Long.MAX_VALUE;
        Pollable[] ps = pollables;
        for (int i = 0; i < ps.length; i++) {
            bound = Math.min(bound, ps[i].maxSleepNanos());
        }
        if (bound != Long.MAX_VALUE) {
            h.armTimer(bound); // a context fed by another process: the handle fires when it must look again
        }
    }

    /**
     * Blocks until a connected context has work, {@link #notifyWork()} is called, or
     * {@code timeoutNanos} passes; returns true if woken by work. Returns at once if work is already
     * pending. Sleeps at most the smallest {@link Pollable#maxSleepNanos()} of the connected
     * pollables. Allocation-free.
     */
    public boolean waitForNotification(long timeoutNanos) {
        boolean wasPrepared = prepared;
        prepared = false;
        if ((int) SIGNALLED.getAndSet(this, 0) != 0 || anyPending()) {
            return true;
        }
        long sleep = timeoutNanos;
        Pollable[] ps = pollables;
        for (int i = 0; i < ps.length; i++) {
            sleep = Math.min(sleep, ps[i].maxSleepNanos());
        }
        if (sleep <= 0) {
            return false;
        }
        if (!wasPrepared) {
            for (int i = 0; i < ps.length; i++) {
                ps[i].beforeWait();
            }
        }
        PeEventHandle h = handle;
        waiter = Thread.currentThread();
        // Re-check after publishing the waiter: a notifier that ran before it saw no waiter.
        if ((int) SIGNALLED.getAndSet(this, 0) == 0) {
            IdleStrategy.Sleeper s = sleeper;
            if (s != null && h != null && h.hasSources()) {
                s.sleep(Math.min(sleep, MIXED_SLEEP_NANOS));
                h.clear();
            } else if (s != null) {
                s.sleep(sleep);
            } else if (h != null) {
                h.await(sleep == Long.MAX_VALUE ? -1 : sleep);
                drained = true;
            } else {
                LockSupport.parkNanos(this, sleep);
            }
        } else {
            waiter = null;
            return true;
        }
        waiter = null;
        return (int) SIGNALLED.getAndSet(this, 0) != 0 || anyPending();
    }

    /**
     * {@code doca_pe_clear_notification}: disarms until the next {@link #requestNotification()}, and takes what made
     * the handle readable (the eventfd's count, the sources' events), so it is not readable again for the same
     * reason. Call {@link #progress()} next. Owner thread; allocation-free.
     */
    public void clearNotification() {
        armed = false;
        prepared = false;
        // the notification is received: a notifier after this point signals again (at worst one spurious wake)
        SIGNALLED.setRelease(this, 0);
        PeEventHandle h = handle;
        if (h != null) {
            if (drained) {
                h.disarmTimer(); // the wait took the events already
            } else {
                h.clear();
            }
        }
        drained = false;
    }

    public boolean isNotificationArmed() {
        return armed;
    }

    /** Wakes a thread blocked in {@link #waitForNotification(long)}. Any thread; allocation-free. */
    public void notifyWork() {
        SIGNALLED.setRelease(this, 1);
        Thread w = waiter;
        PeEventHandle h = handle;
        if (h != null && (w != null || armed)) {
            h.signal(); // the engine, or an application, waits on the handle
        }
        if (w != null) {
            IdleStrategy.Sleeper s = sleeper;
            if (s != null) {
                s.wake();
            }
            LockSupport.unpark(w);
        }
    }

    private boolean anyPending() {
        Pollable[] ps = pollables;
        for (int i = 0; i < ps.length; i++) {
            if (ps[i].hasPendingWork()) {
                return true;
            }
        }
        return false;
    }

    /** Sum of in-flight tasks over the connected contexts. */
    public int numInflightTasks() {
        int n = 0;
        for (Ctx c : ctxs) {
            n += c.numInflightTasks();
        }
        return n;
    }

    /**
     * Control-path helper: progresses until {@code done} holds or {@code timeoutNanos} passes, backing
     * off with the given idle strategy. Returns true if {@code done} became true.
     */
    public boolean progressUntil(java.util.function.BooleanSupplier done, IdleStrategy idle, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        idle.reset();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            idle.idle(progress() ? 1 : 0);
        }
        return true;
    }

    /** {@code doca_pe_destroy}: every connected context must be IDLE (IN_USE otherwise). */
    @Override
    public void close() {
        for (Ctx c : ctxs) {
            if (c.state() != CtxState.IDLE) {
                throw new DocaException(DocaError.IN_USE, "progress engine still has a non-idle context: " + c);
            }
        }
        closed = true;
        if (handle != null) {
            handle.close();
        }
    }
}
