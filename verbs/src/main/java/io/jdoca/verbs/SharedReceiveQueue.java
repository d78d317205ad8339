package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A shared receive queue ({@code struct ibv_srq}): receives posted once and consumed by whichever of its
 * queue pairs a message arrives on; the completion names that QP ({@link WorkCompletions#qpNum}).
 *
 * <p>Thread rules: one posting thread; {@link #post} allocates nothing. Create and close on the control path.
 */
public final class SharedReceiveQueue implements AutoCloseable {
    private final ContextOps ops;
    private final MemorySegment handle;
    private final MemorySegment badWr = Arena.ofAuto().allocate(ADDRESS);
    private boolean closed;

    SharedReceiveQueue(ContextOps ops, MemorySegment handle) {
        if (!ops.hasSrq()) {
            Verbs.destroySrq(handle);
            throw new VerbsException("ibv_post_srq_recv", "the provider has no shared receive queues");
        }
        this.ops = ops;
        this.handle = handle;
    }

    /** The {@code struct ibv_srq *}. */
    public MemorySegment handle() {
        return handle;
    }

    /** {@code ibv_post_srq_recv}: 0, or an errno value (ENOMEM: full). */
    public int post(RecvWr wr) {
        return ops.postSrqRecv(handle, wr.segment(), badWr);
    }

    /** {@code ibv_destroy_srq}: after its queue pairs are destroyed. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            Verbs.destroySrq(handle);
        }
    }
}
