package io.jdoca.sta.nvmf;

import io.jdoca.core.DocaError;
import io.jdoca.sta.backend.StaBackendChannel;
import io.jdoca.sta.backend.StaBeQueue;
import io.jdoca.sta.nvme.NvmeStatus;

/**
 * One outstanding NVMe-oF command of a queue pair (SPDK's {@code spdk_nvmf_request}): everything
 * the command layer needs between the capsule's arrival and the end of its answer. A transport's
 * request is this class or a subclass that adds the transport's own fields (SPDK's
 * {@code spdk_nvmf_rdma_request} embeds the generic request the same way): one object and one
 * {@link NvmfRequestState} walk per command. Transport operations take the request
 * ({@link NvmfTransport}); nothing looks a command up by CID on the data path.
 *
 * <p>Pre-allocated by the transport's {@link NvmfRequestPool}; {@link #tag()} is its index there,
 * which the transport hands to the host where the wire has a transfer tag (TTAG of an R2T) or
 * uses as its own key (an RDMA work-request id).
 *
 * <p>Not thread-safe: the owning IO engine's thread.
 */
public class NvmfRequest {
    /** An offloaded write, executed piece by piece from the receive buffer as its host data arrives. */
    static final byte KIND_WRITE = 1;
    /** Host data of a Compare or DSM, fetched into the queue pair's staging buffer. */
    static final byte KIND_STAGE = 2;
    /** A command the engine does not offload: the application executes and answers it. */
    static final byte KIND_APPLICATION = 3;
    /** A command without host data to fetch (read, flush, in-capsule write...). */
    static final byte KIND_INLINE = 4;
    /** A write whose host data is gathered in an engine slot buffer for an asynchronous back-end. */
    static final byte KIND_WRITE_BUFFERED = 5;

    private final int tag;
    private final NvmfRequestPool pool;
    private NvmfRequestState state = NvmfRequestState.FREE;

    byte kind;
    int cid;
    int opcode;
    int status;
    int dw0;
    int dw1;
    NvmfNamespace ns;
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
    /** Where the application's fetch puts the host data (TRANSFERRING_HOST_TO_APPLICATION). */
    NvmfHostDataSink sink;
    /** The asynchronous back-end channel executing it, or null (inline back-end). */
    StaBackendChannel channel;
    /** The engine's operation slot (and data buffer) it holds, or -1. */
    int slot = -1;
    /** Length of the data in the slot buffer (asynchronous reads and writes). */
    int dataLen;
    /**
     * Back-end operations of the request in flight (several for a Dataset Management with several
     * ranges) and the first error among those finished: the request completes with the last one.
     */
    int opsPending;
    int opsStatus;
    /** Link of the engine's wait-for-slot queue or the executor's wait-for-room queue. */
    NvmfRequest nextWaiting;
    boolean waiting;

    /** A request of {@code pool} with index {@code tag} (the pool's factory calls this; a transport may extend it). */
    public NvmfRequest(NvmfRequestPool pool, int tag) {
        this.pool = pool;
        this.tag = tag;
    }

    /** Index in the pool: the transfer tag the transport may hand to the host. */
    public final int tag() {
        return tag;
    }

    /** The command identifier the host gave the command. */
    public final int cid() {
        return cid;
    }

    /** NVMe status field of the answer (0 = success). */
    public final int status() {
        return status;
    }

    /** Dword 0 of the answer's completion queue entry. */
    public final int dw0() {
        return dw0;
    }

    /** Dword 1 of the answer's completion queue entry. */
    public final int dw1() {
        return dw1;
    }

    /** Bytes of host data the request expects ({@link NvmfTransport#requestHostData}). */
    public final int expectedLength() {
        return len;
    }

    /** Bytes of host data received so far. */
    public final int receivedLength() {
        return received;
    }

    public final NvmfRequestState state() {
        return state;
    }

    /** The pool the request belongs to. */
    public final NvmfRequestPool pool() {
        return pool;
    }

    /** Moves to {@code next}; BAD_STATE (counted by the pool, nothing changed) when the table forbids it. */
    public final DocaError transition(NvmfRequestState next) {
        if (!state.canTransitionTo(next)) {
            pool.badTransitions++;
            return DocaError.BAD_STATE;
        }
        state = next;
        pool.record(next);
        return DocaError.SUCCESS;
    }

    /** Sets the status and moves to EXECUTED (a refusal before or after execution). */
    final DocaError executed(int nvmeStatus) {
        status = nvmeStatus;
        return transition(NvmfRequestState.EXECUTED);
    }

    /** Fills a request just taken from the pool with the command's identity. */
    final void init(byte kind, int cid, int opcode) {
        this.kind = kind;
        this.cid = cid;
        this.opcode = opcode;
        this.status = NvmeStatus.SUCCESS;
        this.dw0 = 0;
        this.dw1 = 0;
        this.received = 0;
        this.len = 0;
    }

    /** Drops the references a free request must not keep; subclasses clear their own and call this. */
    protected void clear() {
        ns = null;
        queue = null;
        sink = null;
        channel = null;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + tag + ", cid=" + cid + ", " + state + "]";
    }
}
