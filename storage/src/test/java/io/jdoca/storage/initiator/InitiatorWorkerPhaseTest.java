package io.jdoca.storage.initiator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdoca.storage.initiator.InitiatorWorker.Phase;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The initiator worker's phase table: only the forward moves DOCA's worker makes are allowed. */
class InitiatorWorkerPhaseTest {
    @Test
    void onlyForwardMovesAreAllowed() {
        assertEquals(EnumSet.of(Phase.RUNNING, Phase.FINISHED), allowedFrom(Phase.WAITING_FOR_START));
        assertEquals(EnumSet.of(Phase.FINISHED), allowedFrom(Phase.RUNNING));
        assertEquals(EnumSet.noneOf(Phase.class), allowedFrom(Phase.FINISHED));
    }

    private static Set<Phase> allowedFrom(Phase from) {
        Set<Phase> s = EnumSet.noneOf(Phase.class);
        for (Phase to : Phase.values()) {
            if (from.canMoveTo(to)) {
                s.add(to);
            }
        }
        return s;
    }
}
