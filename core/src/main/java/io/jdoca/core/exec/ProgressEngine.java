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
 * <p><b>Notification mode</b> ({@code doca_pe_request_notification} / {@code wait} /
 * {@code clear_notification}): instead of spinning, a thread with nothing to do calls
 * {@link #requestNotification()} then {@link #waitForNotification(long)}, which parks until a
 * connected context has work (another thread called {@link #notifyWork()}) or the timeout expires.
 * An idle engine in this mode burns no CPU. Contexts fed by another process cannot wake the engine
 * and instead bound the sleep ({@link Pollable#maxSleepNanos()}). A context whose work arrives on
 * file descriptors this thread serves itself (the RDMA tcp transport run by the engine) installs a
 * {@link #setSleeper sleeper}: the wait then blocks there (its selector) instead of parking, so a
 * ready socket wakes the engine.
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

    private Pollable[] pollables = new Pollable[0];
    private Ctx[] ctxs = new Ctx[0];
    @SuppressWarnings("unused")
    private volatile int signalled;
    private volatile Thread waiter;
    /** Where {@link #waitForNotification} sleeps instead of parking (a transport's selector), or null. */
    private volatile IdleStrategy.Sleeper sleeper;
    private boolean armed;
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

    /** Arms notification ({@code doca_pe_request_notification}); the next {@link #notifyWork()} wakes the waiter. */
    public DocaError requestNotification() {
        armed = true;
        return DocaError.SUCCESS;
    }

    /**
     * Blocks until a connected context has work, {@link #notifyWork()} is called, or
     * {@code timeoutNanos} passes; returns true if woken by work. Returns at once if work is already
     * pending. Sleeps at most the smallest {@link Pollable#maxSleepNanos()} of the connected
     * pollables. Allocation-free.
     */
    public boolean waitForNotification(long timeoutNanos) {
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
        for (int i = 0; i < ps.length; i++) {
            ps[i].beforeWait();
        }
        waiter = Thread.currentThread();
        // Re-check after publishing the waiter: a notifier that ran before it saw no waiter.
        if ((int) SIGNALLED.getAndSet(this, 0) == 0) {
            IdleStrategy.Sleeper s = sleeper;
            if (s != null) {
                s.sleep(sleep);
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

    /** {@code doca_pe_clear_notification}: disarms until the next {@link #requestNotification()}. */
    public void clearNotification() {
        armed = false;
    }

    public boolean isNotificationArmed() {
        return armed;
    }

    /** Wakes a thread blocked in {@link #waitForNotification(long)}. Any thread; allocation-free. */
    public void notifyWork() {
        SIGNALLED.setRelease(this, 1);
        Thread w = waiter;
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
    }
}
