package io.jdoca.nvmf.bdev;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.sta.backend.FileBackend;
import io.jdoca.sta.backend.MemoryBackend;
import io.jdoca.sta.backend.StaBackendChannel;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The latency wrapper every bdev gets must keep its delegate's asynchronous channel (the file
 * back-end's io_uring) and time operations through it. Fails without {@code openChannel} in the
 * wrapper: the base class answers null, so every file bdev I/O ran synchronously on the engine.
 */
class TimedBackendTest {
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void fileBdevKeepsItsChannelAndTimesIt(@TempDir Path dir) {
        FileBackend file = FileBackend.open("f0", dir.resolve("f0.img"), 1L << 20);
        TimedBackend timed = new TimedBackend(file);
        StaBackendChannel ch = timed.openChannel(8);
        assertThat(ch).as("the file back-end's channel through the wrapper").isNotNull();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(4096, 4096);
            buf.fill((byte) 0x5a);
            assertThat(ch.submit(StaBackendChannel.OP_WRITE, 8192, buf, 4096, 3)).isTrue();
            int[] status = {-1};
            int[] tag = {-1};
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (tag[0] < 0 && System.nanoTime() < deadline) {
                ch.poll((t, st) -> {
                    tag[0] = t;
                    status[0] = st;
                });
            }
            assertThat(tag[0]).isEqualTo(3);
            assertThat(status[0]).isZero();
            assertThat(timed.writeLatency().getTotalCount()).isEqualTo(1);
            assertThat(timed.readLatency().getTotalCount()).isZero();
        } finally {
            ch.close();
        }
    }

    /**
     * The timing wrapper must pass on every overridable operation of a channel: one it inherits instead runs the
     * base class's default (e.g. no selectable, so an engine on RBD woke every 50 us instead of sleeping).
     */
    @Test
    void timedChannelForwardsEveryChannelOperation() throws Exception {
        Class<?> timed = Class.forName(TimedBackend.class.getName() + "$TimedChannel");
        for (java.lang.reflect.Method m : StaBackendChannel.class.getDeclaredMethods()) {
            int mod = m.getModifiers();
            if (java.lang.reflect.Modifier.isPublic(mod) && !java.lang.reflect.Modifier.isStatic(mod)
                    && !java.lang.reflect.Modifier.isFinal(mod)) {
                assertThat(timed.getDeclaredMethod(m.getName(), m.getParameterTypes()))
                        .as("TimedChannel overrides %s", m.getName()).isNotNull();
            }
        }
    }

    @Test
    void inlineBackEndHasNoChannel() {
        assertThat(new TimedBackend(new MemoryBackend("m0", 1L << 20)).openChannel(8)).isNull();
    }
}
