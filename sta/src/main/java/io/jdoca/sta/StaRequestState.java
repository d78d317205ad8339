package io.jdoca.sta;

/**
 * Life cycle of one outstanding NVMe-oF command ({@link StaRequest}), named after SPDK's
 * {@code nvmf_tcp_req_state}. One 4 KiB read is one walk through it:
 *
 * <pre>
 *  FREE ─▶ NEED_BUFFER ─┬─────────────────────────────────────▶ READY_TO_EXECUTE ─▶ EXECUTING ─▶ EXECUTED
 *   ▲                   ├─▶ TRANSFERRING_HOST_TO_CONTROLLER ─┬─▶ ┘                                │
 *   │                   │      (R2T / H2CData)               └──────────────┐                     │
 *   │                   └─ (rejected before execution) ──────────────────────┴─▶ EXECUTED ◀────────┘
 *   │                                                                                │
 *   └── COMPLETED ◀── TRANSFERRING_CONTROLLER_TO_HOST (C2HData and/or response) ◀────┤
 *          ▲                                                                         │
 *          └───── (answered by the application: non-offload fetch) ─────────────────┘
 * </pre>
 *
 * <ul>
 *   <li>NEED_BUFFER: the command arrived; its data (if any) has no place yet.</li>
 *   <li>TRANSFERRING_HOST_TO_CONTROLLER: host data is being fetched (R2T, H2CData).</li>
 *   <li>EXECUTED: the status is known, whether the back-end ran or validation refused it; a
 *       transfer whose connection is lost also ends here (the command is then never answered).</li>
 * </ul>
 * Anything not in {@link #canTransitionTo} is illegal: {@link StaRequest#transition} refuses it
 * with BAD_STATE and counts it.
 *
 * <p>Immutable; safe from any thread.
 */
public enum StaRequestState {
    FREE,
    NEED_BUFFER,
    TRANSFERRING_HOST_TO_CONTROLLER,
    READY_TO_EXECUTE,
    EXECUTING,
    EXECUTED,
    TRANSFERRING_CONTROLLER_TO_HOST,
    COMPLETED;

    /** The explicit transition table. */
    public boolean canTransitionTo(StaRequestState next) {
        return switch (this) {
            case FREE -> next == NEED_BUFFER;
            case NEED_BUFFER -> next == READY_TO_EXECUTE || next == TRANSFERRING_HOST_TO_CONTROLLER || next == EXECUTED;
            case TRANSFERRING_HOST_TO_CONTROLLER -> next == READY_TO_EXECUTE || next == EXECUTED;
            case READY_TO_EXECUTE -> next == EXECUTING || next == EXECUTED;
            case EXECUTING -> next == EXECUTED;
            case EXECUTED -> next == TRANSFERRING_CONTROLLER_TO_HOST || next == COMPLETED;
            case TRANSFERRING_CONTROLLER_TO_HOST -> next == COMPLETED;
            case COMPLETED -> next == FREE;
        };
    }
}
