package io.jdoca.core.exec;

import java.util.concurrent.locks.LockSupport;

/** The {@link IdleStrategy} implementations; use the factory methods on the interface. */
final class IdleStrategies {
    private IdleStrategies() {
    }

    static final class BusySpin implements IdleStrategy {
        @Override
        public void idle(int workCount) {
            if (workCount == 0) {
                Thread.onSpinWait();
            }
        }

        @Override
        public void reset() {
        }
    }

    static final class Yielding implements IdleStrategy {
        @Override
        public void idle(int workCount) {
            if (workCount == 0) {
                Thread.yield();
            }
        }

        @Override
        public void reset() {
        }
    }

    static final class Park implements IdleStrategy {
        private final long nanos;

        Park(long nanos) {
            this.nanos = nanos;
        }

        @Override
        public void idle(int workCount) {
            if (workCount == 0) {
                LockSupport.parkNanos(nanos);
            }
        }

        @Override
        public void reset() {
        }
    }

    static class Backoff implements IdleStrategy {
        private final int maxSpins;
        private final int maxYields;
        private final long minPark;
        private final long maxPark;
        int spins;
        int yields;
        long park;

        Backoff(int maxSpins, int maxYields, long minPark, long maxPark) {
            this.maxSpins = maxSpins;
            this.maxYields = maxYields;
            this.minPark = minPark;
            this.maxPark = maxPark;
            reset();
        }

        @Override
        public void idle(int workCount) {
            if (workCount > 0) {
                reset();
                return;
            }
            if (spins < maxSpins) {
                spins++;
                Thread.onSpinWait();
            } else if (yields < maxYields) {
                yields++;
                Thread.yield();
            } else {
                sleep(park);
                park = Math.min(park << 1, maxPark);
            }
        }

        void sleep(long nanos) {
            LockSupport.parkNanos(nanos);
        }

        @Override
        public void reset() {
            spins = 0;
            yields = 0;
            park = minPark;
        }
    }

    /** A {@link Backoff} whose sleep is the owner's own wait ({@link IdleStrategy.Sleeper}). */
    static final class Sleeping extends Backoff {
        private final IdleStrategy.Sleeper sleeper;

        Sleeping(IdleStrategy.Sleeper sleeper, int spins, int yields, long maxSleepNanos) {
            super(spins, yields, maxSleepNanos, maxSleepNanos);
            this.sleeper = java.util.Objects.requireNonNull(sleeper, "sleeper");
        }

        @Override
        void sleep(long nanos) {
            sleeper.sleep(nanos);
        }

        @Override
        public void wake() {
            sleeper.wake();
        }
    }

    /** Sleeps in a progress engine's notification mode. */
    static final class PeSleeper implements IdleStrategy.Sleeper {
        private final ProgressEngine pe;

        PeSleeper(ProgressEngine pe) {
            this.pe = java.util.Objects.requireNonNull(pe, "pe");
        }

        @Override
        public void sleep(long maxNanos) {
            pe.requestNotification();
            pe.waitForNotification(maxNanos);
            pe.clearNotification();
        }

        @Override
        public void wake() {
            pe.notifyWork();
        }
    }
}
