package io.jdoca.systemtests.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.storage.demo.ZeroCopyDemo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The reusable demo behind {@code ./jdoca demo --mode zero-copy}: three child JVMs, the initiator's table printed. */
class ZeroCopyDemoSystemTest {
    @Test
    void demoRunsTheThreeAppsAndPrintsTheStatsTable() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int rc = ZeroCopyDemo.run(new PrintStream(b, true), "read_write_data_validity_test", 256, 4096, 0, 16);
        String out = b.toString(StandardCharsets.UTF_8);
        assertThat(rc).as(out).isZero();
        assertThat(out).contains("| Stats").contains("| Operation count: 256").contains("| IO rate:").contains("p99.9:")
                .contains("Test passed");
    }
}
