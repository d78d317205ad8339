package io.jdoca.systemtests.sta;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.testkit.JavaProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16 item 8 (CLI polish): bare {@code jdoca} lists the apps, {@code -v} prints the version
 * and {@code -V} is refused, log lines carry the date and the pid (fails on main: bare jdoca
 * listed no app, -V was the version flag, log lines had only the time).
 */
class LauncherPolishSystemTest {
    static final Duration T = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void bareLauncherListsAppsAndVersionIsDashV() throws Exception {
        try (JavaProcess p = JavaProcess.start("jdoca", "io.jdoca.cli.Main", List.of())) {
            assertThat(p.awaitExit(T)).isZero();
            assertThat(p.output()).contains("Apps:", "sta-target", "nvme-perf", "-v, --version").doesNotContain("-V,");
        }
        try (JavaProcess p = JavaProcess.start("jdoca-v", "io.jdoca.cli.Main", List.of("-v"))) {
            assertThat(p.awaitExit(T)).isZero();
            assertThat(p.output()).contains("jdoca ").contains("Java");
        }
        try (JavaProcess p = JavaProcess.start("jdoca-V", "io.jdoca.cli.Main", List.of("-V"))) {
            assertThat(p.awaitExit(T)).isNotZero();
        }
    }

    @Test
    void logLinesCarryDateAndPid() throws Exception {
        try (JavaProcess p = JavaProcess.start("sta-target", "io.jdoca.cli.Main",
                List.of("sta-target", "-r", dir.resolve("s.sock").toString()))) {
            p.awaitOutput("STA TARGET READY", T);
            assertThat(Pattern.compile("(?m)^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} " + p.pid() + " INFO ")
                    .matcher(p.output()).find()).as(p.output()).isTrue();
            p.terminate();
            p.awaitExit(T);
        }
    }
}
