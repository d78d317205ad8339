package io.jdoca.core.exec;

import io.jdoca.core.DocaError;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Base of every library context ({@code doca_ctx}): DMA, RDMA, EC, Compress, Comch, STA, sync
 * event. Owns the {@link CtxState} machine, the task pools, in-flight accounting and the
 * state-changed callback.
 *
 * <p><b>Life cycle.</b> Configure (task confs, library settings) while IDLE; connect to a
 * {@link ProgressEngine}; {@link #start()} returns SUCCESS (now RUNNING) or IN_PROGRESS (STARTING,
 * e.g. an RDMA connection being set up; poll the engine until RUNNING). {@link #stop()} returns
 * SUCCESS (now IDLE) or IN_PROGRESS: in-flight tasks are flushed through their error callbacks
 * during progress, and once every task has been freed the context becomes IDLE. Calls that make no
 * sense in the current state return BAD_STATE.
 *
 * <p><b>Threads.</b> Single writer: configure, start, stop, submit and progress on one thread (the
 * engine's). Subclasses that receive work from other threads hand it over through their own
 * queues and call {@link ProgressEngine#notifyWork()}.
 */
public abstract class Ctx implements Pollable {
    private final String name;
    private final List<TaskPool<?>> pools = new ArrayList<>();
    private CtxState state = CtxState.IDLE;
    private ProgressEngine pe;
    private CtxStateChangedCallback stateCb;
    private long userData;
    private Object userObject;
    private int inflight;
    private int allocated;
    private int queueDepth = 1024;
    private DocaError lastError = DocaError.SUCCESS;

    protected Ctx(String name) {
        this.name = name;
    }

    // ------------------------------------------------------------------ configuration

    /** Registers a task type; call from the subclass constructor. */
    protected final <T extends Task> TaskPool<T> registerTaskType(String typeName, Function<TaskPool<T>, T> factory) {
        TaskPool<T> pool = new TaskPool<>(this, typeName, factory);
        pools.add(pool);
        return pool;
    }

    /** Sets the state-changed callback ({@code doca_ctx_set_state_changed_cb}); IDLE only. */
    public final DocaError setStateChangedCallback(CtxStateChangedCallback cb) {
        if (state != CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        this.stateCb = cb;
        return DocaError.SUCCESS;
    }

    /**
     * Maximum number of tasks in flight at once; a submit beyond it returns AGAIN (a full hardware
     * queue in DOCA). IDLE only.
     */
    public final DocaError setQueueDepth(int depth) {
        if (state != CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (depth <= 0) {
            return DocaError.INVALID_VALUE;
        }
        this.queueDepth = depth;
        return DocaError.SUCCESS;
    }

    public final int queueDepth() {
        return queueDepth;
    }

    public final void setUserData(long userData) {
        this.userData = userData;
    }

    public final long userData() {
        return userData;
    }

    public final void setUserObject(Object o) {
        this.userObject = o;
    }

    public final Object userObject() {
        return userObject;
    }

    public final String name() {
        return name;
    }

    public final CtxState state() {
        return state;
    }

    public final ProgressEngine pe() {
        return pe;
    }

    /** Tasks submitted and not yet completed ({@code doca_ctx_get_num_inflight_tasks}). */
    public final int numInflightTasks() {
        return inflight;
    }

    /** Tasks taken from this context's pools and not freed yet. */
    public final int numAllocatedTasks() {
        return allocated;
    }

    /** Why the last {@code alloc} returned null (NO_MEMORY or BAD_STATE); allocation-free. */
    public final DocaError lastError() {
        return lastError;
    }

    protected final void setLastError(DocaError e) {
        this.lastError = e;
    }

    final DocaError attach(ProgressEngine engine) {
        if (state != CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (pe != null) {
            return DocaError.IN_USE;
        }
        this.pe = engine;
        return DocaError.SUCCESS;
    }

    // ------------------------------------------------------------------ life cycle

    /** {@code doca_ctx_start}: SUCCESS (RUNNING), IN_PROGRESS (STARTING) or an error (still IDLE). */
    public final DocaError start() {
        if (state != CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (pe == null) {
            return DocaError.BAD_STATE;
        }
        DocaError e = onStart();
        if (e == DocaError.SUCCESS) {
            transition(CtxState.RUNNING);
        } else if (e == DocaError.IN_PROGRESS) {
            transition(CtxState.STARTING);
        }
        return e;
    }

    /** {@code doca_ctx_stop}: SUCCESS (now IDLE), IN_PROGRESS (STOPPING; keep progressing), or BAD_STATE when IDLE. */
    public final DocaError stop() {
        switch (state) {
            case IDLE:
                return DocaError.BAD_STATE;
            case STOPPING:
                return DocaError.IN_PROGRESS;
            default:
                break;
        }
        DocaError refused = checkStop();
        if (refused != DocaError.SUCCESS) {
            return refused;
        }
        onStop();
        if (readyForIdle()) {
            becomeIdle();
            return DocaError.SUCCESS;
        }
        transition(CtxState.STOPPING);
        return DocaError.IN_PROGRESS;
    }

    /** For asynchronous starts: the subclass reports that STARTING has finished. */
    protected final void startCompleted(DocaError result) {
        if (state != CtxState.STARTING) {
            return;
        }
        if (result == DocaError.SUCCESS) {
            transition(CtxState.RUNNING);
        } else {
            onStop();
            if (readyForIdle()) {
                becomeIdle();
            } else {
                transition(CtxState.STOPPING);
            }
        }
    }

    /**
     * The subclass asks to stop by itself (e.g. its connection broke): like {@link #stop()} but
     * from inside the engine. In-flight tasks are flushed through their error callbacks.
     */
    protected final void stopFromWithin() {
        if (state == CtxState.RUNNING || state == CtxState.STARTING) {
            stop();
        }
    }

    private boolean readyForIdle() {
        return inflight == 0 && allocated == 0 && canBecomeIdle();
    }

    private void becomeIdle() {
        transition(CtxState.IDLE);
        onIdle();
    }

    private void transition(CtxState next) {
        CtxState prev = state;
        if (!prev.canTransitionTo(next)) {
            // Unreachable by construction; kept as a guard so a bug shows up as a refused transition.
            lastError = DocaError.BAD_STATE;
            return;
        }
        state = next;
        if (stateCb != null) {
            stateCb.onStateChanged(userData, this, prev, next);
        }
    }

    // ------------------------------------------------------------------ tasks

    final DocaError submitTask(Task t, boolean validate) {
        if (t.state != TaskState.ALLOCATED && t.state != TaskState.COMPLETED) {
            return DocaError.BAD_STATE;
        }
        if (state != CtxState.RUNNING) {
            return DocaError.BAD_STATE;
        }
        if (inflight >= queueDepth) {
            return DocaError.AGAIN;
        }
        if (validate) {
            DocaError v = validateTask(t);
            if (v != DocaError.SUCCESS) {
                return v;
            }
        }
        TaskState before = t.state;
        t.state = TaskState.SUBMITTED;
        inflight++;
        DocaError e = onSubmit(t);
        if (e != DocaError.SUCCESS) {
            t.state = before;
            inflight--;
        }
        return e;
    }

    /**
     * Completes a submitted task: sets its status and runs its callback (or graph interceptor).
     * Subclasses call this from {@link #work()} only, i.e. inside {@link ProgressEngine#progress()}.
     */
    protected final void complete(Task t, DocaError status) {
        t.state = TaskState.COMPLETED;
        t.setStatus(status);
        inflight--;
        t.deliver();
    }

    void onTaskAllocated() {
        allocated++;
    }

    void onTaskFreed() {
        allocated--;
        if (state == CtxState.STOPPING && readyForIdle()) {
            becomeIdle();
        }
    }

    @Override
    public final int doWork() {
        if (state == CtxState.IDLE) {
            return 0;
        }
        int n = work();
        if (state == CtxState.STOPPING && readyForIdle()) {
            becomeIdle();
        }
        return n;
    }

    @Override
    public boolean hasPendingWork() {
        return false;
    }

    // ------------------------------------------------------------------ subclass hooks

    /** Validates configuration and starts; SUCCESS, IN_PROGRESS (call {@link #startCompleted}) or an error. */
    protected abstract DocaError onStart();

    /**
     * Stop has begun: from now on {@link #work()} must complete every in-flight task with an error
     * status (typically SHUTDOWN), and the subclass must refuse new work.
     */
    protected abstract void onStop();

    /**
     * Lets a context refuse {@link #stop()} while RUNNING or STARTING (e.g. a main context whose
     * dependent contexts still run must be stopped after them): return BAD_STATE to refuse, the
     * state is then unchanged (also for {@link #stopFromWithin()}). Default: SUCCESS.
     */
    protected DocaError checkStop() {
        return DocaError.SUCCESS;
    }

    /** Called once the context is IDLE again: release engine resources. */
    protected void onIdle() {
    }

    /** Extra condition for STOPPING → IDLE (e.g. a connection fully closed). */
    protected boolean canBecomeIdle() {
        return true;
    }

    /** Submit-time parameter checks (skipped by {@link Task#trySubmit()}). */
    protected DocaError validateTask(Task t) {
        return DocaError.SUCCESS;
    }

    /** Accepts a submitted task into the engine; must not complete it synchronously. */
    protected abstract DocaError onSubmit(Task t);

    /** One duty cycle: execute queued work, deliver completions; returns completions delivered. */
    protected abstract int work();

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name + ", " + state + ", inflight=" + inflight + "]";
    }
}
