package io.jdoca.core.sync;

import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskPool;

/**
 * The asynchronous sync-event operations ({@code doca_sync_event_task_get}, {@code _notify_set},
 * {@code _notify_add}, {@code _wait_gt}/{@code _eq}/{@code _neq}), one class per operation below.
 * {@link #result()} holds the value read (get), the value before the add (notify-add) or the value
 * that satisfied the wait.
 *
 * <p>Not thread-safe: the sync event context's engine thread.
 */
public abstract sealed class SyncEventTask extends Task {
    long value;
    long mask = -1L;
    long result;

    SyncEventTask(TaskPool<?> pool) {
        super(pool);
    }

    public long value() {
        return value;
    }

    public void setValue(long value) {
        this.value = value;
    }

    public long result() {
        return result;
    }

    /** {@code doca_sync_event_task_get}. */
    public static final class Get extends SyncEventTask {
        Get(TaskPool<?> pool) {
            super(pool);
        }
    }

    /** {@code doca_sync_event_task_notify_set}. */
    public static final class NotifySet extends SyncEventTask {
        NotifySet(TaskPool<?> pool) {
            super(pool);
        }
    }

    /** {@code doca_sync_event_task_notify_add}. */
    public static final class NotifyAdd extends SyncEventTask {
        NotifyAdd(TaskPool<?> pool) {
            super(pool);
        }
    }

    /** A wait: completes (successfully) once the condition holds; flushed with SHUTDOWN on stop. */
    public static final class Wait extends SyncEventTask {
        SyncEvent.WaitCondition condition = SyncEvent.WaitCondition.GT;

        Wait(TaskPool<?> pool) {
            super(pool);
        }

        public SyncEvent.WaitCondition condition() {
            return condition;
        }

        public long mask() {
            return mask;
        }
    }
}
