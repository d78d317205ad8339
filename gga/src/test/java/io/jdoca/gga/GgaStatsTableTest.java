package io.jdoca.gga;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The service's statistics table: DOCA's per-core lines plus the degraded-mode state. */
class GgaStatsTableTest {
    private static String print(List<WorkerStats> s, int lost) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        GgaStatsTable.print(new PrintStream(b, true, StandardCharsets.UTF_8), List.of(4, 5), s, lost, 2_500_000_000L);
        return b.toString(StandardCharsets.UTF_8);
    }

    @Test
    void healthyTable() {
        WorkerStats a = new WorkerStats(0, 100, 60, 40, 6, 0, 0, 0, 0, 0, 75, 25, 0, 0, 0, 4000);
        WorkerStats b = new WorkerStats(1, 10, 10, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0);
        String out = print(List.of(a, b), 0);
        assertThat(out).contains("| Core: 4").contains("| Core: 5").contains("| Operation count: 100 (reads 60, writes "
                + "40)")
                .contains("| PE hit rate: 75.00% (75:25)").contains("| Recovery count: 6")
                .contains("| Data path allocation: 0 bytes over 4000 ops after warm-up (0.000 B/op)")
                .contains("| Total recovery count: 7").contains("| Service state: healthy")
                .contains("| Failed IOs: 1 (writes refused 0, incompressible 1)").contains("| Data path time: 2.500 s");
        assertThat(b.peHitRate()).isZero();
    }

    @Test
    void degradedTableNamesTheLostTargets() {
        WorkerStats a = new WorkerStats(0, 100, 100, 0, 90, 90, 0, 3, 0, 2, 1, 1,
                TargetRole.bit(TargetRole.DATA_1), 0, 0, 0);
        String out = print(List.of(a), TargetRole.bit(TargetRole.DATA_P));
        assertThat(out).contains("| Service state: DEGRADED (lost: data_1, data_p; 90 reads served by recovery)")
                .contains("degraded-mode recoveries 90, refetches 2");
    }
}
