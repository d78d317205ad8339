package io.jdoca.core.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.testkit.AllocationMeter;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CommandQueueTest {
    @Test
    void boundedFifoWithCapacityRoundedUp() {
        CommandQueue<Integer> q = new CommandQueue<>(3);
        assertThat(q.capacity()).isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            assertThat(q.offer(i)).isTrue();
        }
        assertThat(q.offer(99)).as("full").isFalse();
        assertThat(q.size()).isEqualTo(4);
        assertThat(q.poll()).isEqualTo(0);
        assertThat(q.offer(4)).isTrue();
        for (int i = 1; i <= 4; i++) {
            assertThat(q.poll()).isEqualTo(i);
        }
        assertThat(q.poll()).isNull();
        assertThat(q.isEmpty()).isTrue();
    }

    @Test
    void badCapacityIsRejected() {
        assertThatThrownBy(() -> new CommandQueue<>(0)).hasMessageContaining("capacity");
    }

    @Test
    void wakerRunsOnEveryOfferThatSucceeds() {
        AtomicInteger wakes = new AtomicInteger();
        CommandQueue<String> q = new CommandQueue<>(1, wakes::incrementAndGet);
        assertThat(q.capacity()).isEqualTo(2);
        assertThat(q.offer("a")).isTrue();
        assertThat(q.offer("b")).isTrue();
        assertThat(q.offer("c")).isFalse();
        assertThat(wakes.get()).isEqualTo(2);
        assertThat(q.poll()).isEqualTo("a");
        assertThat(q.poll()).isEqualTo("b");
        assertThat(q.poll()).isNull();
    }

    @Test
    void twoProducersLoseNothingAndKeepEachProducersOrder() throws Exception {
        int perProducer = 200_000;
        CommandQueue<long[]> q = new CommandQueue<>(64);
        // Pre-built commands: {producer, sequence}; offering them allocates nothing.
        long[][][] cmds = new long[2][perProducer][];
        for (int p = 0; p < 2; p++) {
            for (int i = 0; i < perProducer; i++) {
                cmds[p][i] = new long[] {p, i};
            }
        }
        CountDownLatch go = new CountDownLatch(1);
        Thread[] producers = new Thread[2];
        for (int p = 0; p < 2; p++) {
            long[][] mine = cmds[p];
            producers[p] = Thread.ofPlatform().name("producer-" + p).start(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (long[] c : mine) {
                    while (!q.offer(c)) {
                        Thread.onSpinWait();
                    }
                }
            });
        }
        go.countDown();
        long[] next = new long[2];
        long received = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(50);
        while (received < 2L * perProducer) {
            long[] c = q.poll();
            if (c == null) {
                assertThat(System.nanoTime()).as("received %d", received).isLessThan(deadline);
                Thread.onSpinWait();
                continue;
            }
            int p = (int) c[0];
            assertThat(c[1]).as("producer %d order", p).isEqualTo(next[p]);
            next[p]++;
            received++;
        }
        for (Thread t : producers) {
            t.join(10_000);
        }
        assertThat(next).containsExactly(perProducer, perProducer);
        assertThat(q.poll()).isNull();
    }

    @Test
    void offerAndPollAllocateNothing() {
        CommandQueue<Runnable> q = new CommandQueue<>(16, () -> { });
        Runnable cmd = () -> { };
        AllocationMeter.Result r = AllocationMeter.steadyState(100_000, 100_000, () -> {
            q.offer(cmd);
            q.offer(cmd);
            q.poll();
            q.poll();
        });
        assertThat(r.bytes()).as("bytes over %d offer/poll pairs", r.ops()).isZero();
    }
}
