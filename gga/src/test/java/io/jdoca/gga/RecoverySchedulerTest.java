package io.jdoca.gga;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** Reference §5 "Recovery read": counter reloads from N, even count → recover_a, odd → recover_b. */
class RecoverySchedulerTest {
    private static List<RecoveryKind> take(RecoveryScheduler s, int n) {
        List<RecoveryKind> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(s.next());
        }
        return l;
    }

    @Test
    void zeroDisables() {
        assertThat(take(new RecoveryScheduler(0), 100)).containsOnly(RecoveryKind.NONE);
    }

    @Test
    void everyReadWithOneAlternating() {
        assertThat(take(new RecoveryScheduler(1), 4)).containsExactly(RecoveryKind.RECOVER_A, RecoveryKind.RECOVER_B,
                RecoveryKind.RECOVER_A, RecoveryKind.RECOVER_B);
    }

    @Test
    void everySeventh() {
        List<RecoveryKind> l = take(new RecoveryScheduler(7), 21);
        for (int i = 0; i < 21; i++) {
            RecoveryKind expect = (i + 1) % 7 != 0 ? RecoveryKind.NONE
                    : ((i + 1) / 7 % 2 == 1 ? RecoveryKind.RECOVER_A : RecoveryKind.RECOVER_B);
            assertThat(l.get(i)).as("read %d", i + 1).isEqualTo(expect);
        }
    }

    @Property
    void countIsFloorOfReadsOverN(@ForAll @IntRange(min = 1, max = 50) int n, @ForAll @IntRange(min = 0,
            max = 2000) int reads) {
        RecoveryScheduler s = new RecoveryScheduler(n);
        long a = take(s, reads).stream().filter(k -> k == RecoveryKind.RECOVER_A).count();
        assertThat(s.recoveries()).isEqualTo(reads / n);
        assertThat(a).isEqualTo((reads / n + 1) / 2);
    }

    @Test
    void negativeRejectedAndMissingRoles() {
        assertThatThrownBy(() -> new RecoveryScheduler(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(RecoveryKind.RECOVER_A.missingRole()).isEqualTo(TargetRole.DATA_1);
        assertThat(RecoveryKind.RECOVER_B.missingRole()).isEqualTo(TargetRole.DATA_2);
        assertThat(RecoveryKind.NONE.missingRole()).isEqualTo(-1);
    }
}
