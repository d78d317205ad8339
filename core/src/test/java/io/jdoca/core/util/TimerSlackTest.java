package io.jdoca.core.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimerSlackTest {

    @Test
    void constantsMatchTheInstalledHeader(@TempDir Path dir) throws IOException, InterruptedException {
        String cc = Files.isExecutable(Path.of("/usr/bin/cc")) ? "/usr/bin/cc"
                : Files.isExecutable(Path.of("/usr/bin/gcc")) ? "/usr/bin/gcc" : null;
        assumeTrue(cc != null, "skipped: no C compiler (/usr/bin/cc, /usr/bin/gcc) to read linux/prctl.h");
        Path src = dir.resolve("prctl.c");
        Path exe = dir.resolve("prctl");
        Files.writeString(src, """
                #include <linux/prctl.h>
                #include <stdio.h>
                int main(void) { printf("%d %d\\n", PR_SET_TIMERSLACK, PR_GET_TIMERSLACK); return 0; }
                """);
        Process comp = new ProcessBuilder(cc, "-o", exe.toString(), src.toString()).redirectErrorStream(true).start();
        String compOut = new String(comp.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(comp.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(comp.exitValue()).as(compOut).isZero();
        Process run = new ProcessBuilder(exe.toString()).redirectErrorStream(true).start();
        String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(run.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(out).isEqualTo(TimerSlack.PR_SET_TIMERSLACK + " " + TimerSlack.PR_GET_TIMERSLACK);
    }

    @Test
    void itSetsTheCallingThreadsSlackOnly() throws InterruptedException {
        AtomicLong before = new AtomicLong();
        AtomicLong after = new AtomicLong();
        AtomicLong set = new AtomicLong();
        Thread t = new Thread(() -> {
            before.set(TimerSlack.currentThread());
            set.set(TimerSlack.setCurrentThread(1_000L) ? 1 : 0);
            after.set(TimerSlack.currentThread());
        });
        long mine = TimerSlack.currentThread();
        t.start();
        t.join(10_000);
        assertThat(before.get()).isPositive(); // Linux's default is 50 µs, inherited from the parent
        assertThat(set.get()).isEqualTo(1);
        assertThat(after.get()).isEqualTo(1_000L);
        assertThat(TimerSlack.currentThread()).isEqualTo(mine);
        assertThat(TimerSlack.setCurrentThread(0)).isFalse(); // 0 would mean "the default": refused, not silently reset
    }
}
