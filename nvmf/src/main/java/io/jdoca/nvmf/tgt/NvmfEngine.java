package io.jdoca.nvmf.tgt;

import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.util.CpuAffinity;
import io.jdoca.sta.StaIo;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One IO engine of {@link NvmfTarget}: an IO context ({@link StaIo}) with its progress engine and
 * the thread that runs the engine loop (progress, a short spin, then sleep in the sockets'
 * readiness). Split out of {@code NvmfTarget} (its former inner class {@code Engine}) so the
 * target app holds configuration and listener management and this class the I/O path's loop.
 *
 * <p>Thread rules: {@link #run} is the engine thread; {@link #idleNanos} has that thread as its
 * only writer and is read racily by metrics; the rest is final.
 */
final class NvmfEngine {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfTarget.class);
    private final NvmfTarget target;
    final StaIo io;
    final ProgressEngine pe;
    final Thread thread;
    final int index;
    /** Time asleep waiting for the sockets; written by the engine thread only, read racily by metrics. */
    long idleNanos;
    final long startNanos = System.nanoTime();

    NvmfEngine(NvmfTarget target, StaIo io, ProgressEngine pe, int i) {
        this.target = target;
        this.io = io;
        this.pe = pe;
        this.index = i;
        this.thread = new Thread(this::run, "sta-io-" + i);
        this.thread.setDaemon(true);
    }

    void run() {
        List<Integer> pin = target.cpus();
        if (!pin.isEmpty()) {
            int cpu = pin.get(index % pin.size());
            try {
                CpuAffinity.pinCurrentThread(cpu);
                LOG.info("{} pinned to CPU {}", thread.getName(), cpu);
            } catch (RuntimeException e) {
                LOG.error("{}: cannot pin to CPU {}: {}", thread.getName(), cpu, e.getMessage());
            }
        }
        // Spin briefly, then sleep in the sockets' readiness (StaIo.waitForIo) until a host sends.
        int idle = 0;
        while (target.running() || io.state() != CtxState.IDLE) {
            if (pe.progress()) {
                idle = 0;
            } else if (++idle < 8) {
                // Short spin only: on a shared machine a sleeper woken by the socket beats a spinner.
                Thread.onSpinWait();
            } else {
                long t0 = System.nanoTime();
                io.waitForIo(5_000_000L);
                idleNanos += System.nanoTime() - t0; // single writer: this thread; read racily
            }
            if (!target.running() && io.state() == CtxState.RUNNING) {
                io.stop();
            }
        }
    }
}
