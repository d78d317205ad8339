package io.jdoca.core.exec;

import io.jdoca.core.DocaError;

/**
 * Base of the contexts whose engine runs on the progress engine's own thread (DMA, EC, Compress):
 * submitted tasks wait in a FIFO and {@link #work()} executes at most {@code batch} of them per
 * progress call, in submission order, so one context cannot starve the others. Once stop has begun,
 * queued tasks complete with SHUTDOWN instead of executing. Subclasses supply {@link #startEngine()}
 * and {@link #execute(Task)}; nothing here allocates.
 *
 * <p>Not thread-safe: the progress engine's thread.
 */
public abstract class InlineEngineCtx extends Ctx {
    private final int batch;
    private final TaskQueue queue = new TaskQueue();
    private boolean stopping;

    protected InlineEngineCtx(String name, int batch) {
        super(name);
        this.batch = batch;
    }

    /** Checks the configuration and prepares the engine; SUCCESS or why the context cannot start. */
    protected abstract DocaError startEngine();

    /** Runs one task now and returns its completion status (checks included: trySubmit skips submit-time ones). */
    protected abstract DocaError execute(Task t);

    @Override
    protected final DocaError onStart() {
        DocaError e = startEngine();
        if (e == DocaError.SUCCESS) {
            stopping = false;
        }
        return e;
    }

    @Override
    protected final void onStop() {
        stopping = true;
    }

    @Override
    protected final DocaError onSubmit(Task t) {
        queue.add(t);
        return DocaError.SUCCESS;
    }

    @Override
    public final boolean hasPendingWork() {
        return !queue.isEmpty();
    }

    @Override
    protected final int work() {
        int n = 0;
        while (n < batch) {
            Task t = queue.poll();
            if (t == null) {
                break;
            }
            complete(t, stopping ? DocaError.SHUTDOWN : execute(t));
            n++;
        }
        return n;
    }
}
