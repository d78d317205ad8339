package io.jdoca.systemtests.gga;

import static io.jdoca.systemtests.gga.GgaPipeline.stat;
import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.ec.EcMatrixType;
import io.jdoca.gga.sbc.SbcGenerator;
import io.jdoca.testkit.JavaProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * gga-offload between three target-rdma processes and initiator-comch (issue #6 "must show" 1 and 2):
 * read/write and read-only data validity with recovery reads every 0, 1 and 7 reads (each of the two
 * matrix types at least once), .sbc content from sbc-generator, throughput runs, mismatched targets, and a target
 * SIGKILLed in the middle of a read validity run (degraded mode: no failed read).
 */
class GgaOffloadSystemTest {
    private static final List<String> GEOMETRY = List.of("--block-size", "2048", "--block-count", "192");

    @TempDir
    Path dir;

    static Stream<Arguments> recoveryAndMatrix() {
        // Each recovery cadence once and each matrix type with recoveries: the cadence and the matrix are
        // independent (the EC module's tests cover both matrices at every shape); the full 3 x 2 product cost
        // 40 s of CI for no other path.
        return Stream.of(Arguments.of(0, "vandermonde"), Arguments.of(1, "cauchy"), Arguments.of(7, "vandermonde"));
    }

    @ParameterizedTest(name = "every {0}th read recovers, {1}")
    @MethodSource("recoveryAndMatrix")
    void readWriteDataValidity(int everyN, String matrix) throws IOException {
        GgaPipeline p = new GgaPipeline();
        p.targetArgs = List.of(GEOMETRY, GEOMETRY, GEOMETRY);
        p.serviceArgs = List.of("--trigger-recovery-read-every-n", String.valueOf(everyN), "--matrix-type", matrix);
        p.initiatorArgs = List.of("--execution-strategy", "read_write_data_validity_test", "--transaction-count", "16");
        GgaPipeline.Outputs o = p.run();
        assertThat(o.initiatorRc()).as("initiator:\n%s\nservice:\n%s", o.initiator(), o.service()).isZero();
        assertThat(o.initiator()).contains("Test passed");
        assertThat((long) stat(o.initiator(), "| Operation count:")).isEqualTo(192);
        assertThat((long) stat(o.service(), "| Operation count:")).isEqualTo(2 * 192); // a write and a read per block
        long expectedRecoveries = everyN == 0 ? 0 : 192 / everyN;
        assertThat((long) stat(o.service(), "| Total recovery count:")).isEqualTo(expectedRecoveries);
        assertThat(o.service()).contains("Service state: healthy").contains("| Failed IOs: 0");
    }

    @Test
    void readWriteDataValidityOnTwoCoresWithTwoBlocksPerIo() throws IOException {
        GgaPipeline p = new GgaPipeline();
        p.cores = 2;
        p.targetArgs = List.of(GEOMETRY, GEOMETRY, GEOMETRY);
        p.serviceArgs = List.of("--trigger-recovery-read-every-n", "5");
        p.initiatorArgs = List.of("--execution-strategy", "read_write_data_validity_test", "--transaction-count", "8",
                "--blocks-per-io", "2");
        GgaPipeline.Outputs o = p.run();
        assertThat(o.initiatorRc()).as("initiator:\n%s\nservice:\n%s", o.initiator(), o.service()).isZero();
        assertThat(o.initiator()).contains("Test passed");
        assertThat(o.service()).contains("| Core: 0").contains("| Core: 1").contains("Service state: healthy");
        // 192 blocks / 2 per IO / 2 cores = 48 IOs per core; every 5th read IO recovers both of its blocks.
        assertThat((long) stat(o.service(), "| Total recovery count:")).isEqualTo(2 * 2 * (48 / 5));
    }

    /**
     * Compressible "random bytes": random values in random-length runs (uniform noise cannot shrink by 12 bytes per
     * block).
     */
    private static byte[] randomRuns(int len, long seed) {
        Random r = new Random(seed);
        byte[] b = new byte[len];
        int i = 0;
        while (i < len) {
            byte v = (byte) r.nextInt(256);
            int run = 1 + r.nextInt(6);
            for (int j = 0; j < run && i < len; j++) {
                b[i++] = v;
            }
        }
        return b;
    }

    private static byte[] projectText(int len) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (Stream<Path> files = Files.walk(JavaProcess.repoRoot().resolve("core/src/main/java"))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                out.write(Files.readAllBytes(f));
                if (out.size() >= len) {
                    break;
                }
            }
        }
        return Arrays.copyOf(out.toByteArray(), len);
    }

    /** Generates the three .sbc files from {@code plain} and returns the pipeline serving them. */
    private GgaPipeline sbcPipeline(byte[] plain, String matrix) throws IOException {
        Path in = dir.resolve("plain.bin");
        Files.write(in, plain);
        Path[] sbc = {dir.resolve("d1.sbc"), dir.resolve("d2.sbc"), dir.resolve("dp.sbc")};
        try (Dev dev = Devices.open("sw0")) {
            SbcGenerator.generate(dev, in, sbc[0], sbc[1], sbc[2], 4096, EcMatrixType.parse(matrix));
        }
        GgaPipeline p = new GgaPipeline();
        p.targetArgs = List.of(List.of("--binary-content", sbc[0].toString()), List.of("--binary-content",
                sbc[1].toString()),
                List.of("--binary-content", sbc[2].toString()));
        return p;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"text", "random-bytes"})
    void readOnlyDataValidityFromSbcGenerator(String kind) throws IOException {
        int size = 256 * 4096;
        byte[] plain = kind.equals("text") ? projectText(size) : randomRuns(size, 42);
        GgaPipeline p = sbcPipeline(plain, kind.equals("text") ? "vandermonde" : "cauchy");
        p.serviceArgs = List.of("--trigger-recovery-read-every-n", "3", "--matrix-type",
                kind.equals("text") ? "vandermonde" : "cauchy");
        p.initiatorArgs = List.of("--execution-strategy", "read_only_data_validity_test", "--storage-plain-content",
                dir.resolve("plain.bin").toString());
        GgaPipeline.Outputs o = p.run();
        assertThat(o.initiatorRc()).as("initiator:\n%s\nservice:\n%s", o.initiator(), o.service()).isZero();
        assertThat(o.initiator()).contains("Test passed: 256 transactions validated");
        assertThat((long) stat(o.service(), "| Total recovery count:")).isEqualTo(256 / 3);
    }

    @Test
    void sbcGeneratorAppRejectsIncompressibleInputClearly() throws IOException {
        byte[] noise = new byte[65536];
        new Random(3).nextBytes(noise);
        Path in = dir.resolve("noise.bin");
        Files.write(in, noise);
        try (JavaProcess g = JavaProcess.start("sbc-generator", "io.jdoca.cli.Main", List.of("sbc-generator",
                "--original-input-data", in.toString(), "--data-1", dir.resolve("a").toString(), "--data-2",
                dir.resolve("b").toString(), "--data-p", dir.resolve("c").toString()))) {
            assertThat(g.awaitExit(GgaPipeline.T)).isEqualTo(1);
            assertThat(g.output()).contains("does not compress");
        }
    }

    @ParameterizedTest(name = "kill target {0}")
    @ValueSource(ints = {0, 1, 2})
    void targetKilledMidReadRunStillValidatesAndReportsDegraded(int victim) throws IOException {
        String name = new String[] {"data_1", "data_2", "data_p"}[victim];
        GgaPipeline p = sbcPipeline(projectTextRepeated(4096 * 4096), "vandermonde");
        // With data_p killed, scheduled recovery reads (every 3rd) must fall back to plain reads.
        p.serviceArgs = List.of("--trigger-recovery-read-every-n", victim == 2 ? "3" : "0");
        p.initiatorArgs = List.of("--execution-strategy", "read_only_data_validity_test", "--storage-plain-content",
                dir.resolve("plain.bin").toString(), "--transaction-count", "32");
        p.killTarget = victim;
        p.killDelayMs = 400;
        GgaPipeline.Outputs o = p.run();
        assertThat(o.initiatorRc()).as("initiator:\n%s\nservice:\n%s", o.initiator(), o.service()).isZero();
        assertThat(o.initiator()).contains("Test passed: 4096 transactions validated");
        assertThat(o.service()).contains("DEGRADED: target " + name).contains("Service state: DEGRADED (lost: " + name);
        assertThat((long) stat(o.service(), "| Failed IOs:")).isZero();
        if (victim == 2) {
            assertThat((long) stat(o.service(), "| Total recovery count:")).isLessThan(4096 / 3);
        } else {
            assertThat((long) stat(o.service(), "degraded-mode recoveries")).isPositive();
        }
    }

    /** Project text cut and re-joined at random points: compressible, not periodic, any size. */
    private static byte[] projectTextRepeated(int len) throws IOException {
        byte[] src = projectText(400_000);
        Random r = new Random(1);
        byte[] out = new byte[len];
        int i = 0;
        while (i < len) {
            int from = r.nextInt(src.length - 4096);
            int n = Math.min(len - i, 100 + r.nextInt(3996));
            System.arraycopy(src, from, out, i, n);
            i += n;
        }
        return out;
    }

    @Test
    void writesLandOnTheSurvivorsOnceATargetIsLost() throws IOException {
        GgaPipeline p = new GgaPipeline();
        List<String> g = List.of("--block-size", "2048", "--block-count", "8192");
        p.targetArgs = List.of(g, g, g);
        p.initiatorArgs = List.of("--execution-strategy", "write_throughput_test", "--run-limit-operation-count",
                "200000",
                "--transaction-count", "8");
        p.killTarget = 2;
        p.killDelayMs = 500;
        GgaPipeline.Outputs o = p.run();
        // One lost target: writes go to the two survivors and are logged dirty for it (resynced when it rejoins).
        assertThat(o.initiatorRc()).as("initiator:\n%s\nservice:\n%s", o.initiator(), o.service()).isZero();
        assertThat(o.service()).contains("Service state: DEGRADED (lost: data_p").contains("logged dirty for it");
        assertThat((long) stat(o.service(), "| Failed IOs:")).isZero();
    }

    @Test
    void throughputRunsReportStatsAndNoDataPathAllocation() throws IOException {
        GgaPipeline p = sbcPipeline(projectText(256 * 4096), "vandermonde");
        p.serviceArgs = List.of("--trigger-recovery-read-every-n", "4");
        p.initiatorArgs = List.of("--execution-strategy", "read_throughput_test", "--run-limit-operation-count",
                "20000",
                "--transaction-count", "16");
        GgaPipeline.Outputs r = p.run();
        assertThat(r.initiatorRc()).as("initiator:\n%s\nservice:\n%s", r.initiator(), r.service()).isZero();
        assertThat((long) stat(r.initiator(), "| Operation count:")).isEqualTo(20000);
        assertThat(stat(r.initiator(), "| IO rate:")).isPositive();
        assertThat((long) stat(r.service(), "| Total recovery count:")).isEqualTo(5000);
        java.util.regex.Matcher a = java.util.regex.Pattern.compile("after warm-up \\(([0-9.]+) B/op\\)").matcher(
                r.service());
        assertThat(a.find()).as("allocation line in\n%s", r.service()).isTrue();
        assertThat(Double.parseDouble(a.group(1))).as("bytes per op on the service's data path:\n%s", r.service())
                .isLessThan(1.0);

        GgaPipeline w = new GgaPipeline();
        w.targetArgs = List.of(GEOMETRY, GEOMETRY, GEOMETRY);
        w.initiatorArgs = List.of("--execution-strategy", "write_throughput_test", "--run-limit-operation-count",
                "10000",
                "--transaction-count", "16");
        GgaPipeline.Outputs wo = w.run();
        assertThat(wo.initiatorRc()).as("initiator:\n%s\nservice:\n%s", wo.initiator(), wo.service()).isZero();
        assertThat((long) stat(wo.service(), "| Operation count:")).isEqualTo(10000);
        assertThat(stat(wo.initiator(), "| Data rate:")).isPositive();
    }

    @Test
    void initiatorKilledMidRunEndsTheServiceAndTheTargetsCleanly() throws IOException {
        GgaPipeline p = sbcPipeline(projectText(256 * 4096), "vandermonde");
        p.initiatorArgs = List.of("--execution-strategy", "read_throughput_test", "--run-limit-operation-count",
                "100000000");
        p.killInitiator = true;
        p.killDelayMs = 500;
        p.requireServiceOk = false;
        GgaPipeline.Outputs o = p.run();
        assertThat(o.service()).contains("the initiator disconnected before shutdown").contains(
                "Service state: healthy");
        for (String t : o.targets()) {
            assertThat(t).contains("| Operation count:"); // each target was shut down and printed its stats
        }
    }

    @Test
    void mismatchedTargetDimensionsAreRefusedWithBadState() throws IOException {
        GgaPipeline p = new GgaPipeline();
        p.targetArgs = List.of(GEOMETRY, GEOMETRY, List.of("--block-size", "2048", "--block-count", "64"));
        p.requireServiceOk = false;
        p.initiatorArgs = List.of("--execution-strategy", "read_write_data_validity_test");
        GgaPipeline.Outputs o = p.run();
        assertThat(o.initiatorRc()).isNotZero();
        assertThat(o.initiator()).contains("DOCA_ERROR_BAD_STATE").contains("mismatched dimensions");
    }
}
