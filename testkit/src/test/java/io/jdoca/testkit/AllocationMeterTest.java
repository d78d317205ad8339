package io.jdoca.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AllocationMeterTest {
    private static Object sink;
    private long counter;

    @Test
    void aRealPerOperationAllocationShowsInEveryRound() {
        AllocationMeter.Result r = AllocationMeter.steadyState(10_000, 50_000, () -> sink = new long[2]);
        assertThat(r.bytesPerOp()).as("a 32-byte array per op").isGreaterThanOrEqualTo(16.0);
        assertThat(r.toString()).as("where it was allocated").contains("[J at ")
                .contains("AllocationMeterTest.lambda");
    }

    @Test
    void anAllocationFreeOperationMeasuresZero() {
        AllocationMeter.Result r = AllocationMeter.steadyState(10_000, 50_000, () -> counter++);
        assertThat(r.bytesPerOp()).isLessThan(1.0);
        assertThat(r.where()).isEmpty();
        assertThat(counter).isGreaterThanOrEqualTo(60_000);
    }
}
