package io.jdoca.core.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The in-process rings under real concurrency: order and hand-over (SPSC), exactly-once claims (SPMC). */
@Timeout(60)
class RingTest {
    @Test
    void spscRingHandsOverEverythingInOrder() throws Exception {
        SpscRing ring = new SpscRing(64);
        int n = 200_000;
        Integer[] items = new Integer[n];
        for (int i = 0; i < n; i++) {
            items[i] = i;
        }
        Thread producer = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < n; i++) {
                while (!ring.offer(items[i])) {
                    Thread.onSpinWait();
                }
            }
        });
        for (int i = 0; i < n; i++) {
            Object o;
            while ((o = ring.poll()) == null) {
                Thread.onSpinWait();
            }
            assertEquals(i, (Integer) o);
        }
        producer.join();
        assertTrue(ring.isEmpty());
    }

    @Test
    void spmcRingGivesEachEntryToExactlyOneConsumer() throws Exception {
        SpmcRing ring = new SpmcRing(128);
        int n = 100_000;
        AtomicInteger taken = new AtomicInteger();
        List<Set<Integer>> seen = new ArrayList<>();
        List<Thread> consumers = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            Set<Integer> mine = new HashSet<>();
            seen.add(mine);
            consumers.add(Thread.ofPlatform().start(() -> {
                while (taken.get() < n) {
                    Object o = ring.poll();
                    if (o != null) {
                        mine.add((Integer) o);
                        taken.incrementAndGet();
                    } else {
                        Thread.onSpinWait();
                    }
                }
            }));
        }
        for (int i = 0; i < n; i++) {
            Integer v = i;
            while (!ring.offer(v)) {
                Thread.onSpinWait();
            }
        }
        for (Thread t : consumers) {
            t.join(30_000);
        }
        Set<Integer> all = new HashSet<>();
        int total = 0;
        for (Set<Integer> s : seen) {
            total += s.size();
            all.addAll(s);
        }
        assertEquals(n, total, "no entry taken twice");
        assertEquals(n, all.size(), "every entry taken");
    }
}
