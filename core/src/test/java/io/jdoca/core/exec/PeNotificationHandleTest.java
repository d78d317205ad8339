package io.jdoca.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.DocaError;
import io.jdoca.core.util.Epoll;
import io.jdoca.testkit.AllocationMeter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The progress engine's notification handle (DOCA's event handle, doca-core §3.4.5): an application waits on two
 * engines' handles and a socket in one {@code epoll} of its own, and wakes for each: an engine whose work is
 * completed by another thread ({@code notifyWork}), an engine with an event source (a file descriptor a context's
 * work arrives on), a context that can only bound the engine's sleep (the handle's timer), and the socket.
 */
class PeNotificationHandleTest {
    private static final long TAG_A = 1;
    private static final long TAG_B = 2;
    private static final long TAG_SOCKET = 3;

    /** Work another thread hands over: {@link #doWork()} counts it; the other thread calls notifyWork. */
    static final class Remote implements Pollable {
        final ConcurrentLinkedQueue<Integer> inbox = new ConcurrentLinkedQueue<>();
        final List<Integer> delivered = new ArrayList<>();
        long bound = Long.MAX_VALUE;

        @Override
        public int doWork() {
            int n = 0;
            Integer x;
            while ((x = inbox.poll()) != null) {
                delivered.add(x);
                n++;
            }
            return n;
        }

        @Override
        public boolean hasPendingWork() {
            return !inbox.isEmpty();
        }

        @Override
        public long maxSleepNanos() {
            return bound;
        }
    }

    /** The tags of the ready events of one wait of the application's own epoll (up to 5 s). */
    private static List<Long> waitOnce(int epfd, MemorySegment events, MemorySegment ts) {
        int n = Epoll.await(epfd, events, 8, 5_000_000_000L, ts);
        List<Long> tags = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            tags.add(Epoll.data(events, i));
        }
        return tags;
    }

    @Test
    @Timeout(60)
    void oneEpollWakesForEachEngineAndTheSocket() throws Exception {
        ProgressEngine a = ProgressEngine.create();
        ProgressEngine b = ProgressEngine.create();
        Remote ra = new Remote();
        Remote rb = new Remote();
        a.addPollable(ra);
        b.addPollable(rb);
        int[] sock = Epoll.socketPair();
        int ep = Epoll.create();
        try (Arena arena = Arena.ofConfined()) {
            assertThat(a.notificationHandle()).isNotNegative();
            assertThat(b.notificationHandle()).isNotEqualTo(a.notificationHandle());
            assertThat(Epoll.add(ep, a.notificationHandle(), TAG_A)).isZero();
            assertThat(Epoll.add(ep, b.notificationHandle(), TAG_B)).isZero();
            assertThat(Epoll.add(ep, sock[0], TAG_SOCKET)).isZero();
            MemorySegment events = Epoll.events(arena, 8);
            MemorySegment ts = arena.allocate(Epoll.TIMESPEC);
            MemorySegment one = arena.allocate(8);

            // armed and idle: nothing is readable
            a.requestNotification();
            b.requestNotification();
            assertThat(Epoll.await(ep, events, 8, 0, ts)).isZero();

            // engine a's work arrives from another thread
            Thread t = Thread.ofPlatform().start(() -> {
                ra.inbox.add(1);
                a.notifyWork();
            });
            assertThat(waitOnce(ep, events, ts)).containsExactly(TAG_A);
            t.join();
            a.clearNotification();
            assertThat(a.progress()).isTrue();
            assertThat(ra.delivered).containsExactly(1);
            a.requestNotification();

            // then engine b's
            t = Thread.ofPlatform().start(() -> {
                rb.inbox.add(2);
                b.notifyWork();
            });
            assertThat(waitOnce(ep, events, ts)).containsExactly(TAG_B);
            t.join();
            b.clearNotification();
            assertThat(b.progress()).isTrue();
            assertThat(rb.delivered).containsExactly(2);
            b.requestNotification();

            // then the socket: the engines stay quiet
            one.set(ValueLayout.JAVA_BYTE, 0, (byte) 'x');
            assertThat(Epoll.write(sock[1], one, 1)).isEqualTo(1);
            assertThat(waitOnce(ep, events, ts)).containsExactly(TAG_SOCKET);
            assertThat(Epoll.read(sock[0], one, 1)).isEqualTo(1);
            assertThat(Epoll.await(ep, events, 8, 0, ts)).isZero();

            // work already pending when the application arms: the handle is readable at once
            a.clearNotification();
            ra.inbox.add(3);
            a.requestNotification();
            assertThat(waitOnce(ep, events, ts)).containsExactly(TAG_A);
            a.clearNotification();
            a.progress();
            assertThat(ra.delivered).containsExactly(1, 3);
        } finally {
            Epoll.close(ep);
            Epoll.close(sock[0]);
            Epoll.close(sock[1]);
            a.close();
            b.close();
        }
    }

    @Test
    @Timeout(60)
    void anEventSourceWakesTheHandleAndTakesItsEventOnClear() throws Exception {
        ProgressEngine pe = ProgressEngine.create();
        int[] sock = Epoll.socketPair();
        List<Integer> ready = new ArrayList<>();
        MemorySegment buf = Arena.ofAuto().allocate(8);
        ProgressEngine.EventSource src = new ProgressEngine.EventSource() {
            @Override
            public int fd() {
                return sock[0];
            }

            @Override
            public void onReady() {
                ready.add((int) Epoll.read(sock[0], buf, 8)); // takes what woke it, as a completion channel would
            }
        };
        try {
            assertThat(pe.addEventSource(src)).isEqualTo(DocaError.SUCCESS);
            pe.requestNotification();
            MemorySegment one = Arena.ofAuto().allocate(1);
            Thread t = Thread.ofPlatform().start(() -> Epoll.write(sock[1], one, 1));
            // the engine's own wait sleeps on the handle: the source's fd wakes it
            long t0 = System.nanoTime();
            pe.waitForNotification(TimeUnit.SECONDS.toNanos(10));
            t.join();
            assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(5));
            pe.clearNotification();
            assertThat(ready).containsExactly(1);
            pe.removeEventSource(src);
        } finally {
            Epoll.close(sock[0]);
            Epoll.close(sock[1]);
            pe.close();
        }
    }

    @Test
    @Timeout(60)
    void aContextThatOnlyBoundsTheSleepMakesTheHandleReadableWhenItMustLookAgain() {
        ProgressEngine pe = ProgressEngine.create();
        Remote r = new Remote();
        r.bound = TimeUnit.MILLISECONDS.toNanos(20); // fed by another process: look again within 20 ms
        pe.addPollable(r);
        int ep = Epoll.create();
        try (Arena arena = Arena.ofConfined()) {
            Epoll.add(ep, pe.notificationHandle(), TAG_A);
            MemorySegment events = Epoll.events(arena, 8);
            MemorySegment ts = arena.allocate(Epoll.TIMESPEC);
            pe.requestNotification();
            long t0 = System.nanoTime();
            assertThat(waitOnce(ep, events, ts)).containsExactly(TAG_A);
            long waited = System.nanoTime() - t0;
            assertThat(waited).isBetween(TimeUnit.MILLISECONDS.toNanos(15), TimeUnit.SECONDS.toNanos(4));
            pe.clearNotification();
            assertThat(Epoll.await(ep, events, 8, 0, ts)).as("cleared").isZero();
        } finally {
            Epoll.close(ep);
            pe.close();
        }
    }

    @Test
    @Timeout(60)
    void aHandleAskedForAfterTheRequestIsArmedAsTheRequestWouldHaveArmedIt() {
        ProgressEngine pe = ProgressEngine.create();
        Remote r = new Remote();
        r.bound = TimeUnit.MILLISECONDS.toNanos(20);
        pe.addPollable(r);
        int ep = Epoll.create();
        try (Arena arena = Arena.ofConfined()) {
            pe.requestNotification();
            Epoll.add(ep, pe.notificationHandle(), TAG_A);
            long t0 = System.nanoTime();
            assertThat(waitOnce(ep, Epoll.events(arena, 8), arena.allocate(Epoll.TIMESPEC)))
                    .containsExactly(TAG_A);
            assertThat(System.nanoTime() - t0).isBetween(TimeUnit.MILLISECONDS.toNanos(15),
                    TimeUnit.SECONDS.toNanos(4));
            pe.clearNotification();
        } finally {
            Epoll.close(ep);
            pe.close();
        }
    }

    /** Nobody asked for the handle and no context watches an fd: the engine's own wait parks, with no epoll set. */
    @Test
    @Timeout(60)
    void anEngineWhoseHandleNobodyAskedForParksAndOpensNone() {
        ProgressEngine pe = ProgressEngine.create();
        Remote r = new Remote();
        r.bound = TimeUnit.MICROSECONDS.toNanos(100); // as the shm transport: look again every 100 us
        pe.addPollable(r);
        try {
            for (int i = 0; i < 100; i++) {
                pe.requestNotification();
                assertThat(pe.waitForNotification(TimeUnit.SECONDS.toNanos(1))).isFalse();
                pe.clearNotification();
            }
            r.inbox.add(7);
            pe.requestNotification();
            assertThat(pe.waitForNotification(TimeUnit.SECONDS.toNanos(1))).as("pending work").isTrue();
            pe.clearNotification();
            assertThat(pe.handleOpen()).isFalse();
            assertThat(pe.notificationHandle()).isNotNegative();
            assertThat(pe.handleOpen()).isTrue();
        } finally {
            pe.close();
        }
    }

    @Test
    @Timeout(120)
    void theNotificationCycleAllocatesNothing() {
        cycleAllocatesNothing(false);
        cycleAllocatesNothing(true);
    }

    private static void cycleAllocatesNothing(boolean withHandle) {
        ProgressEngine pe = ProgressEngine.create();
        Remote r = new Remote();
        pe.addPollable(r);
        if (withHandle) {
            assertThat(pe.notificationHandle()).isNotNegative();
        }
        try {
            AllocationMeter.Result res = AllocationMeter.steadyState(200_000, 50_000, () -> {
                pe.requestNotification();
                pe.notifyWork(); // armed: writes the eventfd
                pe.waitForNotification(1_000_000_000L);
                pe.clearNotification();
                pe.progress();
            });
            assertThat(res.bytes()).as("bytes allocated over %d notification cycles (handle: %s): %s", res.ops(),
                    withHandle, res).isZero();
        } finally {
            pe.close();
        }
    }
}
