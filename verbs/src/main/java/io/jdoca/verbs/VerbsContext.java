package io.jdoca.verbs;

import java.lang.foreign.MemorySegment;

/**
 * A device context ({@code struct ibv_context}): the handle every other verbs object is created on, and its
 * provider's data-path entry points ({@link ContextOps}). Either opened by jdoca ({@link VerbsDeviceContext}
 * holds one for the process) or the one rdma_cm opened for an id ({@link CmId#context()}); this object never
 * closes the device itself (its opener does).
 *
 * <p>Thread rules: immutable; objects may be created on it from any thread, as libibverbs allows.
 */
@SuppressWarnings("restricted") // FFM: the context pointer rdma-core returns is sized to struct ibv_context here
public final class VerbsContext {
    private final MemorySegment handle;
    private final ContextOps ops;

    private VerbsContext(MemorySegment handle) {
        this.handle = handle.reinterpret(VerbsLayouts.IBV_CONTEXT.byteSize());
        this.ops = new ContextOps(this.handle);
    }

    /** Wraps a {@code struct ibv_context *} (not NULL). */
    public static VerbsContext of(MemorySegment ctx) {
        if (ctx == null || ctx.equals(MemorySegment.NULL)) {
            throw new VerbsException("ibv_context", "no device context");
        }
        return new VerbsContext(ctx);
    }

    /** The {@code struct ibv_context *}. */
    public MemorySegment handle() {
        return handle;
    }

    /** The provider's data-path verbs. */
    public ContextOps ops() {
        return ops;
    }

    /** {@code ibv_alloc_pd}: a protection domain this object's caller owns (close it). */
    public ProtectionDomain allocPd() {
        return new ProtectionDomain(this, Verbs.allocPd(handle), true);
    }

    /** {@code ibv_create_comp_channel}, its fd non-blocking (see {@link CompletionChannel}). */
    public CompletionChannel createCompletionChannel() {
        return new CompletionChannel(this, Verbs.createCompChannel(handle));
    }

    /**
     * {@code ibv_create_cq} with room for {@code cqe} completions, reporting to {@code channel} when armed
     * ({@code null}: none; the owner polls), on completion vector {@code vector}.
     */
    public CompletionQueue createCq(int cqe, CompletionChannel channel, int vector) {
        MemorySegment ch = channel == null ? MemorySegment.NULL : channel.handle();
        return new CompletionQueue(this, Verbs.createCq(handle, cqe, ch, vector), channel);
    }

    @Override
    public String toString() {
        return "ibv_context@0x" + Long.toHexString(handle.address());
    }
}
