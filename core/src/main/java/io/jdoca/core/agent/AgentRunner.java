package io.jdoca.core.agent;

import io.jdoca.core.exec.IdleStrategy;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs one {@link Agent} on one platform thread named after its {@link Agent#roleName()} (after
 * Agrona's {@code AgentRunner}): {@code onStart}, then {@code doWork} with the {@link IdleStrategy}
 * backing off while it returns 0, until {@link #close()} or the agent returns {@link Agent#DONE};
 * then {@code onClose}, all on that thread.
 *
 * <p>An exception from {@code doWork} goes to the {@link ErrorHandler} and the loop goes on (the
 * agent decides whether it can carry on; it returns {@code DONE} if not); one from {@code onStart}
 * is reported and the agent is closed without running. The lifecycle is the {@link State} enum.
 *
 * <p>Threads: {@link #start()} once, from any thread; {@link #close} from any thread, any number of
 * times (the first wins; it wakes a sleeping idle strategy and joins with a deadline).
 */
public final class AgentRunner implements AutoCloseable {
    /** Default deadline for {@link #close()}. */
    public static final long DEFAULT_CLOSE_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** Where the runner's errors go; called on the runner thread. Must not throw. */
    @FunctionalInterface
    public interface ErrorHandler {
        void onError(Agent agent, Throwable error);

        /** Prints one line per error to stderr (the role and the exception). */
        static ErrorHandler stderr() {
            return (agent, error) -> System.err.println(agent.roleName() + ": " + error);
        }
    }

    /**
     * Runner lifecycle: NEW → RUNNING → CLOSING → CLOSED; RUNNING → CLOSED when the agent returns
     * {@link Agent#DONE} or fails to start; NEW → CLOSED when closed before it started.
     */
    public enum State {
        NEW, RUNNING, CLOSING, CLOSED
    }

    private final Agent agent;
    private final IdleStrategy idle;
    private final ErrorHandler errors;
    private final Thread thread;
    private volatile State state = State.NEW;
    private volatile boolean stop;
    private volatile long errorCount;

    /** A runner for {@code agent} on a daemon platform thread named {@code agent.roleName()}; not started yet. */
    public AgentRunner(Agent agent, IdleStrategy idle, ErrorHandler errors) {
        this.agent = Objects.requireNonNull(agent, "agent");
        this.idle = Objects.requireNonNull(idle, "idle");
        this.errors = Objects.requireNonNull(errors, "errors");
        this.thread = Thread.ofPlatform().name(agent.roleName()).daemon(true).unstarted(this::run);
    }

    /** Creates and starts a runner (convenience for {@code new AgentRunner(...).start()}). */
    public static AgentRunner start(Agent agent, IdleStrategy idle, ErrorHandler errors) {
        return new AgentRunner(agent, idle, errors).start();
    }

    /** Starts the thread; throws IllegalStateException unless NEW. */
    public synchronized AgentRunner start() {
        if (state != State.NEW) {
            throw new IllegalStateException(agent.roleName() + ": runner is " + state + ", not NEW");
        }
        state = State.RUNNING;
        thread.start();
        return this;
    }

    private void run() {
        boolean started = false;
        try {
            agent.onStart();
            started = true;
        } catch (RuntimeException | Error e) {
            report(e);
        }
        if (started) {
            dutyCycles();
        }
        try {
            agent.onClose();
        } catch (RuntimeException | Error e) {
            report(e);
        }
        state = State.CLOSED;
    }

    private void dutyCycles() {
        final Agent a = agent;
        final IdleStrategy i = idle;
        while (!stop) {
            int work;
            try {
                work = a.doWork();
            } catch (RuntimeException e) {
                report(e);
                work = 0;
            }
            if (work < 0) {
                return;
            }
            i.idle(work);
        }
    }

    private void report(Throwable e) {
        errorCount++; // single writer: the runner thread
        try {
            errors.onError(agent, e);
        } catch (RuntimeException ignored) {
            // a broken handler must not end the agent
        }
    }

    public Agent agent() {
        return agent;
    }

    /** The runner thread (named after the role). */
    public Thread thread() {
        return thread;
    }

    public State state() {
        return state;
    }

    /** Exceptions reported to the handler so far. */
    public long errorCount() {
        return errorCount;
    }

    /** True once the agent's {@code onClose} has run (or the runner was closed before it started). */
    public boolean isClosed() {
        return state == State.CLOSED;
    }

    /**
     * Ends a back-off sleep of the runner thread early, e.g. because a command was queued for it (a
     * {@link CommandQueue} waker). Any thread; allocation-free.
     */
    public void wake() {
        idle.wake();
        LockSupport.unpark(thread);
    }

    /**
     * Asks the agent to stop and waits up to {@code timeoutNanos} for {@code onClose} to finish;
     * returns true if it did. The loop checks between duty cycles, so a busy agent stops after its
     * current {@code doWork}; a sleeping one is woken.
     */
    public boolean close(long timeoutNanos) {
        synchronized (this) {
            if (state == State.NEW) {
                state = State.CLOSED;
                return true;
            }
            if (state == State.RUNNING) {
                state = State.CLOSING;
            }
        }
        stop = true;
        wake();
        if (Thread.currentThread() == thread) {
            return false; // closing from the agent itself: the loop ends after this cycle
        }
        try {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }

    /**
     * {@link #close(long)} with {@link #DEFAULT_CLOSE_NANOS}; a runner that did not end in time is reported on stderr.
     */
    @Override
    public void close() {
        if (!close(DEFAULT_CLOSE_NANOS) && Thread.currentThread() != thread) {
            System.err.println(agent.roleName() + ": did not stop within "
                    + TimeUnit.NANOSECONDS.toMillis(DEFAULT_CLOSE_NANOS) + " ms");
        }
    }
}
