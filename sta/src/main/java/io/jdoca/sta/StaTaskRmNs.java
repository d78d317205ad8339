package io.jdoca.sta;

import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskPool;

/**
 * Remove-namespace task ({@code doca_sta_subsystem_task_rm_ns}): marks the namespace removed (new I/O to it completes
 * with Invalid Namespace), waits until its in-flight I/O drains, then detaches it. Completes on the main context.
 *
 * <p>Not thread-safe: use on the thread of the context's progress engine.
 */
public final class StaTaskRmNs extends Task {
    StaNamespace ns;

    public StaNamespace ns() {
        return ns;
    }

    StaTaskRmNs(TaskPool<?> pool) {
        super(pool);
    }

    @Override
    protected void onFree() {
        ns = null;
    }
}
