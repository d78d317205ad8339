package io.jdoca.storage.common;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A worker thread that owns one progress engine and everything connected to it (DOCA's storage
 * worker with {@code execute_control_command}): the control thread hands it commands
 * ({@link #execute}) that run on the worker thread between progress calls, so every context is
 * configured, started and progressed by the one thread the Core runtime requires.
 *
 * <p>The loop progresses the engine and backs off when idle (spin, yield, then park; see
 * {@link AppSupport#workerIdle()}); taking a command from an empty queue allocates nothing, so the data path
 * stays allocation-free. {@link #execute} and {@link #close} may be called from any thread.
 */
public final class PeWorkerThread implements AutoCloseable {
    private final ProgressEngine pe = ProgressEngine.create();
    private final ConcurrentLinkedQueue<FutureTask<?>> commands = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean exit;

    /** Starts the thread; its loop backs off as {@link AppSupport#workerIdle()} says. */
    public PeWorkerThread(String name) {
        this.thread = new Thread(this::loop, name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /**
     * Pins the worker thread to {@code cpu} ({@code sched_setaffinity}, run on the worker itself).
     * Control path; IllegalArgumentException when the kernel refuses the CPU.
     */
    public void pin(int cpu) {
        execute(() -> {
            io.jdoca.core.util.CpuAffinity.pinCurrentThread(cpu);
            return null;
        }, 10_000_000_000L);
    }

    /** The engine; touch it only from commands (the worker thread). */
    public ProgressEngine pe() {
        return pe;
    }

    private void loop() {
        IdleStrategy idle = AppSupport.workerIdle();
        while (!exit) {
            int w = 0;
            FutureTask<?> t;
            while ((t = commands.poll()) != null) {
                t.run();
                w++;
            }
            if (pe.progress()) {
                w++;
            }
            idle.idle(w);
        }
        FutureTask<?> t;
        while ((t = commands.poll()) != null) {
            t.cancel(false);
        }
    }

    /** Runs {@code c} on the worker thread and returns its result; its exception is rethrown. */
    public <T> T execute(Callable<T> c, long timeoutNanos) {
        if (exit || !thread.isAlive()) {
            throw new DocaException(DocaError.BAD_STATE, thread.getName() + " has ended");
        }
        FutureTask<T> f = new FutureTask<>(c);
        commands.add(f);
        try {
            return f.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new DocaException(DocaError.UNEXPECTED, thread.getName() + ": " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            f.cancel(false);
            throw new DocaException(DocaError.TIME_OUT, thread.getName() + ": command did not finish in time");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DocaException(DocaError.UNEXPECTED, "interrupted");
        }
    }

    /** Runs {@code r} on the worker thread. */
    public void run(Runnable r, long timeoutNanos) {
        execute(() -> {
            r.run();
            return null;
        }, timeoutNanos);
    }

    /** Ends the loop and waits for the thread (up to 5 s). */
    @Override
    public void close() {
        exit = true;
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
