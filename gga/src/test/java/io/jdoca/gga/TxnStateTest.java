package io.jdoca.gga;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The transaction state machine: every legal edge, and everything else refused. */
class TxnStateTest {
    private static final Object[][] LEGAL = {
        {TxnState.IDLE, EnumSet.of(TxnState.FETCH_HALVES, TxnState.FETCH_FROM_INITIATOR, TxnState.RESPOND,
            TxnState.RESYNC_FETCH, TxnState.PARKED)},
        {TxnState.FETCH_HALVES, EnumSet.of(TxnState.RECOVER, TxnState.DECOMPRESS, TxnState.FETCH_HALVES,
        TxnState.RESPOND)},
        {TxnState.RECOVER, EnumSet.of(TxnState.DECOMPRESS, TxnState.RESPOND)},
        {TxnState.DECOMPRESS, EnumSet.of(TxnState.FETCH_HALVES, TxnState.RESPOND)},
        {TxnState.FETCH_FROM_INITIATOR, EnumSet.of(TxnState.EC_CREATE, TxnState.RESPOND)},
        {TxnState.EC_CREATE, EnumSet.of(TxnState.STORE_HALVES, TxnState.RESPOND)},
        {TxnState.STORE_HALVES, EnumSet.of(TxnState.FETCH_FROM_INITIATOR, TxnState.RESPOND)},
        {TxnState.RESPOND, EnumSet.of(TxnState.IDLE)},
        {TxnState.RESYNC_FETCH, EnumSet.of(TxnState.RESYNC_REBUILD, TxnState.IDLE)},
        {TxnState.RESYNC_REBUILD, EnumSet.of(TxnState.RESYNC_STORE, TxnState.IDLE)},
        {TxnState.RESYNC_STORE, EnumSet.of(TxnState.RESYNC_FETCH, TxnState.IDLE)},
        {TxnState.PARKED, EnumSet.of(TxnState.IDLE)},
    };

    @Test
    @SuppressWarnings("unchecked")
    void exactlyTheDocumentedEdges() {
        assertThat(LEGAL.length).isEqualTo(TxnState.values().length);
        for (Object[] row : LEGAL) {
            TxnState from = (TxnState) row[0];
            Set<TxnState> ok = (Set<TxnState>) row[1];
            for (TxnState to : TxnState.values()) {
                assertThat(from.canTransitionTo(to)).as("%s -> %s", from, to).isEqualTo(ok.contains(to));
            }
        }
    }

    @Test
    void completionCountsAndStorageSteps() {
        assertThat(TxnState.READ_COMPLETIONS).isEqualTo(4);
        assertThat(TxnState.WRITE_COMPLETIONS).isEqualTo(6);
        assertThat(2 * Integer.bitCount(DegradedPolicy.targetsOf(RecoveryKind.NONE))).isEqualTo(
                TxnState.READ_COMPLETIONS);
        assertThat(2 * Integer.bitCount(TargetRole.ALL_MASK)).isEqualTo(TxnState.WRITE_COMPLETIONS);
        assertThat(TxnState.FETCH_HALVES.waitsForStorage()).isTrue();
        assertThat(TxnState.STORE_HALVES.waitsForStorage()).isTrue();
        assertThat(TxnState.DECOMPRESS.waitsForStorage()).isFalse();
    }
}
