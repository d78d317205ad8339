package io.jdoca.nvmf.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.nvmf.perf.HybridPoll.Action;
import org.junit.jupiter.api.Test;

/** The initiator's hybrid wait policy, driven with a fake clock (microseconds here, nanoseconds inside). */
class HybridPollTest {
    private static final long US = 1_000L;

    /** Teaches the policy a steady command latency. */
    private static HybridPoll learned(long latencyUs) {
        HybridPoll p = new HybridPoll();
        for (int i = 0; i < 200; i++) {
            p.completed(latencyUs * US);
        }
        return p;
    }

    @Test
    void untaughtItSpinsAndThenBlocksNeverSleeping() {
        HybridPoll p = new HybridPoll();
        assertThat(p.idle(1_000 * US, 1_000 * US)).isEqualTo(Action.SPIN);
        assertThat(p.idle(1_150 * US, 1_000 * US)).isEqualTo(Action.SPIN);
        assertThat(p.idle(1_000 * US + HybridPoll.SPIN_SLACK_NANOS, 1_000 * US)).isEqualTo(Action.BLOCK);
    }

    @Test
    void itSleepsUntilTheOldestCommandIsHalfTheMeanLatencyOld() {
        HybridPoll p = learned(600);
        assertThat(p.meanLatency()).isBetween(590 * US, 600 * US);
        // All commands just sent: sleep for about half the latency.
        assertThat(p.idle(10_000 * US, 10_000 * US)).isEqualTo(Action.SLEEP);
        assertThat(p.sleepNanos()).isBetween(290 * US, 300 * US);
        // The oldest command already 100 µs old: sleep 100 µs less.
        assertThat(p.idle(20_000 * US, 19_900 * US)).isEqualTo(Action.SLEEP);
        assertThat(p.sleepNanos()).isBetween(190 * US, 200 * US);
    }

    @Test
    void pastHalfTheMeanItSpinsAndFarPastTheMeanItBlocks() {
        HybridPoll p = learned(600);
        assertThat(p.idle(10_000 * US, 10_000 * US - 290 * US)).isEqualTo(Action.SPIN); // 10 µs of sleep: not worth it
        assertThat(p.idle(10_000 * US, 10_000 * US - 700 * US)).isEqualTo(Action.SPIN);
        assertThat(p.idle(10_000 * US, 10_000 * US - 600 * US - HybridPoll.SPIN_SLACK_NANOS)).isEqualTo(Action.BLOCK);
    }

    @Test
    void shortLatenciesAreSpunThroughNotSlept() {
        HybridPoll p = learned(40); // the memory back-end: answers within tens of microseconds
        assertThat(p.idle(5_000 * US, 5_000 * US)).isEqualTo(Action.SPIN);
    }

    @Test
    void theSleepIsShortenedByTheLearnedOvershootButByNoMoreThanHalf() {
        HybridPoll p = learned(600);
        for (int i = 0; i < 20; i++) {
            long now = (100_000 + i * 1_000) * US;
            assertThat(p.idle(now, now)).isEqualTo(Action.SLEEP);
            p.woke(now + p.sleepNanos() + 40 * US, false); // every sleep ends 40 µs late
        }
        assertThat(p.overshoot()).isBetween(39 * US, 40 * US);
        assertThat(p.idle(200_000 * US, 200_000 * US)).isEqualTo(Action.SLEEP);
        assertThat(p.sleepNanos()).isBetween(255 * US, 262 * US); // 300 less 40

        for (int i = 0; i < 20; i++) {
            long now = (300_000 + i * 2_000) * US;
            assertThat(p.idle(now, now)).isEqualTo(Action.SLEEP);
            p.woke(now + p.sleepNanos() + 1_000 * US, true); // a timer gone wild: 1 ms late
        }
        assertThat(p.idle(400_000 * US, 400_000 * US)).isEqualTo(Action.SLEEP);
        assertThat(p.sleepNanos()).isBetween(145 * US, 150 * US); // half the mean less at most a quarter of it
    }

    @Test
    void aStallIsLearnedAsAtMostTheCap() {
        HybridPoll p = learned(600);
        p.completed(60_000_000_000L); // one command answered after a minute
        assertThat(p.meanLatency()).isLessThan(600 * US + HybridPoll.MAX_LEARNED_NANOS / 16 + US);
    }
}
