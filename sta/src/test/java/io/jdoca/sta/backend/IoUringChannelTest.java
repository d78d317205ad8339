package io.jdoca.sta.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The io_uring channel's wait: an engine with operations outstanding sleeps in
 * {@code io_uring_enter} and is woken by the completion, not by a timer; with nothing ready it
 * returns after its timeout. Socket-free; skipped when the kernel refuses io_uring.
 */
class IoUringChannelTest {
    private static final int BS = 4096;

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void awaitReturnsWhenTheCompletionIsReadyLongBeforeItsTimeout(@TempDir Path dir) {
        FileBackend file = FileBackend.open("f", dir.resolve("f.img"), 1 << 20);
        StaBackendChannel ch = file.openChannel(8);
        if (ch == null) {
            file.close();
        }
        assumeTrue(ch != null, "skipped: io_uring unavailable on this kernel");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(BS, BS);
            int[] done = new int[2];
            StaBackendChannel.Sink sink = (tag, st) -> {
                done[0]++;
                done[1] = st;
            };
            for (int i = 0; i < 20; i++) {
                assertTrue(ch.submit(StaBackendChannel.OP_READ, (long) i * BS, buf, BS, i));
                long t0 = System.nanoTime();
                ch.await(TimeUnit.SECONDS.toNanos(10)); // submits and sleeps until the read completes
                long waited = System.nanoTime() - t0;
                // Ready at once after the wait: await returned because the completion arrived.
                assertEquals(1, ch.poll(sink), "completion not ready after await");
                assertEquals(0, done[1]);
                assertTrue(waited < TimeUnit.SECONDS.toNanos(5), "await slept " + waited / 1_000_000 + " ms");
            }
            assertEquals(20, done[0]);
            assertEquals(0, ch.outstanding());
        } finally {
            ch.close();
            file.close();
        }
    }

    /** A burst goes to the kernel every few operations, not only at the engine's next poll. */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aBurstIsSubmittedEveryFewOperationsNotOnlyAtTheNextPoll(@TempDir Path dir) {
        int batch = IoUringChannel.SUBMIT_BATCH;
        assumeTrue(batch > 1, "skipped: -Djdoca.sta.uring_submit_batch=" + batch);
        FileBackend file = FileBackend.open("f", dir.resolve("f.img"), 1 << 20);
        StaBackendChannel sc = file.openChannel(32);
        if (sc == null) {
            file.close();
        }
        assumeTrue(sc != null, "skipped: io_uring unavailable on this kernel");
        IoUringChannel ch = (IoUringChannel) sc;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate((long) BS * 2 * batch, BS);
            int[] done = new int[1];
            for (int i = 0; i < 2 * batch; i++) {
                assertTrue(ch.submit(StaBackendChannel.OP_READ, (long) i * BS, buf.asSlice((long) i * BS, BS), BS, i));
                assertEquals((i + 1) % batch, ch.unsubmitted(), "queued after " + (i + 1) + " submits");
            }
            while (done[0] < 2 * batch) {
                ch.await(TimeUnit.SECONDS.toNanos(1));
                ch.poll((tag, st) -> {
                    assertEquals(0, st);
                    done[0]++;
                });
            }
            assertEquals(0, ch.outstanding());
        } finally {
            ch.close();
            file.close();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void awaitWithNothingReadyReturnsAfterItsTimeout(@TempDir Path dir) {
        FileBackend file = FileBackend.open("f", dir.resolve("f.img"), 1 << 20);
        StaBackendChannel ch = file.openChannel(8);
        if (ch == null) {
            file.close();
        }
        assumeTrue(ch != null, "skipped: io_uring unavailable on this kernel");
        try {
            long t0 = System.nanoTime();
            ch.await(TimeUnit.MILLISECONDS.toNanos(20));
            long waited = System.nanoTime() - t0;
            assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(15), "returned after " + waited / 1000 + " us");
            assertTrue(waited < TimeUnit.SECONDS.toNanos(5), "slept " + waited / 1_000_000 + " ms");
        } finally {
            ch.close();
            file.close();
        }
    }
}
