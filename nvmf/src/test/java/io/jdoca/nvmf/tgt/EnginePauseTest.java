package io.jdoca.nvmf.tgt;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.rpc.RpcServer;
import io.jdoca.testkit.Await;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 28 acceptance 4's yardstick: the IO engine measures its own pauses (time between two duty
 * cycles, asleep excluded) and nvmf_get_stats reports them, since start and since
 * jdoca_reset_engine_pauses. A pause made on the engine thread (a posted action that blocks it for
 * 200 ms) shows up; a new window forgets it.
 */
@Timeout(60)
class EnginePauseTest {
    static final ObjectMapper M = new ObjectMapper();
    static final long BLOCK_MS = 200;

    static JsonNode pollGroup(RpcServer s) throws Exception {
        JsonNode r = M.readTree(s.handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"nvmf_get_stats\"}"));
        return r.get("result").get("poll_groups").get(0);
    }

    @Test
    void aPauseOnTheEngineThreadIsMeasuredAndANewWindowForgetsIt() throws Exception {
        try (NvmfTarget t = new NvmfTarget(TargetConfig.parse("{\"io_threads\":1}"))) {
            t.start();
            RpcServer s = new RpcServer(t, null);
            CountDownLatch ran = new CountDownLatch(1);
            t.ioContexts().get(0).post(() -> {
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BLOCK_MS);
                while (System.nanoTime() < end) {
                    Thread.onSpinWait(); // the engine is busy, not asleep: a pause
                }
                ran.countDown();
            });
            assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
            Await.until(Duration.ofSeconds(10), () -> t.enginePauses().get(0).maxNanos()
                    >= TimeUnit.MILLISECONDS.toNanos(BLOCK_MS), "the engine's next duty cycle after the pause");
            JsonNode pg = pollGroup(s);
            assertThat(pg.get("jdoca_max_pause_us").asLong()).isGreaterThanOrEqualTo(BLOCK_MS * 1000);
            assertThat(pg.get("jdoca_window_max_pause_us").asLong()).isGreaterThanOrEqualTo(BLOCK_MS * 1000);

            assertThat(M.readTree(s.handle("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"jdoca_reset_engine_pauses\"}"))
                    .get("result").asBoolean()).isTrue();
            // The idle engine wakes at least every 5 ms: the new window soon holds only short pauses.
            Await.until(Duration.ofSeconds(10), () -> t.enginePauses().get(0).windowMaxNanos()
                    < TimeUnit.MILLISECONDS.toNanos(BLOCK_MS) / 2, "a new window without the 200 ms pause");
            pg = pollGroup(s);
            assertThat(pg.get("jdoca_window_max_pause_us").asLong()).isLessThan(BLOCK_MS * 1000);
            assertThat(pg.get("jdoca_max_pause_us").asLong()).as("since start: kept")
                    .isGreaterThanOrEqualTo(BLOCK_MS * 1000);
        }
    }
}
