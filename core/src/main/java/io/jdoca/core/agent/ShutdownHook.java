package io.jdoca.core.agent;

import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The apps' one Ctrl-C / SIGTERM handler. On a signal it runs {@code onSignal} (typically: set the
 * app's abort flag), gives the main thread up to {@code graceMillis} to finish by itself (print its
 * stats, release its resources) and then closes the given closeables in order (typically the agent
 * runners, data path last). An app that ends normally calls {@link #finished()} (or {@link #close()})
 * first, and a later JVM exit does not wait.
 *
 * <p>Threads: {@link #finished()} and {@link #close()} from any thread; the hook runs on its own.
 */
public final class ShutdownHook implements AutoCloseable {
    private final Thread hook;
    private final Runnable onSignal;
    private final long graceMillis;
    private final AutoCloseable[] closeInOrder;
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean signalled;

    private ShutdownHook(String name, Runnable onSignal, long graceMillis, AutoCloseable[] closeInOrder) {
        this.onSignal = Objects.requireNonNull(onSignal, "onSignal");
        this.graceMillis = graceMillis;
        this.closeInOrder = closeInOrder.clone();
        this.hook = new Thread(this::onShutdown, name);
    }

    /**
     * Installs a hook named {@code name}: on Ctrl-C / SIGTERM runs {@code onSignal}, waits up to
     * {@code graceMillis} for {@link #finished()}, then closes {@code closeInOrder} in order.
     */
    public static ShutdownHook install(String name, Runnable onSignal, long graceMillis,
            AutoCloseable... closeInOrder) {
        ShutdownHook h = new ShutdownHook(name, onSignal, graceMillis, closeInOrder);
        Runtime.getRuntime().addShutdownHook(h.hook);
        return h;
    }

    private void onShutdown() {
        if (finished.getCount() == 0) {
            return;
        }
        signalled = true;
        runSignal();
    }

    /** What the hook does on a signal; package-private so tests can run it without a JVM exit. */
    void runSignal() {
        try {
            onSignal.run();
        } catch (RuntimeException e) {
            System.err.println(hook.getName() + ": " + e);
        }
        try {
            finished.await(graceMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (AutoCloseable c : closeInOrder) {
            try {
                c.close();
            } catch (Exception e) {
                System.err.println(hook.getName() + ": closing " + c + ": " + e);
            }
        }
    }

    /** True if the hook ran because of a signal. */
    public boolean signalled() {
        return signalled;
    }

    /** The app has finished by itself: a hook running now (or later) does not wait. */
    public void finished() {
        finished.countDown();
    }

    /** {@link #finished()} and removes the hook unless the JVM is already shutting down. */
    @Override
    public void close() {
        finished();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook runs anyway and returns at once
        }
    }
}
