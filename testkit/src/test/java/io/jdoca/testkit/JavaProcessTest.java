package io.jdoca.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class JavaProcessTest {

    @Test
    void childJvmsShareTheParentsCompilerChoiceAndCrashReportPlace() {
        List<String> parent = List.of("-XX:+UseSerialGC", "-XX:-TieredCompilation", "-Xss1m",
                "-XX:ErrorFile=/out/hs_err_pid%p.log", "-Djdoca.verbs.device=rxe0");
        assertThat(JavaProcess.inheritedFlags(parent))
                .containsExactly("-XX:-TieredCompilation", "-XX:ErrorFile=/out/hs_err_pid%p.log");
        assertThat(JavaProcess.inheritedFlags(List.of("-Xmx1g", "-XX:TieredStopAtLevel=1"))).isEmpty();
    }

    @Test
    void aTieredParentGivesChildrenTheLaunchersTieredFlag() {
        // This test JVM runs tiered (surefire's defaults): children get the launcher's flag, not C2 only.
        assertThat(JavaProcess.jvmFlags()).contains("-XX:TieredStopAtLevel=4").doesNotContain("-XX:-TieredCompilation");
    }
}
