package io.jdoca.systemtests.vm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * VM test (profile {@code vm}, with {@code system}): {@code ./jdoca bench rdma -d rxe0 --quick} in the Soft-RoCE guest
 * runs to the end beside perftest and writes every figure with its same-run baseline, or says why one is missing.
 * A function test of the bench on a real verbs device and of the launcher on the guest's busybox system (where the
 * bench once exited 1 before it started); it asserts no speed, which belongs to the bench's own figures
 * (docs/performance/rdma-verbs.md). Guest script {@code src/test/resources/vm/bench-rdma-verbs-quick.sh}; about two
 * minutes on TCG.
 */
class BenchRdmaVmTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 1000, unit = TimeUnit.SECONDS)
    void quickBenchBesidePerftestWritesEveryFigureWithItsBaseline() throws Exception {
        GuestRun g = GuestRun.prepare(dir, "cli/target/jdoca.jar", "cli/target/bench-lib");
        int rc = g.run("bench-rdma-verbs-quick.sh", 900);
        String out = g.read("bench.txt");
        System.out.println("bench rdma -d rxe0 --quick in the guest (" + g.seconds() + " s):\n" + out);
        assertThat(rc).as("guest exit status; bench output:%n%s%n%s%n%s", out, g.read("bench-log.txt"),
                g.logTail(30)).isZero();
        Path json = g.out("rdma-verbs.json");
        assertThat(json).exists();
        Map<String, JsonNode> byName = new HashMap<>();
        for (JsonNode r : new ObjectMapper().readTree(Files.readString(json))) {
            byName.put(r.get("name").asText(), r);
        }
        for (String name : new String[] {"rdma.verbs.write_64k.mibps", "rdma.verbs.read_2b_lat_typical.us",
            "rdma.verbs.read_2b_lat_p99.us"}) {
            JsonNode r = byName.get(name);
            assertThat(r).as("%s in %s", name, byName.keySet()).isNotNull();
            assertThat(r.get("value").asDouble()).as(name).isPositive();
            boolean baseline = !r.get("baseline_value").isNull() && r.get("baseline_value").asDouble() > 0;
            assertThat(baseline || r.hasNonNull("baseline_note"))
                    .as("%s: a baseline or the reason it is missing: %s", name, r).isTrue();
        }
    }
}
