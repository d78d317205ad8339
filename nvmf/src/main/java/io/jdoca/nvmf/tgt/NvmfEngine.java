package io.jdoca.nvmf.tgt;

import io.jdoca.core.agent.Agent;
import io.jdoca.core.agent.AgentRunner;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.util.CpuAffinity;
import io.jdoca.sta.Sta;
import io.jdoca.sta.StaIo;
import io.jdoca.sta.config.StaProperties;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One IO engine of {@link NvmfTarget} as an {@link Agent} on its own {@link AgentRunner} (thread
 * {@code sta-io-<i>}): an IO context ({@link StaIo}) with its progress engine. A duty cycle is one
 * progress pass (StaIo's QPs, back-end completions, hand-overs); idle, the runner spins briefly and
 * then sleeps in StaIo's own wait ({@link StaIo#waitForIo}: the sockets' selector, the RDMA
 * completion channel or the back-end's completions), so an idle engine uses no CPU and wakes as
 * soon as a host sends. Other threads reach the engine only through StaIo's hand-over queue (a core
 * {@code CommandQueue}: {@code qpAccept}, {@code post}), whose waker ends that sleep.
 *
 * <p>It measures its own pauses and stalls ({@link PauseMeter}: the longest time between two duty
 * cycles, asleep by choice excluded, and the part of it the OS scheduler does not explain), from
 * the {@code nanoTime} each cycle starts with.
 *
 * <p>Thread rules: {@link #doWork}, {@link #onStart}, {@link #onClose} and {@link #sleep} run on
 * the engine thread; {@link #idleNanos} and {@link #pauses}' figures have that thread as their
 * only writer and are read racily by metrics; {@link #wake} and {@code pauses.resetWindow} from any
 * thread; {@link #start} and {@link #close} from the control thread.
 */
final class NvmfEngine implements Agent, IdleStrategy.Sleeper {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfTarget.class);
    /**
     * Idle passes spent spinning before the engine sleeps ({@code jdoca.sta.engine.spins}, 7): on a shared machine
     * a sleeper woken by the socket beats a spinner.
     */
    private static final int SPINS = Math.max(0, StaProperties.ENGINE_SPINS.asInt());
    /** Longest sleep in StaIo's wait (it returns earlier on a socket, completion or hand-over). */
    private static final long SLEEP_NANOS = 5_000_000L;
    /** How long a stopping engine may take to finish its QPs' teardown and in-flight back-end I/O. */
    static final long STOP_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final NvmfTarget target;
    final StaIo io;
    final ProgressEngine pe;
    final int index;
    private final IdleStrategy idle;
    private final AgentRunner runner;
    /** Time asleep waiting for the sockets; written by the engine thread only, read racily by metrics. */
    long idleNanos;
    final long startNanos = System.nanoTime();
    /** The engine thread's Linux tid (thread_get_stats, framework_get_reactors); set when it starts. */
    volatile long tid;
    /** The engine's longest pauses and stalls. */
    final PauseMeter pauses = new PauseMeter();

    NvmfEngine(NvmfTarget target, StaIo io, ProgressEngine pe, int i) {
        this.target = target;
        this.io = io;
        this.pe = pe;
        this.index = i;
        this.idle = IdleStrategy.sleeping(this, SPINS, 0, SLEEP_NANOS);
        this.runner = new AgentRunner(this, idle,
                (agent, e) -> LOG.error("{}: {}", agent.roleName(), e.toString(), e));
    }

    /**
     * Creates IO context {@code i} with its progress engine, its callbacks ({@code forwarder}: the
     * commands it does not execute, the QPs it closes) and task pools, and starts it; the engine
     * thread is not started yet. Control path.
     */
    static NvmfEngine create(NvmfTarget target, Sta sta, int i, NvmfCommandForwarder forwarder) {
        StaIo io = StaIo.create(sta);
        ProgressEngine pe = ProgressEngine.create();
        NvmfTarget.check(io.setQueueDepth(1 << 16), "queue depth");
        NvmfTarget.check(io.nonOffloadRegisterCb(forwarder, i), "non-offload callback");
        NvmfTarget.check(io.eventTransportErrorRegisterCb(forwarder), "transport error callback");
        NvmfTarget.check(io.taskNonOffloadSendSetConf((t, ud, cud) -> t.free(), (t, ud, cud) -> t.free(), 4096),
                "send conf");
        NvmfTarget.check(io.taskNonOffloadWriteSendSetConf((t, ud, cud) -> t.free(), (t, ud, cud) -> t.free(), 1024),
                "write-send conf");
        // A read task's user object is what to do with the data once fetched (NvmfCommandForwarder).
        NvmfTarget.check(io.taskNonOffloadReadSetConf((t, ud, cud) -> {
            Object k = t.userObject();
            t.free();
            if (k instanceof Runnable r) {
                r.run();
            }
        }, (t, ud, cud) -> t.free(), 256), "read conf");
        NvmfTarget.check(io.taskDisconnectSetConf((t, ud, cud) -> t.free(), (t, ud, cud) -> t.free(), 1024),
                "disconnect conf");
        NvmfTarget.check(pe.connectCtx(io), "connect IO context");
        NvmfTarget.check(io.start(), "start IO context");
        return new NvmfEngine(target, io, pe, i);
    }

    @Override
    public String roleName() {
        return "sta-io-" + index;
    }

    /** The engine thread ran {@link #onStart} (its tid and pinning are known). */
    private final CountDownLatch started = new CountDownLatch(1);

    /** Starts the engine thread and waits (bounded) until it has started. Control path. */
    void start() {
        runner.start();
        try {
            if (!started.await(60, TimeUnit.SECONDS)) {
                LOG.warn("{}: not started after 60 s", roleName());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The engine thread (named {@link #roleName()}). */
    Thread thread() {
        return runner.thread();
    }

    /** Pins the engine thread to its CPU of the target's mask (SPDK's {@code -m}), if one was given. */
    @Override
    public void onStart() {
        tid = NvmfThreads.currentTid();
        pauses.start(System.nanoTime());
        List<Integer> pin = target.cpus();
        if (!pin.isEmpty()) {
            int cpu = pin.get(index % pin.size());
            try {
                CpuAffinity.pinCurrentThread(cpu);
                LOG.info("{} pinned to CPU {}", roleName(), cpu);
            } catch (RuntimeException e) {
                LOG.error("{}: cannot pin to CPU {}: {}", roleName(), cpu, e.getMessage());
            }
        }
        started.countDown();
    }

    /** One StaIo progress pass; returns the work it did (0 = idle: the runner spins, then {@link #sleep}s). */
    @Override
    public int doWork() {
        pauses.cycle(System.nanoTime());
        return pe.progressCount();
    }

    /** The idle strategy's sleep: StaIo's wait, timed for the engine's busy/idle metrics. Engine thread. */
    @Override
    public void sleep(long maxNanos) {
        long t0 = System.nanoTime();
        io.waitForIo(maxNanos);
        long t1 = System.nanoTime();
        idleNanos += t1 - t0; // single writer: this thread; read racily
        pauses.slept(t1 - t0, maxNanos, t1);
    }

    /** Ends the engine's sleep in StaIo's wait. Any thread. */
    @Override
    public void wake() {
        io.wakeup();
    }

    /**
     * The target is closing: stops the IO context (its QPs are torn down, in-flight tasks flushed)
     * and progresses it until IDLE, sleeping in StaIo's wait between passes, for at most
     * {@link #STOP_NANOS}. Engine thread.
     */
    @Override
    public void onClose() {
        pauses.close();
        if (io.state() == CtxState.RUNNING || io.state() == CtxState.STARTING) {
            io.stop();
        }
        long deadline = System.nanoTime() + STOP_NANOS;
        idle.reset();
        while (io.state() != CtxState.IDLE) {
            if (System.nanoTime() - deadline > 0) {
                LOG.warn("{}: IO context still {} after {} ms", roleName(), io.state(),
                        TimeUnit.NANOSECONDS.toMillis(STOP_NANOS));
                return;
            }
            idle.idle(pe.progressCount());
        }
    }

    /** Stops the engine (see {@link #onClose}); true if its thread ended in time. Control path. */
    boolean close() {
        return runner.close(STOP_NANOS + TimeUnit.SECONDS.toNanos(1));
    }
}
