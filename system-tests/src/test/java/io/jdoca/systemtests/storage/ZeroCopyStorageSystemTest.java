package io.jdoca.systemtests.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.storage.wire.BinaryContent;
import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * target-rdma, zero-copy and initiator-comch as three processes on loopback (the "must show"
 * 1 and 2): data-validity and throughput runs with their printed statistics checked, and a target
 * restarted on its {@code --backing-file} serving back what was written before.
 */
class ZeroCopyStorageSystemTest {
    private static final Duration T = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    /** One three-process run; returns the initiator's output after checking every exit code. */
    private String run(List<String> targetExtra, List<String> initiatorArgs, int cores, int expectInitiatorRc)
            throws IOException {
        String channel = "st-" + UUID.randomUUID();
        int port = JavaProcess.freePort();
        List<String> cpus = new ArrayList<>();
        for (int i = 0; i < cores; i++) {
            cpus.add("--cpu");
            cpus.add(String.valueOf(i));
        }
        List<String> targetArgs = new ArrayList<>(List.of("target-rdma", "-d", "sw0", "--once", "--listen-address",
                "127.0.0.1", "--listen-port", String.valueOf(port)));
        targetArgs.addAll(cpus);
        targetArgs.addAll(targetExtra);
        List<String> relayArgs = new ArrayList<>(List.of("zero-copy", "-d", "sw0", "-r", "hpf0", "--once",
                "--storage-server",
                "127.0.0.1:" + port, "--command-channel-name", channel));
        relayArgs.addAll(cpus);
        List<String> iniArgs = new ArrayList<>(List.of("initiator-comch", "-d", "sw0", "--command-channel-name",
                channel,
                "--control-timeout", "20"));
        iniArgs.addAll(cpus);
        iniArgs.addAll(initiatorArgs);
        try (JavaProcess target = JavaProcess.start("target-rdma", "io.jdoca.cli.Main", targetArgs)) {
            target.awaitOutput("listening on TCP port", T);
            try (JavaProcess relay = JavaProcess.start("zero-copy", "io.jdoca.cli.Main", relayArgs)) {
                relay.awaitOutput("serving comch channel", T);
                try (JavaProcess ini = JavaProcess.start("initiator-comch", "io.jdoca.cli.Main", iniArgs)) {
                    int rc = ini.awaitExit(T);
                    String out = ini.output();
                    assertThat(rc).as("initiator exit code; output:\n%s\nrelay:\n%s\ntarget:\n%s", out, relay.output(),
                            target.output()).isEqualTo(expectInitiatorRc);
                    assertThat(relay.awaitExit(T)).as("relay exit; output:\n%s", relay.output()).isZero();
                    assertThat(target.awaitExit(T)).as("target exit; output:\n%s", target.output()).isZero();
                    assertThat(target.output()).contains("| Operation count:");
                    assertThat(relay.output()).contains("| Operation count:");
                    return out;
                }
            }
        }
    }

    private static double stat(String out, String label) {
        Matcher m = Pattern.compile(Pattern.quote(label) + "\\s*([0-9.]+)").matcher(out);
        assertThat(m.find()).as("'%s' in\n%s", label, out).isTrue();
        return Double.parseDouble(m.group(1));
    }

    private static void checkStats(String out, long expectedOps) {
        assertThat((long) stat(out, "| Operation count:")).isEqualTo(expectedOps);
        assertThat(stat(out, "| Duration (seconds):")).isPositive();
        assertThat(stat(out, "| IO rate:")).isPositive();
        assertThat(stat(out, "| Data rate:")).isPositive();
        assertThat(stat(out, "| PE hit rate:")).isBetween(0.0, 100.0);
        double min = stat(out, "Min:");
        double p50 = stat(out, "p50:");
        double p99 = stat(out, "p99:");
        double max = stat(out, "Max:");
        assertThat(min).isPositive().isLessThanOrEqualTo(p50);
        assertThat(p50).isLessThanOrEqualTo(p99);
        assertThat(p99).isLessThanOrEqualTo(max * 1.01);
    }

    /** A real file (a source file of the project), padded to whole 4 KiB blocks: plain content and .sbc. */
    private Path[] realContent() throws IOException {
        Path src = JavaProcess.repoRoot().resolve("core/src/main/java/io/jdoca/core/exec/Ctx.java");
        Path sbc = dir.resolve("content.sbc");
        BinaryContent.Header h = BinaryContent.writeFromPlain(sbc, src, 4096);
        byte[] raw = Files.readAllBytes(src);
        byte[] padded = java.util.Arrays.copyOf(raw, h.blockCount() * 4096);
        Path plain = dir.resolve("content.plain");
        Files.write(plain, padded);
        return new Path[] {plain, sbc};
    }

    @Test
    void readWriteDataValidityOnTwoCores() throws IOException {
        String out = run(List.of("--block-count", "64"), List.of("--execution-strategy",
                "read_write_data_validity_test",
                "--transaction-count", "8"), 2, 0);
        assertThat(out).contains("Test passed");
        checkStats(out, 64);
    }

    @Test
    void readOnlyDataValidityOfAnSbcMadeFromARealFile() throws IOException {
        Path[] c = realContent();
        String out = run(List.of("--binary-content", c[1].toString()), List.of("--execution-strategy",
                "read_only_data_validity_test", "--storage-plain-content", c[0].toString()), 1, 0);
        assertThat(out).contains("Test passed");
        checkStats(out, Files.size(c[0]) / 4096);
    }

    @Test
    void readOnlyValidationMismatchFailsWithTheFirstDifferingRange() throws IOException {
        Path[] c = realContent();
        byte[] wrong = Files.readAllBytes(c[0]);
        wrong[100] ^= 0x5A;
        Path bad = dir.resolve("wrong.plain");
        Files.write(bad, wrong);
        String out = run(List.of("--binary-content", c[1].toString()), List.of("--execution-strategy",
                "read_only_data_validity_test", "--storage-plain-content", bad.toString()), 1, 1);
        assertThat(out).contains("data mismatch at storage offset 100").contains("expected [96..128)").contains("Test "
                + "failed!!");
    }

    @Test
    void readAndWriteThroughput() throws IOException {
        String r = run(List.of("--block-count", "256"), List.of("--execution-strategy", "read_throughput_test",
                "--run-limit-operation-count", "20000", "--transaction-count", "32"), 1, 0);
        checkStats(r, 20000);
        String w = run(List.of("--block-count", "256"), List.of("--execution-strategy", "write_throughput_test",
                "--run-limit-operation-count", "20000", "--blocks-per-io", "2"), 1, 0);
        checkStats(w, 20000);
        assertThat(stat(w, "| Data rate:")).isGreaterThan(0.0);
    }

    @Test
    void backingFileKeepsWritesAcrossATargetRestart() throws IOException {
        Path[] c = realContent();
        long blocks = Files.size(c[0]) / 4096;
        Path backing = dir.resolve("blocks.img");
        String first = run(List.of("--block-count", String.valueOf(blocks), "--backing-file", backing.toString()),
                List.of("--execution-strategy", "read_write_data_validity_test", "--storage-plain-content",
                        c[0].toString()), 1, 0);
        assertThat(first).contains("Test passed");
        assertThat(backing).hasSize(Files.size(c[0]));
        // A new target process on the same file: the blocks written by the first run are read back and validated.
        String second = run(List.of("--block-count", String.valueOf(blocks), "--backing-file", backing.toString()),
                List.of("--execution-strategy", "read_only_data_validity_test", "--storage-plain-content",
                        c[0].toString()), 1, 0);
        assertThat(second).contains("Test passed");
        checkStats(second, blocks);
    }
}
