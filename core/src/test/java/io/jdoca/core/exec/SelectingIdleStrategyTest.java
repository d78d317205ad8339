package io.jdoca.core.exec;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link IdleStrategy#selecting}: an idle owner sleeps in its selector until input, a wake or its bound. */
class SelectingIdleStrategyTest {
    private static final long LONG_SLEEP = 30_000_000_000L;

    /** Runs one idle cycle on a new thread; returns the latch it counts down when the cycle ended. */
    private static CountDownLatch idleOnce(IdleStrategy s) {
        CountDownLatch done = new CountDownLatch(1);
        Thread.ofPlatform().daemon().start(() -> {
            s.idle(0);
            done.countDown();
        });
        return done;
    }

    @Test
    @Timeout(20)
    void wakeEndsASleepInTheSelector() throws Exception {
        try (Selector sel = Selector.open()) {
            IdleStrategy s = IdleStrategy.selecting(sel, () -> LONG_SLEEP, k -> { }, false);
            CountDownLatch done = idleOnce(s);
            // Wake repeatedly until the sleeper ends: a wake before it entered select must not be lost either.
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!done.await(10, TimeUnit.MILLISECONDS)) {
                assertTrue(System.nanoTime() < deadline, "the sleeper did not wake");
                s.wake();
            }
        }
    }

    @Test
    @Timeout(20)
    void aWakeBeforeTheSleepIsNotLost() throws Exception {
        try (Selector sel = Selector.open()) {
            IdleStrategy s = IdleStrategy.selecting(sel, () -> LONG_SLEEP, k -> { }, false);
            s.wake();
            assertTrue(idleOnce(s).await(10, TimeUnit.SECONDS),
                    "a wake that came first must end the next sleep at once");
        }
    }

    @Test
    @Timeout(20)
    void inputOnAWatchedSocketEndsTheSleep() throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (Selector sel = Selector.open(); ServerSocketChannel ss = ServerSocketChannel.open()
                .bind(new InetSocketAddress(lo, 0));
                SocketChannel out = SocketChannel.open(ss.getLocalAddress()); SocketChannel in = ss.accept()) {
            in.configureBlocking(false);
            in.register(sel, SelectionKey.OP_READ);
            IdleStrategy s = IdleStrategy.selecting(sel, () -> LONG_SLEEP, k -> { }, false);
            CountDownLatch done = idleOnce(s);
            out.write(ByteBuffer.wrap(new byte[] {1}));
            assertTrue(done.await(10, TimeUnit.SECONDS), "input must end the sleep");
        }
    }

    @Test
    @Timeout(20)
    void workOrAZeroBoundDoesNotSleep() throws Exception {
        try (Selector sel = Selector.open()) {
            IdleStrategy s = IdleStrategy.selecting(sel, () -> 0L, k -> { }, false);
            assertTrue(idleOnce(s).await(10, TimeUnit.SECONDS), "bound 0: no sleep");
            IdleStrategy busy = IdleStrategy.selecting(sel, () -> LONG_SLEEP, k -> { }, false);
            long t0 = System.nanoTime();
            busy.idle(1);
            assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "work: no sleep");
        }
    }
}
