package io.jdoca.storage.demo;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.BooleanSupplier;

/**
 * How a demo waits for its child processes so that it tells slow from dead (issue 29 item 7): a child
 * that has exited fails the wait at once; a child that is alive and using CPU is waited for, with a
 * line of progress every {@link #PROGRESS_MS}, up to a generous bound; a child that is alive but has
 * used no CPU for {@link #STALL_MS} is declared stuck. So a demo on a loaded or emulated host (a JVM
 * started in 85 s in the RDMA test bed, or beside three busy loops on one CPU) passes with its defaults,
 * and a crashed child still fails it in a second. Every figure is multiplied by the demo's scale
 * ({@link DemoSettings#scale}).
 *
 * <p>Control path; one demo thread.
 */
public final class DemoWait {
    /** Start-up bound of one child at scale 1: far beyond the 30–90 s a JVM took under emulation. */
    public static final long START_BOUND_MS = 15 * 60_000L;
    /** Run bound of the initiator at scale 1 (the verbs data path in the emulated guest took ~9 min). */
    public static final long RUN_BOUND_MS = 45 * 60_000L;
    /** A progress line this often while waiting. */
    static final long PROGRESS_MS = 15_000;
    /** Alive but no CPU time at all for this long: stuck, not slow. */
    static final long STALL_MS = 180_000;

    /** How a wait ended. */
    public enum Outcome {
        /** The condition holds. */
        READY,
        /** A watched process exited first. */
        EXITED,
        /** Alive, but no watched process used CPU for {@link #STALL_MS}. */
        STUCK,
        /** The bound passed while it kept working. */
        BOUND
    }

    private final PrintStream out;
    private final double scale;
    private final long t0;

    /** Prints on {@code out} with timestamps from {@code t0} (nanoTime); figures scaled by {@code scale}. */
    public DemoWait(PrintStream out, double scale, long t0) {
        this.out = out;
        this.scale = scale;
        this.t0 = t0;
    }

    /**
     * Waits until {@code ready} holds while every process of {@code watched} is alive (the first one
     * is the one waited for, named {@code what} in the progress lines), up to {@code boundMs} (scaled).
     */
    public Outcome await(String what, List<ProcessHandle> watched, BooleanSupplier ready, long boundMs)
            throws InterruptedException {
        long start = System.nanoTime();
        long bound = start + (long) (boundMs * scale) * 1_000_000L;
        long stall = (long) (STALL_MS * scale) * 1_000_000L;
        long nextProgress = start + PROGRESS_MS * 1_000_000L;
        long lastCpu = cpuNanos(watched);
        long lastCpuChange = start;
        while (true) {
            if (ready.getAsBoolean()) {
                return Outcome.READY;
            }
            for (ProcessHandle p : watched) {
                if (!p.isAlive()) {
                    return ready.getAsBoolean() ? Outcome.READY : Outcome.EXITED;
                }
            }
            long now = System.nanoTime();
            long cpu = cpuNanos(watched);
            if (cpu != lastCpu) {
                lastCpu = cpu;
                lastCpuChange = now;
            } else if (now - lastCpuChange > stall) {
                return Outcome.STUCK;
            }
            if (now - bound > 0) {
                return Outcome.BOUND;
            }
            if (now - nextProgress > 0) {
                nextProgress = now + PROGRESS_MS * 1_000_000L;
                out.printf(Locale.ROOT, "[%5.1fs] %s (alive; %.1f s of CPU so far; waiting up to %d s)%n",
                        (now - t0) / 1e9, what, cpu / 1e9, (long) (boundMs * scale) / 1000);
                out.flush();
            }
            Thread.sleep(20);
        }
    }

    /**
     * One line for an outcome other than READY: what happened to {@code what} (waited up to {@code boundMs}, unscaled).
     */
    public String explain(Outcome o, String what, long boundMs) {
        return switch (o) {
            case READY -> what + " is ready";
            case EXITED -> what + ": a process exited before it was ready";
            case STUCK -> what + ": alive but used no CPU for " + (long) (STALL_MS * scale) / 1000 + " s (stuck)";
            case BOUND -> what + ": still working after " + (long) (boundMs * scale) / 1000
                    + " s (JDOCA_DEMO_TIMEOUT_SCALE raises the bound)";
        };
    }

    /** CPU time used so far by {@code ps} together (0 where the system does not say). */
    static long cpuNanos(List<ProcessHandle> ps) {
        long n = 0;
        for (ProcessHandle p : ps) {
            n += p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
        }
        return n;
    }
}
