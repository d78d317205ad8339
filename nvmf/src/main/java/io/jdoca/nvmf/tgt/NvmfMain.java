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
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The target's management agent on its own {@link AgentRunner} (thread {@code sta-main}): it
 * progresses the STA main context ({@link Sta}: rm-ns and destroy-queue tasks), runs the commands
 * other threads hand it ({@link #execute}: STA tasks must be submitted on the main context's
 * thread) and keeps the keep-alive deadline: every {@link #KEEP_ALIVE_PERIOD_NANOS} a duty cycle
 * tears down the controllers whose host fell silent ({@link NvmfControllers#checkKeepAlive}).
 * Control path: it backs off to 5 ms parks when idle and is woken by a command.
 *
 * <p>Thread rules: {@link #execute} from any thread; {@link #start} and {@link #close} from the
 * control thread; the rest on the {@code sta-main} thread.
 */
final class NvmfMain implements Agent {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfTarget.class);
    /** How often silent controllers are looked for (their KATO is in seconds; the deadline is twice it). */
    static final long KEEP_ALIVE_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    private static final int COMMANDS = 1024;
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
    private long nextKeepAlive;

    NvmfMain(Sta sta, ProgressEngine pe, NvmfControllers controllers, List<NvmfEngine> engines) {
        this.sta = sta;
        this.pe = pe;
        this.controllers = controllers;
        this.engines = engines;
        this.runner = new AgentRunner(this, idle, (agent, e) -> LOG.error("{}: {}", agent.roleName(), e.toString(), e));
        this.commands = new CommandQueue<>(COMMANDS, runner::wake);
    }

    @Override
    public String roleName() {
        return "sta-main";
    }

    void start() {
        runner.start();
    }

    /** Queues {@code r} for the main thread. Any thread; AGAIN when {@value #COMMANDS} commands already wait. */
    void execute(Runnable r) {
        if (!commands.offer(r)) {
            throw new DocaException(DocaError.AGAIN, "sta-main: " + COMMANDS + " commands already waiting");
        }
    }

    @Override
    public void onStart() {
        nextKeepAlive = System.nanoTime() + KEEP_ALIVE_PERIOD_NANOS;
    }

    @Override
    public int doWork() {
        int n = commands.drain(RUN, COMMANDS);
        n += pe.progressCount();
        long now = System.nanoTime();
        if (now - nextKeepAlive >= 0) {
            nextKeepAlive = now + KEEP_ALIVE_PERIOD_NANOS;
            controllers.checkKeepAlive(now);
        }
        return n;
    }

    /**
     * The target is closing (its engines have stopped): stops the main context once every IO
     * context is IDLE (the seed's stop order) and progresses it until IDLE, for at most
     * {@link NvmfEngine#STOP_NANOS}.
     */
    @Override
    public void onClose() {
        boolean iosIdle = true;
        for (NvmfEngine e : engines) {
            iosIdle &= e.io.state() == CtxState.IDLE;
        }
        if (!iosIdle) {
            LOG.warn("sta-main: an IO context is not IDLE; the main context stays up");
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
    }

    /** Stops the agent (see {@link #onClose}); true if its thread ended in time. Control path. */
    boolean close() {
        return runner.close(NvmfEngine.STOP_NANOS + TimeUnit.SECONDS.toNanos(1));
    }
}
