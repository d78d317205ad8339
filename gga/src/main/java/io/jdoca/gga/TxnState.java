package io.jdoca.gga;

/**
 * The per-transaction state machine of the GGA data path (DOCA's {@code transaction_action} bits
 * of {@code comch_to_rdma_gga_offload.cpp}, as explicit states). One transaction serves one
 * initiator IO, block by block:
 *
 * <pre>
 *   read:     IDLE → FETCH_HALVES (2 sends + 2 responses = 4) → [RECOVER] → DECOMPRESS
 *                  → FETCH_HALVES (next block) | RESPOND
 *   write:    IDLE → FETCH_FROM_INITIATOR (DMA) → EC_CREATE (LZ4 packing runs inline before it)
 *                  → STORE_HALVES (3 sends + 3 responses = 6) → FETCH_FROM_INITIATOR (next block) | RESPOND
 *   any step → RESPOND on error (once storage IO has drained), RESPOND → IDLE when the reply is sent.
 *   degraded: FETCH_HALVES → FETCH_HALVES again when a target died under it (refetch by recovery).
 *   resync:   IDLE → RESYNC_FETCH (the two survivors' halves) → RESYNC_REBUILD (EC recover, or EC
 *                  create for parity) → RESYNC_STORE (the rebuilt half to the rejoined target)
 *                  → RESYNC_FETCH (next dirty stripe) | IDLE; any resync step → IDLE on error.
 *   paused:   IDLE → PARKED (a request that arrived while the data path is paused for a target's
 *                  mid-session resync) → IDLE (resumed: handed in again as a new request).
 * </pre>
 *
 * <p>Immutable; any thread.
 */
public enum TxnState {
    IDLE,
    FETCH_HALVES,
    RECOVER,
    DECOMPRESS,
    FETCH_FROM_INITIATOR,
    EC_CREATE,
    STORE_HALVES,
    RESPOND,
    RESYNC_FETCH,
    RESYNC_REBUILD,
    RESYNC_STORE,
    PARKED;

    /** Completions a storage step waits for: reference §5, 4 for reads, 6 for writes. */
    public static final int READ_COMPLETIONS = 4;
    public static final int WRITE_COMPLETIONS = 6;

    /** Whether the machine may go from this state to {@code next}. */
    public boolean canTransitionTo(TxnState next) {
        return switch (this) {
            case IDLE -> next == FETCH_HALVES || next == FETCH_FROM_INITIATOR || next == RESPOND || next == RESYNC_FETCH
                    || next == PARKED;
            case FETCH_HALVES -> next == RECOVER || next == DECOMPRESS || next == FETCH_HALVES || next == RESPOND;
            case RECOVER -> next == DECOMPRESS || next == RESPOND;
            case DECOMPRESS -> next == FETCH_HALVES || next == RESPOND;
            case FETCH_FROM_INITIATOR -> next == EC_CREATE || next == RESPOND;
            case EC_CREATE -> next == STORE_HALVES || next == RESPOND;
            case STORE_HALVES -> next == FETCH_FROM_INITIATOR || next == RESPOND;
            case RESPOND -> next == IDLE;
            case RESYNC_FETCH -> next == RESYNC_REBUILD || next == IDLE;
            case RESYNC_REBUILD -> next == RESYNC_STORE || next == IDLE;
            case RESYNC_STORE -> next == RESYNC_FETCH || next == IDLE;
            case PARKED -> next == IDLE;
        };
    }

    /** True for the steps that wait on target IO. */
    public boolean waitsForStorage() {
        return this == FETCH_HALVES || this == STORE_HALVES || this == RESYNC_FETCH || this == RESYNC_STORE;
    }
}
