package io.jdoca.core.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.agent.AgentRunner.ErrorHandler;
import io.jdoca.testkit.Await;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AgentRunnerTest {
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    private final ErrorHandler handler = (a, e) -> errors.add(e);

    /** Records which thread ran each callback and how often doWork ran. */
    static class Probe implements Agent {
        final String role;
        final IntSupplier work;
        volatile String startThread;
        volatile String closeThread;
        final AtomicInteger starts = new AtomicInteger();
        final AtomicInteger closes = new AtomicInteger();
        final AtomicLong cycles = new AtomicLong();

        Probe(String role, IntSupplier work) {
            this.role = role;
            this.work = work;
        }

        @Override
        public void onStart() {
            starts.incrementAndGet();
            startThread = Thread.currentThread().getName();
        }

        @Override
        public int doWork() {
            cycles.incrementAndGet();
            return work.getAsInt();
        }

        @Override
        public void onClose() {
            closes.incrementAndGet();
            closeThread = Thread.currentThread().getName();
        }

        @Override
        public String roleName() {
            return role;
        }
    }

    private static void await(java.util.function.BooleanSupplier c, String what) {
        Await.until(java.time.Duration.ofSeconds(20), c, what);
    }

    @Test
    void dutyCycleRunsOnOneThreadNamedAfterTheRole() {
        Probe p = new Probe("unit-worker-0", () -> 1);
        try (AgentRunner r = AgentRunner.start(p, IdleStrategy.backoff(), handler)) {
            await(() -> p.cycles.get() > 1000, "duty cycles");
            assertThat(r.thread().getName()).isEqualTo("unit-worker-0");
            assertThat(r.state()).isEqualTo(AgentRunner.State.RUNNING);
        }
        assertThat(p.startThread).isEqualTo("unit-worker-0");
        assertThat(p.closeThread).isEqualTo("unit-worker-0");
        assertThat(p.starts.get()).isEqualTo(1);
        assertThat(p.closes.get()).isEqualTo(1);
        assertThat(errors).isEmpty();
    }

    @Test
    void idleStrategySeesEveryWorkCountAndBacksOffOnlyWhenIdle() {
        int[] pattern = {0, 3, 0, 0, 1};
        AtomicInteger i = new AtomicInteger();
        List<Integer> seen = new ArrayList<>();
        IdleStrategy recording = new IdleStrategy() {
            @Override
            public void idle(int workCount) {
                synchronized (seen) {
                    seen.add(workCount);
                }
            }

            @Override
            public void reset() {
            }
        };
        Probe p = new Probe("unit-pattern", () -> {
            int n = i.getAndIncrement();
            return n < pattern.length ? pattern[n] : Agent.DONE;
        });
        AgentRunner r = AgentRunner.start(p, recording, handler);
        await(r::isClosed, "agent DONE");
        synchronized (seen) {
            assertThat(seen).containsExactly(0, 3, 0, 0, 1);
        }
        assertThat(p.closes.get()).isEqualTo(1);
    }

    @Test
    void idleAgentSleepsInTheEngineAndACommandWakesIt() {
        ProgressEngine pe = ProgressEngine.create();
        CommandQueue<Runnable> q = new CommandQueue<>(8, pe::notifyWork);
        AtomicInteger ran = new AtomicInteger();
        Probe p = new Probe("unit-sleeper", () -> q.drain(Runnable::run, 8));
        // One wait may last a minute: only the queue's waker can end it in time.
        try (AgentRunner r = AgentRunner.start(p, IdleStrategy.notifying(pe, 0, 0, 60 * SECOND), handler)) {
            await(() -> p.cycles.get() >= 1, "first cycle");
            long before = p.cycles.get();
            // Asleep: a few cycles at most over a while (a spinning loop would run millions).
            long end = System.nanoTime() + SECOND / 5;
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            assertThat(p.cycles.get() - before).as("cycles while idle").isLessThan(5);
            assertThat(q.offer(ran::incrementAndGet)).isTrue();
            await(() -> ran.get() == 1, "command ran after a wake-up");
            assertThat(r.close(5 * SECOND)).as("close wakes the sleeping agent").isTrue();
        }
        pe.close();
    }

    @Test
    void closeWhileBusyStopsAfterTheCurrentCycle() {
        Probe p = new Probe("unit-busy", () -> {
            for (int k = 0; k < 1000; k++) {
                Thread.onSpinWait();
            }
            return 1;
        });
        AgentRunner r = AgentRunner.start(p, IdleStrategy.busySpin(), handler);
        await(() -> p.cycles.get() > 100, "busy");
        assertThat(r.close(10 * SECOND)).isTrue();
        assertThat(r.state()).isEqualTo(AgentRunner.State.CLOSED);
        assertThat(r.thread().isAlive()).isFalse();
        assertThat(p.closes.get()).isEqualTo(1);
        assertThat(r.close(SECOND)).as("second close").isTrue();
        assertThat(p.closes.get()).isEqualTo(1);
    }

    @Test
    void errorsGoToTheHandlerAndTheLoopGoesOn() {
        AtomicInteger n = new AtomicInteger();
        Probe p = new Probe("unit-faulty", () -> {
            int k = n.incrementAndGet();
            if (k == 3) {
                throw new IllegalStateException("boom");
            }
            return k < 10 ? 1 : Agent.DONE;
        });
        AgentRunner r = AgentRunner.start(p, IdleStrategy.busySpin(), handler);
        await(r::isClosed, "DONE");
        assertThat(errors).hasSize(1);
        assertThat(errors.peek()).hasMessage("boom");
        assertThat(r.errorCount()).isEqualTo(1);
        assertThat(n.get()).isEqualTo(10);
    }

    @Test
    void failedStartClosesWithoutRunning() {
        Probe p = new Probe("unit-nostart", () -> 1) {
            @Override
            public void onStart() {
                throw new IllegalArgumentException("no device");
            }
        };
        AgentRunner r = AgentRunner.start(p, IdleStrategy.busySpin(), handler);
        await(r::isClosed, "closed");
        assertThat(p.cycles.get()).isZero();
        assertThat(p.closes.get()).isEqualTo(1);
        assertThat(errors).singleElement().satisfies(e -> assertThat(e).hasMessage("no device"));
    }

    @Test
    void closeBeforeStartNeverRuns() {
        Probe p = new Probe("unit-never", () -> 1);
        AgentRunner r = new AgentRunner(p, IdleStrategy.busySpin(), handler);
        assertThat(r.close(SECOND)).isTrue();
        assertThat(r.state()).isEqualTo(AgentRunner.State.CLOSED);
        assertThat(p.starts.get()).isZero();
        org.assertj.core.api.Assertions.assertThatThrownBy(r::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void compositeRunsAllClosesInReverseAndEndsWhenAllAreDone() {
        List<String> order = new ArrayList<>();
        AtomicInteger a = new AtomicInteger();
        AtomicInteger b = new AtomicInteger();
        Probe pa = new Probe("a", () -> a.incrementAndGet() <= 2 ? 1 : Agent.DONE) {
            @Override
            public void onClose() {
                synchronized (order) {
                    order.add("a");
                }
            }
        };
        Probe pb = new Probe("b", () -> b.incrementAndGet() <= 5 ? 2 : Agent.DONE) {
            @Override
            public void onClose() {
                synchronized (order) {
                    order.add("b");
                }
            }
        };
        AgentRunner r = AgentRunner.start(new CompositeAgent("unit-pair", pa, pb), IdleStrategy.busySpin(), handler);
        await(r::isClosed, "both DONE");
        assertThat(r.thread().getName()).isEqualTo("unit-pair");
        assertThat(a.get()).as("a not called after DONE").isEqualTo(3);
        assertThat(b.get()).isEqualTo(6);
        synchronized (order) {
            assertThat(order).containsExactly("b", "a");
        }
    }

    @Test
    void aDutyCycleAllocatesNothing() {
        // Measured on the runner thread itself: doWork, draining the queue and the idle strategy.
        CommandQueue<Runnable> q = new CommandQueue<>(64);
        Runnable cmd = () -> { };
        long[] best = {Long.MAX_VALUE};
        Agent agent = new Agent() {
            long cycle;
            long a0;

            @Override
            public int doWork() {
                cycle++;
                int w = q.drain(Runnable::run, 4);
                if (cycle > 20_000 && cycle % 50_000 == 1) {
                    long now = ThreadAllocation.current();
                    if (a0 != 0) {
                        best[0] = Math.min(best[0], now - a0);
                    }
                    a0 = now;
                    if (cycle > 300_000 || best[0] == 0) {
                        return DONE;
                    }
                }
                return w + (int) (cycle & 1);
            }

            @Override
            public String roleName() {
                return "unit-alloc";
            }
        };
        AgentRunner r = AgentRunner.start(agent, IdleStrategy.busySpin(), handler);
        while (!r.isClosed()) {
            q.offer(cmd); // may be full: the agent drains it
            Thread.yield();
        }
        assertThat(errors).isEmpty();
        assertThat(best[0]).as("bytes over 50,000 duty cycles").isZero();
    }
}
