package io.jdoca.sta;

import io.jdoca.core.DocaError;
import io.jdoca.sta.nvme.NvmeStatus;

/**
 * One outstanding NVMe-oF command of a queue pair: what the command layer needs between the
 * capsule's arrival and its completion (SPDK's {@code spdk_nvmf_request} plus the transport's
 * tag). Pre-allocated by {@link StaRequestPool}; its index is the transfer tag the transport hands
 * to the host (TTAG of an R2T).
 *
 * <p>Not thread-safe: the owning IO engine's thread.
 */
final class StaRequest {
    /** What the request carries data for. */
    static final byte KIND_WRITE = 1;
    /** Host data of a Compare or DSM, fetched into the queue pair's staging buffer. */
    static final byte KIND_STAGE = 2;
    /** Host data of a non-offloaded command, fetched into the application's buffer. */
    static final byte KIND_FETCH = 3;
    /** A command without host data to fetch (read, flush, in-capsule write...). */
    static final byte KIND_INLINE = 4;
    /** A write whose host data is gathered in an engine slot buffer for an asynchronous back-end. */
    static final byte KIND_WRITE_BUFFERED = 5;

    final int tag;
    private final StaRequestPool pool;
    private StaRequestState state = StaRequestState.FREE;

    byte kind;
    int cid;
    int opcode;
    int status;
    StaNamespace ns;
    StaBeQueue queue;
    /** Back-end byte offset of the data (writes). */
    long offset;
    /** Bytes of host data expected, and received so far. */
    int len;
    int received;
    int cdw10;
    int cdw11;
    long slba;
    int nlb;
    StaIoTaskNonOffloadRead task;
    /** The asynchronous back-end channel executing it, or null (inline back-end). */
    StaBeChannel channel;
    /** The engine's operation slot (and data buffer) it holds, or -1. */
    int slot = -1;
    /** Length of the data in the slot buffer (asynchronous reads and writes). */
    int dataLen;
    /** Link of the engine's wait-for-slot queue or the executor's wait-for-room queue. */
    StaRequest nextWaiting;
    boolean waiting;

    StaRequest(StaRequestPool pool, int tag) {
        this.pool = pool;
        this.tag = tag;
    }

    NvmfCommandExecutor executor() {
        return pool.executor;
    }

    StaRequestState state() {
        return state;
    }

    /** Moves to {@code next}; BAD_STATE (counted by the pool, nothing changed) when the table forbids it. */
    DocaError transition(StaRequestState next) {
        if (!state.canTransitionTo(next)) {
            pool.badTransitions++;
            return DocaError.BAD_STATE;
        }
        state = next;
        pool.record(next);
        return DocaError.SUCCESS;
    }

    /** Sets the status and moves to EXECUTED (a refusal before or after execution). */
    DocaError executed(int nvmeStatus) {
        status = nvmeStatus;
        return transition(StaRequestState.EXECUTED);
    }

    void init(byte kind, int cid, int opcode) {
        this.kind = kind;
        this.cid = cid;
        this.opcode = opcode;
        this.status = NvmeStatus.SUCCESS;
        this.received = 0;
        this.len = 0;
    }

    void clear() {
        ns = null;
        queue = null;
        task = null;
        channel = null;
    }

    @Override
    public String toString() {
        return "StaRequest[" + tag + ", cid=" + cid + ", " + state + "]";
    }
}
