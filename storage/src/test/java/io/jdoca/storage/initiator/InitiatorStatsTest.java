package io.jdoca.storage.initiator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.core.DocaException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The statistics arithmetic and table, the strategy names, and the initiator's configuration checks. */
class InitiatorStatsTest {
    @Test
    void ratesAndTable() {
        Histogram h = new Histogram(60_000_000_000L, 3);
        for (int i = 1; i <= 1000; i++) {
            h.recordValue(i * 1000L);
        }
        InitiatorStats s = InitiatorStats.of(2.0, 1 << 20, 4096, 300, 100, h, 0);
        assertThat(s.gibPerSecond()).isEqualTo(2.0);
        assertThat(s.miops()).isEqualTo((1 << 20) / 2.0 / 1e6);
        assertThat(s.peHitRatePercent()).isEqualTo(75.0);
        assertThat(s.latencyMinUs()).isEqualTo(1.0);
        assertThat(s.latencyP50Us()).isBetween(499.0, 501.0);
        assertThat(s.latencyP99Us()).isBetween(989.0, 991.0);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        s.print(new PrintStream(b, true));
        String t = b.toString(StandardCharsets.UTF_8);
        assertThat(t).contains("| Duration (seconds): 2.000000").contains("| Operation count: 1048576")
                .contains("| Data rate: 2.000000 GiB/s").contains("| PE hit rate: 75.00% (300:100)").contains("p99.9:")
                .contains("Data path allocation: 0 bytes");
    }

    @Test
    void strategyNamesAreDocas() {
        assertThat(ExecutionStrategy.of("read_throughput_test")).isEqualTo(ExecutionStrategy.READ_THROUGHPUT_TEST);
        assertThat(ExecutionStrategy.of("write_throughput_test").write()).isTrue();
        assertThat(ExecutionStrategy.of("read_only_data_validity_test").validate()).isTrue();
        assertThat(ExecutionStrategy.of("read_write_data_validity_test").copyExpected()).isTrue();
        assertThat(ExecutionStrategy.of("random")).isNull();
    }

    @Test
    void badConfigurationsAreRefusedBeforeConnecting() {
        InitiatorComch.Config ok = new InitiatorComch.Config("sw0", List.of(0), ExecutionStrategy.READ_THROUGHPUT_TEST,
                null, 0,
                64, "unused", 1, 0, 1);
        assertThatThrownBy(() -> new InitiatorComch(ok,
                new AtomicBoolean()).run(System.out)).isInstanceOf(DocaException.class)
                .hasMessageContaining("needs --run-limit-operation-count > 0");
        InitiatorComch.Config ro = new InitiatorComch.Config("sw0", List.of(0),
                ExecutionStrategy.READ_ONLY_DATA_VALIDITY_TEST,
                null, 10, 64, "unused", 1, 0, 1);
        assertThatThrownBy(() -> new InitiatorComch(ro, new AtomicBoolean()).run(System.out))
                .hasMessageContaining("needs --storage-plain-content");
        InitiatorComch.Config noCpu = new InitiatorComch.Config("sw0", List.of(),
                ExecutionStrategy.READ_THROUGHPUT_TEST, null,
                10, 64, "unused", 1, 0, 1);
        assertThatThrownBy(() -> new InitiatorComch(noCpu,
                new AtomicBoolean()).run(System.out)).hasMessageContaining("--cpu");
    }
}
