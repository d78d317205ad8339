package io.jdoca.gga;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Degraded mode: which halves a read fetches with targets down, and when writes are refused. */
class DegradedPolicyTest {
    private static final int D1 = TargetRole.bit(TargetRole.DATA_1);
    private static final int D2 = TargetRole.bit(TargetRole.DATA_2);
    private static final int DP = TargetRole.bit(TargetRole.DATA_P);

    @Test
    void healthyKeepsTheSchedule() {
        for (RecoveryKind k : RecoveryKind.values()) {
            assertThat(DegradedPolicy.readPlan(k, 0)).isEqualTo(k);
        }
        assertThat(DegradedPolicy.writeAllowed(0)).isTrue();
    }

    @Test
    void lostHalvesAreRebuiltFromTheSurvivors() {
        for (RecoveryKind k : RecoveryKind.values()) {
            assertThat(DegradedPolicy.readPlan(k, D1)).isEqualTo(RecoveryKind.RECOVER_A);
            assertThat(DegradedPolicy.readPlan(k, D2)).isEqualTo(RecoveryKind.RECOVER_B);
            assertThat(DegradedPolicy.readPlan(k, DP)).isEqualTo(RecoveryKind.NONE);
            for (int down : new int[] {D1, D2, DP}) {
                RecoveryKind plan = DegradedPolicy.readPlan(k, down);
                assertThat(DegradedPolicy.targetsOf(plan) & down).as("plan %s never touches a lost target",
                        plan).isZero();
                // one lost target: the write lands on the survivors and is logged dirty for it
                assertThat(DegradedPolicy.writeAllowed(down)).isTrue();
            }
        }
    }

    @Test
    void twoLostTargetsFailReads() {
        for (int down : new int[] {D1 | D2, D1 | DP, D2 | DP, D1 | D2 | DP}) {
            assertThat(DegradedPolicy.readPlan(RecoveryKind.NONE, down)).isNull();
            assertThat(DegradedPolicy.writeAllowed(down)).isFalse();
        }
    }

    @Test
    void plansFetchTwoTargets() {
        assertThat(DegradedPolicy.targetsOf(RecoveryKind.NONE)).isEqualTo(D1 | D2);
        assertThat(DegradedPolicy.targetsOf(RecoveryKind.RECOVER_A)).isEqualTo(D2 | DP);
        assertThat(DegradedPolicy.targetsOf(RecoveryKind.RECOVER_B)).isEqualTo(D1 | DP);
    }
}
