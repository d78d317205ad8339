package io.jdoca.nvmf.tgt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.core.util.CpuAffinity;
import io.jdoca.testkit.AllocationMeter;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The engine's pause meter: a pause while not runnable (a lock, a sleep) is a stall; a pause while
 * runnable but kept off the CPU by another thread is mostly not; a new window forgets; measuring
 * allocates nothing.
 */
@Timeout(60)
class PauseMeterTest {
    static final long MS = 1_000_000L;

    private static void spinFor(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }

    @Test
    void aPauseNotRunnableIsAStallAndANewWindowForgetsIt() throws Exception {
        PauseMeter m = new PauseMeter();
        try {
            m.start(System.nanoTime());
            m.cycle(System.nanoTime());
            Thread.sleep(30); // not runnable: like waiting on a monitor
            m.cycle(System.nanoTime());
            assertThat(m.maxPauseNanos).isGreaterThanOrEqualTo(30 * MS);
            assertThat(m.maxStallNanos).as("nothing of it was waiting for a CPU").isGreaterThan(25 * MS);
            m.resetWindow();
            m.cycle(System.nanoTime());
            m.cycle(System.nanoTime());
            assertThat(m.windowMaxPauseNanos).isLessThan(30 * MS);
            assertThat(m.maxPauseNanos).as("since start: kept").isGreaterThanOrEqualTo(30 * MS);

            // Asleep by choice is not a pause...
            long t0 = System.nanoTime();
            Thread.sleep(40);
            long t1 = System.nanoTime();
            m.slept(t1 - t0, t1 - t0, t1);
            m.cycle(System.nanoTime());
            assertThat(m.windowMaxPauseNanos).isLessThan(30 * MS);
            // ...but a sleep that overruns what was asked for is (the thread could not run when due).
            t0 = System.nanoTime();
            Thread.sleep(40);
            t1 = System.nanoTime();
            m.slept(t1 - t0, 5 * MS, t1);
            m.cycle(System.nanoTime());
            assertThat(m.windowMaxPauseNanos).isGreaterThanOrEqualTo(40 * MS - 5 * MS - PauseMeter.SLEEP_SLACK_NANOS);
        } finally {
            m.close();
        }
    }

    /** Two threads on one CPU, both busy: about half the pause is waiting for the CPU, not a stall. */
    @Test
    void aPauseSpentWaitingForTheCpuIsNotAStall() throws Exception {
        assumeTrue(RunQueueDelayProbe.available(), "SKIPPED: the kernel keeps no per-thread scheduler statistics");
        int cpu = CpuAffinity.allowedCpus().getFirst();
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch pinned = new CountDownLatch(1);
        // Both threads are new, so the test runner's own thread stays unpinned.
        Thread rival = Thread.ofPlatform().daemon().start(() -> {
            CpuAffinity.pinCurrentThread(cpu);
            pinned.countDown();
            while (!stop.get()) {
                Thread.onSpinWait();
            }
        });
        long[] pauseAndStall = new long[2];
        try {
            assertThat(pinned.await(10, TimeUnit.SECONDS)).isTrue();
            Thread engine = Thread.ofPlatform().daemon().start(() -> {
                CpuAffinity.pinCurrentThread(cpu);
                PauseMeter m = new PauseMeter();
                try {
                    m.start(System.nanoTime());
                    m.cycle(System.nanoTime());
                    spinFor(200 * MS); // a busy "duty cycle" sharing its CPU with the rival
                    m.cycle(System.nanoTime());
                    pauseAndStall[0] = m.maxPauseNanos;
                    pauseAndStall[1] = m.maxStallNanos;
                } finally {
                    m.close();
                }
            });
            engine.join(30_000);
        } finally {
            stop.set(true);
            rival.join(10_000);
        }
        assertThat(pauseAndStall[0]).isGreaterThanOrEqualTo(200 * MS);
        assertThat(pauseAndStall[1]).as("the CPU time the rival took is not the engine's stall")
                .isLessThan(pauseAndStall[0] - 40 * MS);
    }

    @Test
    void measuringAllocatesNothing() {
        PauseMeter m = new PauseMeter();
        try {
            m.start(System.nanoTime());
            AllocationMeter.Result r = AllocationMeter.steadyState(20_000, 200_000, () -> {
                long now = System.nanoTime();
                m.cycle(now);
                if ((now & 0xff) == 0) {
                    spinFor(PauseMeter.SAMPLE_NANOS + 1000); // a pause: the run-queue wait is read
                }
            });
            assertThat(r.bytes()).isZero();
        } finally {
            m.close();
        }
    }

    /** Whether this kernel has /proc/thread-self/schedstat. */
    static final class RunQueueDelayProbe {
        static boolean available() {
            RunQueueDelay d = RunQueueDelay.ofCurrentThread();
            if (d == null) {
                return false;
            }
            try {
                return d.nanos() >= 0;
            } finally {
                d.close();
            }
        }
    }
}
