package io.jdoca.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link IdleStrategy#sleeping}: spins and yields first, then sleeps in the owner's wait; work resets it. */
@Timeout(10)
class SleepingIdleStrategyTest {
    static final class Recorder implements IdleStrategy.Sleeper {
        final List<Long> sleeps = new ArrayList<>();
        int wakes;

        @Override
        public void sleep(long maxNanos) {
            sleeps.add(maxNanos);
        }

        @Override
        public void wake() {
            wakes++;
        }
    }

    @Test
    void sleepsInTheOwnersWaitOnlyAfterTheSpinsAndYields() {
        Recorder r = new Recorder();
        IdleStrategy idle = IdleStrategy.sleeping(r, 3, 2, 5_000_000L);
        for (int i = 0; i < 5; i++) {
            idle.idle(0);
        }
        assertThat(r.sleeps).isEmpty();
        idle.idle(0);
        idle.idle(0);
        assertThat(r.sleeps).containsExactly(5_000_000L, 5_000_000L);
    }

    @Test
    void workResetsTheBackOff() {
        Recorder r = new Recorder();
        IdleStrategy idle = IdleStrategy.sleeping(r, 1, 0, 1_000L);
        idle.idle(0);
        idle.idle(0);
        assertThat(r.sleeps).hasSize(1);
        idle.idle(3);
        idle.idle(0);
        assertThat(r.sleeps).hasSize(1);
        idle.idle(0);
        assertThat(r.sleeps).hasSize(2);
    }

    @Test
    void wakeEndsTheOwnersSleep() {
        Recorder r = new Recorder();
        IdleStrategy idle = IdleStrategy.sleeping(r, 0, 0, 1_000L);
        idle.wake();
        assertThat(r.wakes).isEqualTo(1);
    }
}
