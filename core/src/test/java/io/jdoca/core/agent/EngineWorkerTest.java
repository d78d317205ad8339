package io.jdoca.core.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EngineWorkerTest {
    private static final long T = TimeUnit.SECONDS.toNanos(10);

    @Test
    void commandsRunOnTheRoleThreadWhichProgressesItsEngine() {
        try (EngineWorker w = EngineWorker.withEngine("unit-storage-worker", IdleStrategy.backoff())) {
            assertThat(w.thread().getName()).isEqualTo("unit-storage-worker");
            assertThat(w.execute(() -> Thread.currentThread().getName(), T)).isEqualTo("unit-storage-worker");
            long misses = w.execute(() -> w.pe().misses(), T);
            // The loop keeps progressing the engine between commands.
            io.jdoca.testkit.Await.until(java.time.Duration.ofSeconds(20),
                    () -> w.execute(() -> w.pe().misses(), T) > misses + 10, "engine progressed");
            w.execute(() -> {
                w.pe().close();
                return null;
            }, T);
        }
    }

    @Test
    void anEngineCanBeAttachedLaterAndDropped() {
        try (EngineWorker w = new EngineWorker("unit-late-engine", IdleStrategy.backoff(), null)) {
            assertThat(w.execute(w::pe, T)).isNull();
            ProgressEngine pe = w.execute(() -> {
                ProgressEngine p = ProgressEngine.create();
                w.attach(p);
                return p;
            }, T);
            assertThat(w.execute(w::pe, T)).isSameAs(pe);
            w.run(() -> {
                w.attach(null);
                pe.close();
            }, T);
            assertThat(w.execute(w::pe, T)).isNull();
        }
    }

    @Test
    void aCommandsExceptionReachesTheCallerAndTheWorkerGoesOn() {
        try (EngineWorker w = EngineWorker.withEngine("unit-failing-command", IdleStrategy.backoff())) {
            assertThatThrownBy(() -> w.execute(() -> {
                throw new IllegalArgumentException("bad flag");
            }, T)).isInstanceOf(IllegalArgumentException.class).hasMessage("bad flag");
            assertThat(w.execute(() -> 42, T)).isEqualTo(42);
        }
    }

    @Test
    void aClosedWorkerRefusesCommands() {
        EngineWorker w = EngineWorker.withEngine("unit-closed", IdleStrategy.backoff());
        assertThat(w.close(T)).isTrue();
        assertThat(w.thread().isAlive()).isFalse();
        assertThatThrownBy(() -> w.execute(() -> 1, T)).isInstanceOfSatisfying(DocaException.class,
                e -> assertThat(e.error()).isEqualTo(DocaError.BAD_STATE));
    }
}
