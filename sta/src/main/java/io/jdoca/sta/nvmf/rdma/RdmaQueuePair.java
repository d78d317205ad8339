package io.jdoca.sta.nvmf.rdma;

import java.lang.foreign.MemorySegment;

/**
 * The verbs an NVMe/RDMA queue pair's transport needs from its reliable-connected QP, and nothing
 * more: receives into the capsule area, SENDs (optionally with Invalidate) from the response area,
 * RDMA WRITE / READ between the data area and host memory named by a keyed SGL, and completion
 * polling. {@link VerbsQueuePair} is the rdma-core implementation (ibv_post_send / ibv_post_recv /
 * ibv_poll_cq through FFM); tests use a fake that plays the host.
 *
 * <p>Contract: the three areas are registered once ({@link #register}) and every post names an
 * offset inside one of them; posts and polls allocate nothing and throw nothing (0 or an errno
 * value, as in C). Work-request ids are the caller's. Not thread-safe: the owning IO engine's
 * thread, except {@link #disconnect}, which any thread may call.
 */
public interface RdmaQueuePair {
    /** Registers (for local access only: the host never gets a key of ours) the three areas; control path, throws. */
    void register(MemorySegment recvArea, MemorySegment respArea, MemorySegment dataArea);

    /** Posts a receive of up to {@code len} bytes at {@code off} of the receive area. */
    int postRecv(long wrId, long off, int len);

    /**
     * Posts a signaled SEND of {@code len} bytes at {@code off} of the response area; with Invalidate of {@code rkey}
     * if asked.
     */
    int postSend(long wrId, long off, int len, boolean invalidate, int rkey);

    /**
     * Posts an unsignaled RDMA WRITE of {@code len} bytes at {@code off} of the data area to the host's {@code
     * raddr}/{@code rkey}.
     */
    int postWrite(long wrId, long off, int len, long raddr, int rkey);

    /**
     * Posts a signaled RDMA READ of {@code len} bytes of the host's {@code raddr}/{@code rkey} into {@code off} of the
     * data area.
     */
    int postRead(long wrId, long off, int len, long raddr, int rkey);

    /**
     * An RDMA WRITE of {@code len} bytes at {@code dataOff} of the data area to the host's {@code raddr}/{@code rkey}
     * (unsignaled), then a signaled SEND of {@code respLen} bytes at {@code respOff} of the response area (with
     * Invalidate of {@code invalidateRkey} if asked): a read's data and its response. The default posts them one
     * after the other; an implementation may chain them in one post (one doorbell).
     */
    default int postWriteAndSend(long writeId, long dataOff, int len, long raddr, int rkey, long sendId, long respOff,
                                 int respLen, boolean invalidate, int invalidateRkey) {
        int rc = postWrite(writeId, dataOff, len, raddr, rkey);
        return rc != 0 ? rc : postSend(sendId, respOff, respLen, invalidate, invalidateRkey);
    }

    /** Hands up to {@code max} completions to {@code sink}; returns how many, or a negative value on error. */
    int poll(RdmaCompletionSink sink, int max);

    /** Arms the completion channel (ibv_req_notify_cq) so the engine may sleep; 0 or an errno value. */
    int arm();

    /** The CQ, for acknowledging its completion events (NULL for fakes). */
    MemorySegment cq();

    /** Starts the disconnect (rdma_disconnect); posted work comes back flushed. Any thread; idempotent. */
    void disconnect();

    /** Frees the QP, CQ, registrations and the connection id; after a poll returns. */
    void destroy();
}
