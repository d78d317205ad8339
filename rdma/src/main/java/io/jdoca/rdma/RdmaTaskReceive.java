package io.jdoca.rdma;

import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * Receive task ({@code doca_rdma_task_receive}): posted on the context (not on a connection) before
 * the peer sends; a send, send-with-immediate or write-with-immediate from any connection of the
 * context consumes it. The message is appended to the destination's tailroom.
 *
 * <p>Engine thread only; re-arm ({@link #setDst}, {@code dst.resetDataLen()}) and submit again, or free.
 */
public final class RdmaTaskReceive extends RdmaTask {
    RdmaOpcode opcode;

    RdmaTaskReceive(TaskPool<?> pool) {
        super(pool, K_RECV);
    }

    public Buf dst() {
        return local;
    }

    public void setDst(Buf dst) {
        this.local = dst;
    }

    /** Bytes received ({@code doca_rdma_task_receive_get_result_len}); valid after success. */
    public long resultLen() {
        return resultLen;
    }

    /** What the peer did ({@code doca_rdma_task_receive_get_result_opcode}); null if nothing was received. */
    public RdmaOpcode resultOpcode() {
        return opcode;
    }

    /** The immediate, for SEND_WITH_IMM / WRITE_WITH_IMM ({@code _get_result_immediate_data}). */
    public int resultImmediate() {
        return immediate;
    }

    /** The connection the message came on ({@code doca_rdma_task_receive_get_result_rdma_connection}). */
    public RdmaConnection resultConnection() {
        return conn;
    }

    @Override
    void reset() {
        super.reset();
        opcode = null;
        immediate = 0;
        conn = null;
    }
}
