package io.jdoca.sta;

import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.sta.backend.StaBeQueue;

/**
 * Destroy back-end queue task ({@code doca_sta_be_task_destroy_queue}): marks the queue destroyed (commands routed to
 * it complete with an error), waits for its outstanding commands, then completes. Runs on the main context.
 *
 * <p>Not thread-safe: use on the thread of the context's progress engine.
 */
public final class StaTaskDestroyBeQueue extends Task {
    StaBeQueue queue;

    public StaBeQueue queue() {
        return queue;
    }

    StaTaskDestroyBeQueue(TaskPool<?> pool) {
        super(pool);
    }

    @Override
    protected void onFree() {
        queue = null;
    }
}
