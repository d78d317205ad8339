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

    static final class Notifying extends Backoff {
        private final ProgressEngine pe;

        Notifying(ProgressEngine pe, int spins, int yields, long maxWait) {
            super(spins, yields, maxWait, maxWait);
            this.pe = pe;
        }

        @Override
        void sleep(long nanos) {
            pe.requestNotification();
            pe.waitForNotification(nanos);
            pe.clearNotification();
        }

        @Override
        public void wake() {
            pe.notifyWork();
        }
    }
}
