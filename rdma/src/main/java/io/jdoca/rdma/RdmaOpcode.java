package io.jdoca.rdma;

/**
 * The opcode a receive task reports ({@code enum doca_rdma_opcode}): which peer operation consumed
 * the receive.
 */
public enum RdmaOpcode {
    /** The peer submitted a send task. */
    SEND,
    /** The peer submitted a send-with-immediate task. */
    SEND_WITH_IMM,
    /** The peer submitted a write-with-immediate task (the data went to memory, the immediate here). */
    WRITE_WITH_IMM
}
