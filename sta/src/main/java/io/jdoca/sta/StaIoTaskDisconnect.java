package io.jdoca.sta;

import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskPool;

/**
 * QP disconnect task ({@code doca_sta_io_task_disconnect}): stops taking new commands on the QP, waits until its
 * in-flight I/O (pending R2T transfers, unsent data) drains or a grace period passes, then closes the connection. Runs
 * on the IO context that owns the QP.
 *
 * <p>Not thread-safe: use on the thread of the context's progress engine.
 */
public final class StaIoTaskDisconnect extends Task {
    StaQp qp;
    long deadline;

    public StaQp qp() {
        return qp;
    }

    StaIoTaskDisconnect(TaskPool<?> pool) {
        super(pool);
    }

    /** Fills a task just allocated ({@link StaIo#taskDisconnectAllocInit}). */
    StaIoTaskDisconnect init(StaQp qp, long userData) {
        this.qp = qp;
        setUserData(userData);
        return this;
    }

    @Override
    protected void onFree() {
        qp = null;
    }
}
