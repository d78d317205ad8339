package io.jdoca.core.exec;

import java.io.IOException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

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

    /**
     * Sleeps in a selector: an I/O agent's thread waits for its sockets, a {@link #wake()} or the
     * bound its owner gives for the next deadline, whichever comes first. Bounds under a millisecond
     * (the selector's resolution; 0 included: the owner wants to look again soon, e.g. while traffic
     * is recent) yield the core instead. Selected keys go to {@code onReady}, so the
     * selector's selected-key set is never filled: no allocation per sleep. With
     * {@code yieldAfterWork}, a duty cycle that did work also yields: on two cores shared by the
     * engines and their agents, the thread that takes the hand-off next gets the core sooner.
     */
    static final class Selecting implements IdleStrategy {
        private static final long SELECT_MIN_NANOS = 1_000_000L;
        private final Selector selector;
        private final LongSupplier maxSleepNanos;
        private final Consumer<SelectionKey> onReady;
        private final boolean yieldAfterWork;
        /**
         * The owner is in (or about to enter) {@code select}, and a wake came: with both volatile, a
         * waker either sees {@code selecting} and wakes the selector, or the owner sees {@code woken}
         * and does not select. A wake of a thread that is not selecting costs no system call here.
         */
        private volatile boolean selecting;
        private volatile boolean woken;

        Selecting(Selector selector, LongSupplier maxSleepNanos, Consumer<SelectionKey> onReady,
                boolean yieldAfterWork) {
            this.selector = selector;
            this.maxSleepNanos = maxSleepNanos;
            this.onReady = onReady;
            this.yieldAfterWork = yieldAfterWork;
        }

        @Override
        public void idle(int workCount) {
            if (workCount > 0) {
                if (yieldAfterWork) {
                    Thread.yield();
                }
                return;
            }
            long t = maxSleepNanos.getAsLong();
            if (t < SELECT_MIN_NANOS) {
                Thread.yield();
                return;
            }
            selecting = true;
            if (woken) {
                selecting = false;
                woken = false;
                return;
            }
            try {
                selector.select(onReady, t / 1_000_000L);
            } catch (IOException | ClosedSelectorException e) {
                // The owner closed it (its agent is ending) or the OS refused: do not spin on it.
                LockSupport.parkNanos(SELECT_MIN_NANOS);
            } finally {
                selecting = false;
                woken = false;
            }
        }

        @Override
        public void reset() {
        }

        @Override
        public void wake() {
            woken = true;
            if (selecting) {
                selector.wakeup();
            }
        }
    }
}
