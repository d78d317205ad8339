package io.jdoca.sta;

/**
 * Life cycle of one command context of an NVMe/RDMA queue pair ({@link NvmeRdmaConnection}): the
 * transport's half of a command, beside the command layer's {@link StaRequestState}. It holds the
 * host's keyed SGL, the data buffer and the response buffer from the capsule's arrival until the
 * response SEND has completed locally (only then may the buffers be reused: the SEND may still be
 * retransmitted before).
 *
 * <pre>
 *  FREE ─▶ EXECUTING ─┬──────────────────────────────▶ RESPONDING ─▶ FREE
 *                     └─▶ FETCHING_HOST_DATA ─▶ EXECUTING
 *                          (RDMA READ posted)    (READ completed)
 * </pre>
 * Immutable; safe from any thread.
 */
public enum RdmaCommandState {
    FREE,
    EXECUTING,
    FETCHING_HOST_DATA,
    RESPONDING;

    /** The explicit transition table. */
    public boolean canTransitionTo(RdmaCommandState next) {
        return switch (this) {
            case FREE -> next == EXECUTING;
            case EXECUTING -> next == FETCHING_HOST_DATA || next == RESPONDING;
            case FETCHING_HOST_DATA -> next == EXECUTING;
            case RESPONDING -> next == FREE;
        };
    }
}
