package io.jdoca.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.testkit.JavaProcess;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressEngineNotificationTest {
    @Test
    void idleEngineInNotificationModeUsesUnderTwoPercentOfACore() throws Exception {
        // A process of its own, measuring the engine thread's CPU time (not the JIT's or the GC's).
        try (JavaProcess p = JavaProcess.start("idle-pe", IdlePeProbe.class.getName(), List.of("2000"))) {
            assertThat(p.awaitExit(Duration.ofSeconds(60))).as(p.output()).isZero();
            Matcher m = Pattern.compile("cpu_share=([0-9.]+) loops=(\\d+)").matcher(p.output());
            assertThat(m.find()).as(p.output()).isTrue();
            double share = Double.parseDouble(m.group(1));
            System.out.printf("idle PE (notification mode): engine thread CPU %.3f%% of a core over 2 s, %s loop "
                    + "iterations%n",
                    share * 100, m.group(2));
            assertThat(share).isLessThan(0.02);
        }
    }

    @Test
    void theProbeDoesSeeABusySpinningEngine() throws Exception {
        // Control: the same measurement must report a spinning engine, or the test above proves nothing.
        try (JavaProcess p = JavaProcess.start("spin-pe", IdlePeProbe.class.getName(), List.of("1000", "spin"))) {
            assertThat(p.awaitExit(Duration.ofSeconds(60))).as(p.output()).isZero();
            Matcher m = Pattern.compile("cpu_share=([0-9.]+)").matcher(p.output());
            assertThat(m.find()).as(p.output()).isTrue();
            // 5x the idle bound above, so the probe tells spinning from sleeping; not 0.3: on a loaded
            // 2-core machine (a QEMU guest beside the build) a spinner got 0.25 of a core.
            assertThat(Double.parseDouble(m.group(1))).isGreaterThan(0.1);
        }
    }

    @Test
    void notifyWorkWakesAWaiterPromptly() throws Exception {
        ProgressEngine pe = ProgressEngine.create();
        CountDownLatch waiting = new CountDownLatch(1);
        AtomicLong wokeAfter = new AtomicLong(-1);
        Thread waiter = new Thread(() -> {
            pe.requestNotification();
            waiting.countDown();
            long t0 = System.nanoTime();
            boolean woken = pe.waitForNotification(TimeUnit.SECONDS.toNanos(10));
            wokeAfter.set(woken ? System.nanoTime() - t0 : -1);
            pe.clearNotification();
        });
        waiter.start();
        waiting.await();
        Thread.sleep(50);
        pe.notifyWork();
        waiter.join(5000);
        assertThat(wokeAfter.get()).as("woken by notifyWork, not by the 10 s timeout").isBetween(0L,
                TimeUnit.SECONDS.toNanos(2));
    }

    @Test
    void waitReturnsAtOnceWhenWorkIsPending() {
        ProgressEngine pe = ProgressEngine.create();
        EchoCtx ctx = new EchoCtx();
        ctx.pool.setConf((t, a, b) -> { }, (t, a, b) -> { }, 4);
        pe.connectCtx(ctx);
        ctx.start();
        ctx.allocInit(1).submit();
        long t0 = System.nanoTime();
        assertThat(pe.waitForNotification(TimeUnit.SECONDS.toNanos(5))).isTrue();
        assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(1));
    }

    @Test
    void waitTimesOutWithoutWork() {
        ProgressEngine pe = ProgressEngine.create();
        long t0 = System.nanoTime();
        assertThat(pe.waitForNotification(TimeUnit.MILLISECONDS.toNanos(50))).isFalse();
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(40));
    }

    @Test
    void sleepIsBoundedByPollablesThatCannotSignal() {
        ProgressEngine pe = ProgressEngine.create();
        pe.addPollable(new Pollable() {
            @Override
            public int doWork() {
                return 0;
            }

            @Override
            public boolean hasPendingWork() {
                return false;
            }

            @Override
            public long maxSleepNanos() {
                return TimeUnit.MILLISECONDS.toNanos(5);
            }
        });
        long t0 = System.nanoTime();
        pe.waitForNotification(TimeUnit.SECONDS.toNanos(5));
        assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(1));
    }

    @Test
    void backoffStrategyEscalatesThenResetsOnWork() {
        IdleStrategies.Backoff s = (IdleStrategies.Backoff) IdleStrategy.backoff(2, 2, 1_000, 8_000);
        s.idle(0);
        s.idle(0);
        assertThat(s.spins).isEqualTo(2);
        assertThat(s.yields).isZero();
        s.idle(0);
        s.idle(0);
        assertThat(s.yields).isEqualTo(2);
        assertThat(s.park).isEqualTo(1_000);
        s.idle(0);
        assertThat(s.park).as("park doubles").isEqualTo(2_000);
        for (int i = 0; i < 5; i++) {
            s.idle(0);
        }
        assertThat(s.park).as("capped").isEqualTo(8_000);
        s.idle(1);
        assertThat(s.spins).isZero();
        assertThat(s.park).isEqualTo(1_000);
    }

    /** A sleeper (a transport's selector) takes the place of parking; notifyWork wakes it; one per engine. */
    @Test
    void anInstalledSleeperIsWhereTheEngineWaitsAndNotifyWorkWakesIt() throws Exception {
        ProgressEngine pe = ProgressEngine.create();
        CountDownLatch inSleep = new CountDownLatch(1);
        java.util.concurrent.Semaphore woken = new java.util.concurrent.Semaphore(0);
        AtomicLong slept = new AtomicLong();
        IdleStrategy.Sleeper sleeper = new IdleStrategy.Sleeper() {
            @Override
            public void sleep(long maxNanos) {
                slept.set(maxNanos);
                inSleep.countDown();
                try {
                    woken.tryAcquire(maxNanos, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void wake() {
                woken.release();
            }
        };
        assertThat(pe.setSleeper(sleeper)).isEqualTo(io.jdoca.core.DocaError.SUCCESS);
        assertThat(pe.setSleeper(new IdleStrategy.Sleeper() {
            @Override
            public void sleep(long maxNanos) {
            }

            @Override
            public void wake() {
            }
        })).as("one sleeper per engine").isEqualTo(io.jdoca.core.DocaError.IN_USE);
        AtomicLong result = new AtomicLong(-1);
        Thread waiter = new Thread(() -> {
            pe.requestNotification();
            result.set(pe.waitForNotification(TimeUnit.SECONDS.toNanos(30)) ? 1 : 0);
            pe.clearNotification();
        });
        waiter.start();
        assertThat(inSleep.await(10, TimeUnit.SECONDS)).as("the engine sleeps in the sleeper").isTrue();
        assertThat(slept.get()).isEqualTo(TimeUnit.SECONDS.toNanos(30));
        pe.notifyWork();
        waiter.join(10_000);
        assertThat(waiter.isAlive()).as("notifyWork woke the sleeper").isFalse();
        assertThat(result.get()).as("woken by work").isEqualTo(1);
        assertThat(pe.setSleeper(null)).isEqualTo(io.jdoca.core.DocaError.SUCCESS);
        assertThat(pe.sleeper()).isNull();
    }
}
