package io.jdoca.systemtests.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ctrl-C (SIGTERM) and bad start-up input: a clear message and a clean exit, never a hang or a bare stack trace. */
class TargetAbortSystemTest {
    private static final Duration T = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void sigtermStopsTheTargetWithItsStats() throws IOException {
        int port = JavaProcess.freePort();
        try (JavaProcess target = JavaProcess.start("target-rdma", "io.jdoca.cli.Main",
                List.of("target-rdma", "-d", "sw0", "--cpu", "0", "--listen-port", String.valueOf(port)))) {
            target.awaitOutput("listening on TCP port", T);
            target.terminate();
            target.awaitExit(T);
            assertThat(target.output()).contains("aborted by user").contains("| Stats");
        }
    }

    @Test
    void garbageSbcIsRefusedWithAClearMessage() throws IOException {
        Path bad = dir.resolve("bad.sbc");
        Files.write(bad, java.util.HexFormat.of().parseHex("deadf00d1337fade0000100000000010ff"));
        try (JavaProcess target = JavaProcess.start("target-rdma", "io.jdoca.cli.Main", List.of("target-rdma", "-d",
                "sw0",
                "--cpu", "0", "--listen-port", "0", "--binary-content", bad.toString()))) {
            assertThat(target.awaitExit(T)).isEqualTo(1);
            assertThat(target.output()).contains("target-rdma: .sbc header says 16 blocks of 4096 bytes")
                    .doesNotContain("DocaException");
        }
    }

    @Test
    void initiatorWithoutAServiceTimesOutCleanly() throws IOException {
        try (JavaProcess ini = JavaProcess.start("initiator-comch", "io.jdoca.cli.Main", List.of("initiator-comch",
                "-d", "sw0",
                "--cpu", "0", "--execution-strategy", "read_throughput_test", "--command-channel-name", "nobody-here",
                "--control-timeout", "1"))) {
            assertThat(ini.awaitExit(T)).isEqualTo(1);
            assertThat(ini.output()).contains("no comch server 'nobody-here' answered").doesNotContain("DocaException");
        }
    }
}
