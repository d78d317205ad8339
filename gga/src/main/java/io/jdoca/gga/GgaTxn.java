package io.jdoca.gga;

/**
 * One transaction's state in {@link GgaTxnMachine} (DOCA's {@code transaction_context}, without its
 * tasks). Worker thread only.
 */
final class GgaTxn {
    final int index;
    /** Offset of this transaction's chunk in the scratch map (= requester_offset base for targets). */
    final long chunkOffset;
    TxnState state = TxnState.IDLE;
    boolean write;
    int blocks;
    int block;
    RecoveryKind scheduled = RecoveryKind.NONE;
    RecoveryKind plan = RecoveryKind.NONE;
    int pendingSend;
    int pendingResp;
    int failedTargets;
    int refetches;
    int result;
    long storageOffset;
    long requesterOffset;
    long resyncStripe;

GgaTxn(int index, long chunkOffset) {
        this.index = index;
        this.chunkOffset = chunkOffset;
    }
}
