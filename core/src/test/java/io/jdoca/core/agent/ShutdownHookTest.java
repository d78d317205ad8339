package io.jdoca.core.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ShutdownHookTest {
    @Test
    void aSignalAbortsWaitsForTheAppAndClosesInOrder() {
        List<String> order = new ArrayList<>();
        ShutdownHook h = ShutdownHook.install("test-ctrl-c", () -> order.add("abort"), 0,
                () -> order.add("runner-1"), () -> order.add("runner-2"));
        try {
            h.runSignal();
            assertThat(order).containsExactly("abort", "runner-1", "runner-2");
        } finally {
            h.close();
        }
    }

    @Test
    void anAppThatFinishedIsNotWaitedFor() {
        ShutdownHook h = ShutdownHook.install("test-ctrl-c", () -> { }, 60_000);
        h.finished();
        long t0 = System.nanoTime();
        h.runSignal();
        assertThat(System.nanoTime() - t0).as("no grace wait").isLessThan(TimeUnit.SECONDS.toNanos(10));
        h.close();
    }
}
