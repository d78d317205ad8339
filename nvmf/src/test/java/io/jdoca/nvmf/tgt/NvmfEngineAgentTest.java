package io.jdoca.nvmf.tgt;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.testkit.Await;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 17: the target's IO engine is an agent on the core runner whose idle strategy sleeps in
 * StaIo's wait: a started target with a listener and no host has its engine thread parked in the
 * selector (not spinning, not parking on a timer), using a small fraction of a core, and its
 * management agent {@code sta-main} next to it; closing the target ends both threads.
 */
@Timeout(60)
class NvmfEngineAgentTest {
    private static Thread thread(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t ->
                t.getName().equals(name)).findFirst().orElse(null);
    }

    private static boolean sleepsInStaIosWait(Thread t) {
        StackTraceElement[] st = t.getStackTrace();
        return Arrays.stream(st).anyMatch(e -> e.getClassName().equals("io.jdoca.sta.StaIo")
                && e.getMethodName().equals("waitForIo"))
                && Arrays.stream(st).anyMatch(e -> e.getClassName().endsWith("SelectorImpl")
                        && e.getMethodName().equals("select"));
    }

    @Test
    void anIdleEngineSleepsInStaIosSelectorAndCloseEndsTheAgents() throws Exception {
        Thread engine;
        Thread main;
        try (NvmfTarget t = new NvmfTarget(TargetConfig.parse("{\"io_threads\":1}"))) {
            t.start();
            t.addListener("127.0.0.1", 0);
            engine = thread("sta-io-0");
            main = thread("sta-main");
            assertThat(engine).as("engine agent thread").isNotNull();
            assertThat(main).as("management agent thread").isNotNull();
            assertThat(thread("sta-keepalive")).as("no keep-alive thread: a deadline of sta-main").isNull();
            Await.until(Duration.ofSeconds(20), () -> sleepsInStaIosWait(engine),
                    "sta-io-0 to sleep in StaIo.waitForIo's selector");

            // A spinning engine would use most of a core (or its whole share on a loaded machine);
            // one asleep in the selector wakes at most every 5 ms for a few microseconds.
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            long cpu0 = mx.getThreadCpuTime(engine.threadId());
            long t0 = System.nanoTime();
            Await.until(Duration.ofSeconds(10), () -> System.nanoTime() - t0 > 2_000_000_000L, "a 2 s window");
            long cpu = mx.getThreadCpuTime(engine.threadId()) - cpu0;
            double share = (double) cpu / (System.nanoTime() - t0);
            assertThat(share).as("idle engine's share of a core").isLessThan(0.05);
        }
        assertThat(engine.isAlive()).as("engine agent ended by close").isFalse();
        assertThat(main.isAlive()).as("management agent ended by close").isFalse();
    }
}
