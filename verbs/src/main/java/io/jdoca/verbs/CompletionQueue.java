package io.jdoca.verbs;

import java.lang.foreign.MemorySegment;

/**
 * A completion queue ({@code struct ibv_cq}): where the send and receive work of its queue pairs completes.
 * {@link #poll} moves completions into a {@link WorkCompletions} flyweight; {@link #arm()} asks for one event
 * on its {@link CompletionChannel} at the next completion ({@code ibv_req_notify_cq}).
 *
 * <p>Thread rules: one poller (the engine thread); {@link #poll} and {@link #arm} allocate nothing and
 * return the provider's status instead of throwing. Create and close on the control path.
 */
public final class CompletionQueue implements AutoCloseable {
    private final ContextOps ops;
    private final MemorySegment handle;
    private final CompletionChannel channel;
    private boolean closed;

    CompletionQueue(VerbsContext context, MemorySegment handle, CompletionChannel channel) {
        this.ops = context.ops();
        this.handle = handle;
        this.channel = channel;
        if (channel != null) {
            channel.add(this);
        }
    }

    /** The {@code struct ibv_cq *}. */
    public MemorySegment handle() {
        return handle;
    }

    /** The channel its events go to, or null. */
    public CompletionChannel channel() {
        return channel;
    }

    /** {@code ibv_poll_cq} of up to {@code wc.capacity()} completions: how many, or a negative value on error. */
    public int poll(WorkCompletions wc) {
        return ops.pollCq(handle, wc.capacity(), wc.segment());
    }

    /** {@code ibv_poll_cq} of up to {@code max} (at most the flyweight's capacity). */
    public int poll(WorkCompletions wc, int max) {
        return ops.pollCq(handle, Math.min(max, wc.capacity()), wc.segment());
    }

    /** {@code ibv_req_notify_cq} for any completion: 0 or an errno value. */
    public int arm() {
        return ops.reqNotifyCq(handle, false);
    }

    /** {@code ibv_req_notify_cq}; {@code solicitedOnly}: only solicited or failed completions raise the event. */
    public int arm(boolean solicitedOnly) {
        return ops.reqNotifyCq(handle, solicitedOnly);
    }

    /** {@code ibv_destroy_cq}: after its queue pairs are destroyed. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            if (channel != null) {
                channel.remove(this);
            }
            Verbs.destroyCq(handle);
        }
    }
}
