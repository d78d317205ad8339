package io.jdoca.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The table and JSON of {@code ./jdoca bench}: ratio rules, skipped baselines (n/a), and {@code -d} on a suite without
 * devices.
 */
class BenchCommandTest {
    private static final String LAT_RULE = "baseline/value: perftest / jdoca, above 1 = jdoca faster";

    private static List<BenchResult> sample() {
        return List.of(
                new BenchResult("x.write.mibps", "MiB/s", 10.0, "tool.bw", 8.0, 1.25),
                new BenchResult("x.lat.us", "us", 200.0, "tool.lat", 100.0, 0.5, LAT_RULE),
                new BenchResult("x.lat_p99.us", "us", 300.0, "tool.p99", null, null, LAT_RULE),
                BenchResult.plain("x.alloc", "B/op", 0));
    }

    @Test
    void tableStatesEachRatioRuleAndShowsASkippedBaselineAsNotAvailable() {
        String t = BenchCommand.table(sample());
        String[] lines = t.split("\\R");
        assertThat(lines[1]).contains("tool.bw").endsWith("1.25");
        assertThat(lines[2]).contains("tool.lat").endsWith("0.50");
        assertThat(lines[3]).contains("tool.p99").contains(" n/a ").endsWith("n/a");
        assertThat(lines[4]).endsWith(" -");
        assertThat(lines[5]).isEqualTo("ratio = " + LAT_RULE + ": x.lat.us, x.lat_p99.us");
        assertThat(lines).hasSize(6);
    }

    @Test
    void jsonCarriesTheRatioRuleOnlyWhereThereIsOne(@TempDir Path dir) throws Exception {
        Path f = BenchCommand.write(dir, "rdma-verbs", sample());
        assertThat(f.getFileName().toString()).isEqualTo("rdma-verbs.json");
        JsonNode rows = new ObjectMapper().readTree(f.toFile());
        assertThat(rows.get(0).has("ratio_rule")).isFalse();
        assertThat(rows.get(1).get("ratio_rule").asText()).isEqualTo(LAT_RULE);
        assertThat(rows.get(2).get("ratio").isNull()).isTrue();
        assertThat(rows.get(2).get("baseline_value").isNull()).isTrue();
    }

    /** A median figure shows every round and the spread under the table, and keeps the rounds in the JSON. */
    @Test
    void aFigureOfSeveralRoundsShowsItsSpread(@TempDir Path dir) throws Exception {
        List<BenchResult> rs = List.of(BenchResult.of("x.bw.gbps", "Gbit/s", 37.6, "socket", 12.0)
                .withRounds(37.6, 21.0, 39.5), BenchResult.of("x.one.gbps", "Gbit/s", 1.0, "socket", 1.0));
        String t = BenchCommand.table(rs);
        assertThat(t.split("\\R"))
                .contains("rounds of x.bw.gbps: 37.600 21.000 39.500 (min 21.000, max 39.500, spread 49 %)")
                .hasSize(4);
        JsonNode rows = new ObjectMapper().readTree(BenchCommand.write(dir, "x", rs).toFile());
        assertThat(rows.get(0).get("rounds").toString()).isEqualTo("[37.6,21.0,39.5]");
        assertThat(rows.get(0).get("median").asDouble()).isEqualTo(37.6);
        assertThat(rows.get(0).get("min").asDouble()).isEqualTo(21.0);
        assertThat(rows.get(0).get("max").asDouble()).isEqualTo(39.5);
        assertThat(rows.get(0).get("spread").asDouble()).isEqualTo(0.492021); // (39.5 - 21) / 37.6
        assertThat(rows.get(1).has("rounds")).isFalse();
        assertThat(rows.get(1).has("min")).isFalse();
        assertThat(rows.get(1).has("spread")).isFalse();
    }

    @Test
    void deviceOptionOnASuiteWithoutDevicesIsAOneLineErrorAndExit2(@TempDir Path dir) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream old = System.err;
        int rc;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            rc = new CommandLine(new BenchCommand()).execute("core", "-d", "rxe0", "-o", dir.toString());
        } finally {
            System.setErr(old);
        }
        assertThat(rc).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8).strip())
                .isEqualTo("bench: suite 'core' does not run on a device (-d); only rdma does");
        assertThat(dir.toFile().list()).isEmpty();
    }

    @Test
    void rdmaOnASoftwareDeviceIsAOneLineErrorAndExit2(@TempDir Path dir) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream old = System.err;
        int rc;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            rc = new CommandLine(new BenchCommand()).execute("rdma", "-d", "sw0", "-o", dir.toString());
        } finally {
            System.setErr(old);
        }
        assertThat(rc).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("bench: device 'sw0' is not an RDMA (verbs) device");
        assertThat(dir.toFile().list()).isEmpty();
    }
}
