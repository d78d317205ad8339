package io.jdoca.nvmf.tgt;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.agent.Agent;
import io.jdoca.core.agent.AgentRunner;
import io.jdoca.core.agent.CommandQueue;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.sta.Sta;
import io.jdoca.sta.StaIo;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The target's management agent on its own {@link AgentRunner} (thread {@code sta-main}, SPDK's
 * application thread): the single writer of every piece of target state (subsystems, namespaces,
 * listeners, hosts, controllers, bdevs, transports, the discovery log). Every change is a command
 * it executes, in arrival order, from two queues:
 * <ul>
 * <li>the <b>admin queue</b>: the commands the IO engines did not execute ({@link NvmfAdminCommand},
 * copied off the wire by {@link NvmfCommandForwarder}) and the QPs they closed; executed by the
 * {@link AdminHandler}, answered by posting the command back to its QP's IO context;</li>
 * <li>the <b>management queue</b>: {@link #call} and {@link #submit} from RPC handlers, the control
 * thread and tests, each a function of the target state that the caller waits for with a deadline
 * ({@link #CALL_NANOS}).</li>
 * </ul>
 * It also progresses the STA main context ({@link Sta}: rm-ns and destroy-queue tasks, which must
 * be submitted on its thread) and keeps the keep-alive deadline: every
 * {@link #KEEP_ALIVE_PERIOD_NANOS} a duty cycle tears down the controllers whose host fell silent and reads again
 * the reservation files another target serving the same namespaces changed.
 * Control path: it backs off to 5 ms parks when idle and is woken by a command.
 *
 * <p>Thread rules: {@link #call}, {@link #submit}, {@link #execute} and {@link #offerAdmin} from any
 * thread (a call made on {@code sta-main} itself, or while the agent is not running, runs inline);
 * {@link #start} and {@link #close} from the control thread; the rest on the {@code sta-main}
 * thread. IO engines only ever {@link #offerAdmin}: they never wait for this agent.
 */
final class NvmfMain implements Agent {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfTarget.class);
    /** How often silent controllers are looked for (their KATO is in seconds; the deadline is twice it). */
    static final long KEEP_ALIVE_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** How long a caller waits for {@code sta-main} to answer a management command. */
    static final long CALL_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final int COMMANDS = 1024;
    /** Admin queue slots: room for a burst of admin commands and, always, for every QP's close. */
    private static final int ADMIN_SLOTS = 4 * Sta.MAX_QPS;
    /** Admin commands are refused (Command Interrupted, retried by the host) beyond this, so closes always fit. */
    private static final int ADMIN_COMMAND_LIMIT = ADMIN_SLOTS - 2 * Sta.MAX_QPS;
    private static final int ADMIN_BATCH = 256;
    private static final Consumer<Runnable> RUN = r -> {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.error("main action failed", e);
        }
    };

    private final Sta sta;
    private final ProgressEngine pe;
    private final NvmfControllers controllers;
    private final List<NvmfEngine> engines;
    private final IdleStrategy idle = IdleStrategy.backoff(16, 16, 100_000, 5_000_000);
    private final AgentRunner runner;
    private final CommandQueue<Runnable> commands;
    private final CommandQueue<NvmfAdminCommand> admin;
    private final Consumer<NvmfAdminCommand> adminHandler;
    private final AdminHandler handler;
    private long nextKeepAlive;
    /** {@link #CALL_NANOS}; shorter in tests that show what a caller sees when sta-main is stuck. */
    volatile long callNanos = CALL_NANOS;

    NvmfMain(Sta sta, ProgressEngine pe, NvmfControllers controllers, List<NvmfEngine> engines, AdminHandler handler) {
        this.sta = sta;
        this.pe = pe;
        this.controllers = controllers;
        this.engines = engines;
        this.handler = handler;
        this.runner = new AgentRunner(this, idle, (agent, e) -> LOG.error("{}: {}", agent.roleName(), e.toString(), e));
        this.commands = new CommandQueue<>(COMMANDS, runner::wake);
        this.admin = new CommandQueue<>(ADMIN_SLOTS, runner::wake);
        this.adminHandler = c -> {
            try {
                handler.execute(c);
            } catch (RuntimeException e) {
                LOG.error("{}: admin command failed", c.qp, e);
            }
        };
    }

    @Override
    public String roleName() {
        return "sta-main";
    }

    void start() {
        runner.start();
    }

    /** True on the {@code sta-main} thread. */
    boolean onMainThread() {
        return Thread.currentThread() == runner.thread();
    }

    /** True when commands queued now are executed by the agent (not before start, not after close). */
    private boolean serving() {
        AgentRunner.State s = runner.state();
        return s == AgentRunner.State.RUNNING || (s == AgentRunner.State.CLOSING && runner.thread().isAlive());
    }

    /** Queues {@code r} for the main thread. Any thread; AGAIN when {@value #COMMANDS} commands already wait. */
    void execute(Runnable r) {
        if (!commands.offer(r)) {
            throw new DocaException(DocaError.AGAIN, "sta-main: " + COMMANDS + " commands already waiting");
        }
    }

    /**
     * Hands a command the IO engine did not execute (or a QP it closed) to {@code sta-main}. IO
     * thread; never waits: false when the admin queue is full (the caller answers the command
     * itself). A QP's close always fits (room is kept for every QP).
     */
    boolean offerAdmin(NvmfAdminCommand c) {
        if (c.gone == null && admin.size() >= ADMIN_COMMAND_LIMIT) {
            return false;
        }
        return admin.offer(c);
    }

    /**
     * Runs {@code op} on {@code sta-main} and returns its result, or throws what it threw. Waits at
     * most {@link #callNanos}: then throws TIME_OUT, naming {@code what}. Any thread; inline on
     * {@code sta-main} itself and while the agent is not running (before start, after close: no
     * other writer exists then).
     */
    <T> T call(String what, Supplier<T> op) {
        if (onMainThread() || !serving()) {
            return op.get();
        }
        return join(what, enqueue(what, () -> CompletableFuture.completedFuture(op.get())), callNanos);
    }

    /**
     * Starts {@code op} on {@code sta-main} (a command whose result comes later, e.g. once in-flight
     * I/O drained) and returns its future, completed on {@code sta-main}. Any thread; inline on
     * {@code sta-main} and while the agent is not running.
     */
    <T> CompletableFuture<T> submit(String what, Supplier<CompletableFuture<T>> op) {
        if (onMainThread() || !serving()) {
            try {
                return op.get();
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        try {
            return enqueue(what, op).result;
        } catch (DocaException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** {@link #submit}, then waits for the result with {@code deadlineNanos} (not on {@code sta-main}). */
    <T> T callAsync(String what, Supplier<CompletableFuture<T>> op, long deadlineNanos) {
        if (onMainThread() || !serving()) {
            CompletableFuture<T> f = submit(what, op);
            if (!f.isDone()) {
                throw new IllegalStateException(what + ": would wait on sta-main for sta-main");
            }
            return unwrap(f);
        }
        return join(what, enqueue(what, op), deadlineNanos);
    }

    private <T> Call<T> enqueue(String what, Supplier<CompletableFuture<T>> op) {
        Call<T> c = new Call<>(op);
        execute(c);
        return c;
    }

    private static <T> T join(String what, Call<T> c, long deadlineNanos) {
        try {
            return c.result.get(deadlineNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            boolean dropped = c.state.compareAndSet(Call.QUEUED, Call.ABANDONED);
            long ms = TimeUnit.NANOSECONDS.toMillis(deadlineNanos);
            throw new DocaException(DocaError.TIME_OUT, "sta-main did not answer " + what + " within "
                    + (ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms")
                    + (dropped ? " (not executed)" : " (still running: it may yet take effect)"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DocaException(DocaError.AGAIN, what + ": interrupted while waiting for sta-main");
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        }
    }

    private static <T> T unwrap(CompletableFuture<T> f) {
        try {
            return f.get();
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DocaException(DocaError.AGAIN, "interrupted");
        }
    }

    /** The exception {@code sta-main} threw, thrown again on the caller's thread (its stack names sta-main). */
    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        if (t instanceof java.io.IOException io) {
            return new UncheckedIOException(io);
        }
        return new IllegalStateException(String.valueOf(t), t);
    }

    /** A management command: runs once on {@code sta-main}, unless its caller gave up waiting first. */
    private static final class Call<T> implements Runnable {
        static final int QUEUED = 0;
        static final int RUNNING = 1;
        static final int ABANDONED = 2;
        final Supplier<CompletableFuture<T>> op;
        final CompletableFuture<T> result = new CompletableFuture<>();
        final AtomicInteger state = new AtomicInteger(QUEUED);

        Call(Supplier<CompletableFuture<T>> op) {
            this.op = op;
        }

        @Override
        public void run() {
            if (!state.compareAndSet(QUEUED, RUNNING)) {
                return; // the caller timed out and was told it was not executed
            }
            try {
                op.get().whenComplete((v, e) -> {
                    if (e != null) {
                        result.completeExceptionally(e);
                    } else {
                        result.complete(v);
                    }
                });
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
            }
        }
    }

    @Override
    public void onStart() {
        nextKeepAlive = System.nanoTime() + KEEP_ALIVE_PERIOD_NANOS;
    }

    @Override
    public int doWork() {
        int n = admin.drain(adminHandler, ADMIN_BATCH);
        n += commands.drain(RUN, COMMANDS);
        n += pe.progressCount();
        long now = System.nanoTime();
        if (now - nextKeepAlive >= 0) {
            nextKeepAlive = now + KEEP_ALIVE_PERIOD_NANOS;
            controllers.checkKeepAlive(now);
            handler.periodic();
        }
        return n;
    }

    /**
     * The target is closing (its engines have stopped): stops the main context once every IO
     * context is IDLE (the seed's stop order) and progresses it until IDLE, for at most
     * {@link NvmfEngine#STOP_NANOS}, still executing the commands that arrive meanwhile.
     */
    @Override
    public void onClose() {
        boolean iosIdle = true;
        for (NvmfEngine e : engines) {
            iosIdle &= e.io.state() == CtxState.IDLE;
        }
        if (!iosIdle) {
            LOG.warn("sta-main: an IO context is not IDLE; the main context stays up");
            commands.drain(RUN, COMMANDS);
            return;
        }
        if (sta.state() == CtxState.RUNNING) {
            sta.stop();
        }
        long deadline = System.nanoTime() + NvmfEngine.STOP_NANOS;
        idle.reset();
        while (sta.state() != CtxState.IDLE && System.nanoTime() - deadline < 0) {
            commands.drain(RUN, COMMANDS);
            idle.idle(pe.progressCount());
        }
        commands.drain(RUN, COMMANDS);
    }

    /** Stops the agent (see {@link #onClose}); true if its thread ended in time. Control path. */
    boolean close() {
        return runner.close(NvmfEngine.STOP_NANOS + TimeUnit.SECONDS.toNanos(1));
    }

    /** The IO contexts, for posting answers. */
    static void post(StaIo io, Runnable r) {
        try {
            io.post(r);
        } catch (DocaException e) {
            LOG.warn("{}: cannot hand an answer to the IO engine: {}", io.name(), e.getMessage());
        }
    }
}
