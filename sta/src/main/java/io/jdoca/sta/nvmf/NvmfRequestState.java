package io.jdoca.sta.nvmf;

/**
 * Life cycle of one outstanding NVMe-oF command ({@link NvmfRequest}), named after SPDK's
 * {@code nvmf_tcp_req_state} / {@code spdk_nvmf_rdma_request_state}. One state machine per command,
 * whatever the transport: the transport's request is a {@link NvmfRequest} (or extends it).
 *
 * <pre>
 *  FREE ─▶ NEED_BUFFER ─┬─────────────────────────────────────▶ READY_TO_EXECUTE ─▶ EXECUTING ─▶ EXECUTED
 *   ▲                   ├─▶ TRANSFERRING_HOST_TO_CONTROLLER ─┬─▶ ┘                      ▲  │        │
 *   │                   │      (R2T / H2CData, RDMA READ)    └───────────────┐          │  ▼        │
 *   │                   └─ (refused before execution) ────────────────────────┴─▶ EXECUTED  TRANSFERRING_
 *   │                   └─ (not offloaded: the application) ─▶ EXECUTING     HOST_TO_APPLICATION  │
 *   │                                                                                             │
 *   └── COMPLETED ◀── TRANSFERRING_CONTROLLER_TO_HOST (C2HData and/or the response) ◀─────────────┤
 *          ▲                                                                                      │
 *          └──────────────────── (connection gone: never answered) ───────────────────────────────┘
 * </pre>
 *
 * <ul>
 *   <li>NEED_BUFFER: the command arrived; its data (if any) has no place yet.</li>
 *   <li>TRANSFERRING_HOST_TO_CONTROLLER: host data of an offloaded command is being fetched.</li>
 *   <li>EXECUTING: the back-end, or for a command the engine does not offload the application,
 *       owns it. The application may fetch the command's host data first
 *       (TRANSFERRING_HOST_TO_APPLICATION, back to EXECUTING when it has arrived).</li>
 *   <li>EXECUTED: the status is known, whether the back-end ran or validation refused it.</li>
 *   <li>TRANSFERRING_CONTROLLER_TO_HOST: data and/or the response are on the wire; the transport
 *       keeps the request until the wire no longer needs its buffers (RDMA: the SEND completed).</li>
 * </ul>
 * Anything not in {@link #canTransitionTo} is illegal: {@link NvmfRequest#transition} refuses it
 * with BAD_STATE and counts it.
 *
 * <p>Immutable; safe from any thread.
 */
public enum NvmfRequestState {
    FREE,
    NEED_BUFFER,
    TRANSFERRING_HOST_TO_CONTROLLER,
    READY_TO_EXECUTE,
    EXECUTING,
    TRANSFERRING_HOST_TO_APPLICATION,
    EXECUTED,
    TRANSFERRING_CONTROLLER_TO_HOST,
    COMPLETED;

    /** The explicit transition table. */
    public boolean canTransitionTo(NvmfRequestState next) {
        return switch (this) {
            case FREE -> next == NEED_BUFFER;
            case NEED_BUFFER -> next == READY_TO_EXECUTE || next == TRANSFERRING_HOST_TO_CONTROLLER
                    || next == EXECUTING || next == EXECUTED;
            case TRANSFERRING_HOST_TO_CONTROLLER -> next == READY_TO_EXECUTE || next == EXECUTED;
            case READY_TO_EXECUTE -> next == EXECUTING || next == EXECUTED;
            case EXECUTING -> next == EXECUTED || next == TRANSFERRING_HOST_TO_APPLICATION;
            case TRANSFERRING_HOST_TO_APPLICATION -> next == EXECUTING || next == EXECUTED;
            case EXECUTED -> next == TRANSFERRING_CONTROLLER_TO_HOST || next == COMPLETED;
            case TRANSFERRING_CONTROLLER_TO_HOST -> next == COMPLETED;
            case COMPLETED -> next == FREE;
        };
    }

    /** True in the two states in which host data for the request is expected from the wire. */
    public boolean awaitsHostData() {
        return this == TRANSFERRING_HOST_TO_CONTROLLER || this == TRANSFERRING_HOST_TO_APPLICATION;
    }
}
