package io.jdoca.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Bounded waiting for tests: never an unbounded loop. */
public final class Await {
    private Await() {
    }

    /** Polls {@code condition} (with {@code step} run between polls, e.g. a PE progress) until true or timeout. */
    public static void until(Duration timeout, BooleanSupplier condition, Runnable step, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            }
            step.run();
            Thread.onSpinWait();
        }
    }

    public static void until(Duration timeout, BooleanSupplier condition, String what) {
        until(timeout, condition, () -> {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for: " + what);
            }
        }, what);
    }
}
