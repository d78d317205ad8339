package io.jdoca.core.agent;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The data-path worker of the storage apps as an {@link Agent} (DOCA's storage worker with
 * {@code execute_control_command}): it owns one {@link ProgressEngine} and everything connected to
 * it, and the control thread hands it commands ({@link #execute}) that run on the worker thread
 * between two progress calls, so every context is configured, started and progressed by the one
 * thread the Core runtime requires. Runs on its own {@link AgentRunner} thread named after the role.
 *
 * <p>A duty cycle drains the {@link CommandQueue} and progresses the engine: allocation-free when no
 * command is waiting. Commands themselves ({@code FutureTask}s) are the control path.
 *
 * <p>Threads: {@link #execute}, {@link #run} and {@link #close} from any thread except the worker's
 * own; {@link #pe()} and {@link #attach} only from commands (the worker thread).
 */
public final class EngineWorker implements Agent, AutoCloseable {
    private static final Consumer<FutureTask<?>> RUN = FutureTask::run;
    private static final int COMMANDS = 64;

    private final String role;
    private final CommandQueue<FutureTask<?>> commands;
    private final AgentRunner runner;
    private ProgressEngine pe;

    /**
     * Starts a worker thread named {@code role} that backs off with {@code idle} and progresses
     * {@code pe} (may be null: a command {@linkplain #attach attaches} one later).
     */
    public EngineWorker(String role, IdleStrategy idle, ProgressEngine pe) {
        this.role = role;
        this.pe = pe;
        this.runner = new AgentRunner(this, idle, AgentRunner.ErrorHandler.stderr());
        this.commands = new CommandQueue<>(COMMANDS, runner::wake);
        runner.start();
    }

    /** A worker with its own new engine. */
    public static EngineWorker withEngine(String role, IdleStrategy idle) {
        return new EngineWorker(role, idle, ProgressEngine.create());
    }

    @Override
    public String roleName() {
        return role;
    }

    @Override
    public int doWork() {
        int work = commands.drain(RUN, COMMANDS);
        ProgressEngine p = pe;
        if (p != null && p.progress()) {
            work++;
        }
        return work;
    }

    /** Commands still queued when the worker ends are cancelled: their callers get an error, not a hang. */
    @Override
    public void onClose() {
        FutureTask<?> t;
        while ((t = commands.poll()) != null) {
            t.cancel(false);
        }
    }

    /** The engine the worker progresses (null before one is attached); worker thread only. */
    public ProgressEngine pe() {
        return pe;
    }

    /** Sets (or with null, drops) the engine the worker progresses; worker thread only (from a command). */
    public void attach(ProgressEngine engine) {
        this.pe = engine;
    }

    /** The runner thread (named after the role). */
    public Thread thread() {
        return runner.thread();
    }

    /**
     * Runs {@code c} on the worker thread and returns its result (control path). A RuntimeException
     * from {@code c} is rethrown as is; a timeout is {@code TIME_OUT}, a worker that has ended
     * {@code BAD_STATE}.
     */
    public <T> T execute(Callable<T> c, long timeoutNanos) {
        if (runner.state() != AgentRunner.State.RUNNING) {
            throw new DocaException(DocaError.BAD_STATE, role + " has ended");
        }
        FutureTask<T> f = new FutureTask<>(c);
        if (!commands.offer(f)) {
            throw new DocaException(DocaError.AGAIN, role + ": " + COMMANDS + " control commands already waiting");
        }
        try {
            return f.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new DocaException(DocaError.UNEXPECTED, role + ": " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            f.cancel(false);
            throw new DocaException(DocaError.TIME_OUT, role + ": command did not finish in time");
        } catch (java.util.concurrent.CancellationException e) {
            throw new DocaException(DocaError.BAD_STATE, role + " ended before running the command");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DocaException(DocaError.UNEXPECTED, "interrupted");
        }
    }

    /**
     * Pins the worker thread to {@code cpu} ({@code sched_setaffinity}, run on the worker itself).
     * Control path; IllegalArgumentException when the kernel refuses the CPU.
     */
    public void pin(int cpu) {
        run(() -> io.jdoca.core.util.CpuAffinity.pinCurrentThread(cpu), 10_000_000_000L);
    }

    /** Runs {@code r} on the worker thread (control path). */
    public void run(Runnable r, long timeoutNanos) {
        execute(() -> {
            r.run();
            return null;
        }, timeoutNanos);
    }

    /** Ends the worker thread (up to {@link AgentRunner#DEFAULT_CLOSE_NANOS}); the engine is the owner's to close. */
    @Override
    public void close() {
        runner.close();
    }

    /** {@link #close()} with a deadline; true if the thread ended in time. */
    public boolean close(long timeoutNanos) {
        return runner.close(timeoutNanos);
    }
}
