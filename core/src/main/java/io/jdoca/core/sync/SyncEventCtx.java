package io.jdoca.core.sync;

import io.jdoca.core.DocaError;
import io.jdoca.core.exec.Ctx;
import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskCallback;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.exec.TaskQueue;

/**
 * A {@link SyncEvent} as a context ({@code doca_sync_event_as_ctx}): get, notify-set, notify-add and
 * wait as asynchronous tasks completed in {@link io.jdoca.core.exec.ProgressEngine#progress()}.
 * Pending waits are re-checked on every progress; because another process may be the publisher
 * (which cannot wake this engine), the engine's notification sleep is bounded to
 * {@link #WAIT_POLL_NANOS} while a wait is pending.
 *
 * <p>Not thread-safe: the engine's thread.
 */
public final class SyncEventCtx extends Ctx {
    /** Longest notification-mode sleep while a wait task is pending. */
    public static final long WAIT_POLL_NANOS = 100_000;

    private final SyncEvent event;
    private final TaskPool<SyncEventTask.Get> getPool;
    private final TaskPool<SyncEventTask.NotifySet> setPool;
    private final TaskPool<SyncEventTask.NotifyAdd> addPool;
    private final TaskPool<SyncEventTask.Wait> waitPool;
    private final TaskQueue ready = new TaskQueue();
    private final TaskQueue waiting = new TaskQueue();
    private boolean stopping;

    SyncEventCtx(SyncEvent event) {
        super("sync_event");
        this.event = event;
        this.getPool = registerTaskType("get", SyncEventTask.Get::new);
        this.setPool = registerTaskType("notify_set", SyncEventTask.NotifySet::new);
        this.addPool = registerTaskType("notify_add", SyncEventTask.NotifyAdd::new);
        this.waitPool = registerTaskType("wait", SyncEventTask.Wait::new);
    }

    public SyncEvent event() {
        return event;
    }

    public DocaError taskGetSetConf(TaskCallback<SyncEventTask.Get> ok, TaskCallback<SyncEventTask.Get> err, int n) {
        return getPool.setConf(ok, err, n);
    }

    public DocaError taskNotifySetSetConf(TaskCallback<SyncEventTask.NotifySet> ok,
            TaskCallback<SyncEventTask.NotifySet> err,
            int n) {
        return setPool.setConf(ok, err, n);
    }

    public DocaError taskNotifyAddSetConf(TaskCallback<SyncEventTask.NotifyAdd> ok,
            TaskCallback<SyncEventTask.NotifyAdd> err,
            int n) {
        return addPool.setConf(ok, err, n);
    }

    public DocaError taskWaitSetConf(TaskCallback<SyncEventTask.Wait> ok, TaskCallback<SyncEventTask.Wait> err, int n) {
        return waitPool.setConf(ok, err, n);
    }

    public SyncEventTask.Get taskGetAllocInit(long userData) {
        SyncEventTask.Get t = getPool.alloc();
        if (t != null) {
            t.setUserData(userData);
        }
        return t;
    }

    public SyncEventTask.NotifySet taskNotifySetAllocInit(long value, long userData) {
        SyncEventTask.NotifySet t = setPool.alloc();
        if (t != null) {
            t.value = value;
            t.setUserData(userData);
        }
        return t;
    }

    public SyncEventTask.NotifyAdd taskNotifyAddAllocInit(long delta, long userData) {
        SyncEventTask.NotifyAdd t = addPool.alloc();
        if (t != null) {
            t.value = delta;
            t.setUserData(userData);
        }
        return t;
    }

    /** Completes once the event's value is greater than {@code value}. */
    public SyncEventTask.Wait taskWaitGtAllocInit(long value, long userData) {
        return waitInit(SyncEvent.WaitCondition.GT, value, -1L, userData);
    }

    /** Completes once {@code (event & mask) == (value & mask)}. */
    public SyncEventTask.Wait taskWaitEqAllocInit(long value, long mask, long userData) {
        return waitInit(SyncEvent.WaitCondition.EQ, value, mask, userData);
    }

    /** Completes once {@code (event & mask) != (value & mask)}. */
    public SyncEventTask.Wait taskWaitNeqAllocInit(long value, long mask, long userData) {
        return waitInit(SyncEvent.WaitCondition.NEQ, value, mask, userData);
    }

    private SyncEventTask.Wait waitInit(SyncEvent.WaitCondition c, long value, long mask, long userData) {
        SyncEventTask.Wait t = waitPool.alloc();
        if (t != null) {
            t.condition = c;
            t.value = value;
            t.mask = mask;
            t.setUserData(userData);
        }
        return t;
    }

    @Override
    protected DocaError onStart() {
        stopping = false;
        return DocaError.SUCCESS;
    }

    @Override
    protected void onStop() {
        stopping = true;
    }

    @Override
    protected DocaError onSubmit(Task t) {
        (t instanceof SyncEventTask.Wait ? waiting : ready).add(t);
        return DocaError.SUCCESS;
    }

    @Override
    public boolean hasPendingWork() {
        return !ready.isEmpty() || (!waiting.isEmpty() && anyWaitSatisfied());
    }

    @Override
    public long maxSleepNanos() {
        return waiting.isEmpty() ? Long.MAX_VALUE : WAIT_POLL_NANOS;
    }

    /** Checks the oldest wait only: cheap, and the bounded sleep covers the others. */
    private boolean anyWaitSatisfied() {
        SyncEventTask.Wait w = (SyncEventTask.Wait) waiting.peek();
        return w != null && w.condition.holds(event.get(), w.value, w.mask);
    }

    @Override
    protected int work() {
        int n = 0;
        Task t;
        while ((t = ready.poll()) != null) {
            SyncEventTask s = (SyncEventTask) t;
            if (stopping) {
                complete(s, DocaError.SHUTDOWN);
            } else {
                if (s instanceof SyncEventTask.Get) {
                    s.result = event.get();
                } else if (s instanceof SyncEventTask.NotifySet) {
                    event.updateSet(s.value);
                    s.result = s.value;
                } else {
                    s.result = event.updateAdd(s.value);
                }
                complete(s, DocaError.SUCCESS);
            }
            n++;
        }
        // Re-check every pending wait once; unsatisfied ones go back in order.
        int pending = waiting.size();
        long v = event.get();
        for (int i = 0; i < pending; i++) {
            SyncEventTask.Wait w = (SyncEventTask.Wait) waiting.poll();
            if (stopping) {
                complete(w, DocaError.SHUTDOWN);
                n++;
            } else if (w.condition.holds(v, w.value, w.mask)) {
                w.result = v;
                complete(w, DocaError.SUCCESS);
                n++;
            } else {
                waiting.add(w);
            }
        }
        return n;
    }
}
