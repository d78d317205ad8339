package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The data-path verbs of one device context: {@code ibv_poll_cq}, {@code ibv_req_notify_cq},
 * {@code ibv_post_send} and {@code ibv_post_recv} are static inline in {@code verbs.h} and jump through
 * {@code context->ops}; this class reads those provider function pointers once
 * ({@link VerbsLayouts#IBV_CONTEXT} {@code ops.*}) and calls them through address-taking downcall
 * handles shared by every context. No allocation and no exception per call: results are the provider's
 * status codes, as in C.
 *
 * <p>Thread rules: immutable; the provider's own rules apply (one poller per CQ, posts to one QP
 * serialized by the caller or the provider's lock).
 */
// FFM: this class is a native binding; its downcall handles and reinterpreted segments are the point
@SuppressWarnings("restricted")
public final class ContextOps {
    private static final MethodHandle POLL_CQ = NativeLib.LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    private static final MethodHandle REQ_NOTIFY_CQ = NativeLib.LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle POST = NativeLib.LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    private final MemorySegment pollCq;
    private final MemorySegment reqNotifyCq;
    private final MemorySegment postSend;
    private final MemorySegment postRecv;
    private final MemorySegment postSrqRecv;

    /** Reads the ops of {@code ctx} (a {@code struct ibv_context *}). */
    public ContextOps(MemorySegment ctx) {
        MemorySegment c = ctx.reinterpret(VerbsLayouts.IBV_CONTEXT.byteSize());
        this.pollCq = c.get(ADDRESS, VerbsLayouts.CTX_POLL_CQ);
        this.reqNotifyCq = c.get(ADDRESS, VerbsLayouts.CTX_REQ_NOTIFY_CQ);
        this.postSend = c.get(ADDRESS, VerbsLayouts.CTX_POST_SEND);
        this.postRecv = c.get(ADDRESS, VerbsLayouts.CTX_POST_RECV);
        this.postSrqRecv = c.get(ADDRESS, VerbsLayouts.CTX_POST_SRQ_RECV); // NULL when the provider has no SRQ
        if (pollCq.equals(MemorySegment.NULL) || reqNotifyCq.equals(MemorySegment.NULL)
                || postSend.equals(MemorySegment.NULL) || postRecv.equals(MemorySegment.NULL)) {
            throw new VerbsException("ibv_context.ops", "the provider left a data-path verb unset");
        }
    }

    /**
     * {@code ibv_poll_cq}: up to {@code n} completions into {@code wcs} ({@code n} × {@link VerbsLayouts#IBV_WC});
     * returns how many, or a negative value on error.
     */
    public int pollCq(MemorySegment cq, int n, MemorySegment wcs) {
        try {
            return (int) POLL_CQ.invokeExact(pollCq, cq, n, wcs);
        } catch (Throwable t) {
            throw new IllegalStateException(t); // a downcall does not throw
        }
    }

    /** {@code ibv_req_notify_cq}: arm the CQ's completion channel; 0 or an errno value. */
    public int reqNotifyCq(MemorySegment cq, boolean solicitedOnly) {
        try {
            return (int) REQ_NOTIFY_CQ.invokeExact(reqNotifyCq, cq, solicitedOnly ? 1 : 0);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * {@code ibv_post_send} of a chain of {@link VerbsLayouts#IBV_SEND_WR}; {@code badWr} is a pointer-sized
     * cell the provider sets to the first failed request. 0 or an errno value.
     */
    public int postSend(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        try {
            return (int) POST.invokeExact(postSend, qp, wr, badWr);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code ibv_post_recv} of a chain of {@link VerbsLayouts#IBV_RECV_WR}; 0 or an errno value. */
    public int postRecv(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        try {
            return (int) POST.invokeExact(postRecv, qp, wr, badWr);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** True when the provider implements {@code ibv_post_srq_recv} (shared receive queues). */
    public boolean hasSrq() {
        return !postSrqRecv.equals(MemorySegment.NULL);
    }

    /**
     * {@code ibv_post_srq_recv} of a chain of {@link VerbsLayouts#IBV_RECV_WR} to a shared receive queue; 0 or an errno
     * value.
     */
    public int postSrqRecv(MemorySegment srq, MemorySegment wr, MemorySegment badWr) {
        try {
            return (int) POST.invokeExact(postSrqRecv, srq, wr, badWr);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
