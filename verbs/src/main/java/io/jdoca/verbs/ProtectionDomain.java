package io.jdoca.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A protection domain ({@code struct ibv_pd}): memory regions, queue pairs and shared receive queues are
 * created in it, and a QP may only use regions of its own domain. {@link #close()} deallocates it when this
 * object owns it ({@link VerbsContext#allocPd()}); the process-wide domain of a {@link VerbsDeviceContext} is
 * not closed here.
 *
 * <p>Thread rules: immutable; create objects from any thread (libibverbs serializes).
 */
public final class ProtectionDomain implements AutoCloseable {
    private final VerbsContext context;
    private final MemorySegment handle;
    private final boolean owned;
    private boolean closed;

    ProtectionDomain(VerbsContext context, MemorySegment handle, boolean owned) {
        this.context = context;
        this.handle = handle;
        this.owned = owned;
    }

    /** A domain this object does not own (e.g. {@link VerbsDeviceContext#pd()}): {@link #close()} leaves it. */
    public static ProtectionDomain wrap(VerbsContext context, MemorySegment pd) {
        return new ProtectionDomain(context, pd, false);
    }

    public VerbsContext context() {
        return context;
    }

    /** The {@code struct ibv_pd *}. */
    public MemorySegment handle() {
        return handle;
    }

    /**
     * {@code ibv_reg_mr} of a native segment with {@code IBV_ACCESS_*} flags. Heap segments are refused (the
     * device would DMA into memory the collector moves).
     */
    public MemoryRegion register(MemorySegment buf, int access) {
        return new MemoryRegion(Verbs.regMr(handle, buf, access), buf, buf.address());
    }

    /** {@code ibv_reg_mr_iova}: {@code buf} addressed as {@code [iova, iova + size)} by SGEs and peers. */
    public MemoryRegion registerIova(MemorySegment buf, long iova, int access) {
        return new MemoryRegion(Verbs.regMrIova(handle, buf, iova, access), buf, iova);
    }

    /** {@code ibv_create_srq}: room for {@code maxWr} receives of up to {@code maxSge} elements. */
    public SharedReceiveQueue createSrq(int maxWr, int maxSge) {
        return new SharedReceiveQueue(context.ops(), Verbs.createSrq(handle, maxWr, maxSge));
    }

    /** {@code ibv_create_qp}: a queue pair in RESET the owner moves through its states ({@link QueuePair#modify}). */
    public QueuePair createQp(QueuePair.Init init) {
        try (Arena a = Arena.ofConfined()) {
            return new QueuePair(context.ops(), Verbs.createQp(handle, init.fill(a)), null, init);
        }
    }

    /** {@code ibv_dealloc_pd} when owned (every region and QP in it must be gone). Idempotent. */
    @Override
    public void close() {
        if (owned && !closed) {
            closed = true;
            Verbs.deallocPd(handle);
        }
    }
}
