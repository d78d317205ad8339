package io.jdoca.core.util;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.testkit.CProgram;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimerSlackTest {

    @Test
    void constantsMatchTheInstalledHeader(@TempDir Path dir) throws IOException, InterruptedException {
        String out = CProgram.run(dir, "linux/prctl.h", """
                #include <linux/prctl.h>
                #include <stdio.h>
                int main(void) { printf("%d %d\\n", PR_SET_TIMERSLACK, PR_GET_TIMERSLACK); return 0; }
                """);
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
