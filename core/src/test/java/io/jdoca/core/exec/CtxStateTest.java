package io.jdoca.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CtxStateTest {
    /** The DOCA transition table, written out independently of the enum's switch. */
    private static final Map<CtxState, Set<CtxState>> LEGAL = Map.of(
            CtxState.IDLE, EnumSet.of(CtxState.STARTING, CtxState.RUNNING),
            CtxState.STARTING, EnumSet.of(CtxState.RUNNING, CtxState.STOPPING, CtxState.IDLE),
            CtxState.RUNNING, EnumSet.of(CtxState.STOPPING, CtxState.IDLE),
            CtxState.STOPPING, EnumSet.of(CtxState.IDLE));

    @Test
    void everyPairMatchesTheTable() {
        for (CtxState from : CtxState.values()) {
            for (CtxState to : CtxState.values()) {
                assertThat(from.canTransitionTo(to)).as(from + " -> " + to).isEqualTo(LEGAL.get(from).contains(to));
            }
        }
    }

    @Test
    void numericValuesAreDocas() {
        assertThat(CtxState.IDLE.value()).isZero();
        assertThat(CtxState.STARTING.value()).isEqualTo(1);
        assertThat(CtxState.RUNNING.value()).isEqualTo(2);
        assertThat(CtxState.STOPPING.value()).isEqualTo(3);
    }

    @Test
    void taskStates() {
        assertThat(TaskState.FREE.canTransitionTo(TaskState.ALLOCATED)).isTrue();
        assertThat(TaskState.FREE.canTransitionTo(TaskState.SUBMITTED)).isFalse();
        assertThat(TaskState.SUBMITTED.canTransitionTo(TaskState.FREE)).isFalse();
        assertThat(TaskState.COMPLETED.canTransitionTo(TaskState.SUBMITTED)).isTrue();
        assertThat(TaskState.COMPLETED.canTransitionTo(TaskState.FREE)).isTrue();
    }
}
