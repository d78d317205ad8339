package io.jdoca.core.exec;

import io.jdoca.core.DocaError;

/**
 * An asynchronous operation on a context ({@code doca_task}). Tasks are pre-allocated in a
 * {@link TaskPool} when the task type is configured; {@code alloc} takes one, {@link #submit()}
 * hands it to the context, and its completion or error callback runs inside
 * {@link ProgressEngine#progress()}. A completed task may be re-armed and submitted again, or
 * {@link #free() freed} back to its pool. Nothing here allocates.
 *
 * <p>Not thread-safe: use a task only on the thread of the progress engine its context is
 * connected to.
 */
public abstract class Task {
    private final TaskPool<?> pool;
    private final Ctx ctx;
    TaskState state = TaskState.FREE;
    private DocaError status = DocaError.SUCCESS;
    private long userData;
    private Object userObject;
    private CompletionInterceptor interceptor;
    private int interceptorToken;
    /** Intrusive link for the owning context's queues (one queue at a time). */
    Task nextInQueue;

    protected Task(TaskPool<?> pool) {
        this.pool = pool;
        this.ctx = pool.ctx();
    }

    /** Hands the task to its context after validating its parameters ({@code doca_task_submit}). */
    public final DocaError submit() {
        return ctx.submitTask(this, true);
    }

    /**
     * Hands the task over without the submit-time parameter checks ({@code doca_task_try_submit}):
     * the context still checks when it executes the task, and a bad task then completes through
     * its error callback instead of failing here.
     */
    public final DocaError trySubmit() {
        return ctx.submitTask(this, false);
    }

    /** Returns the task to its pool ({@code doca_task_free}); BAD_STATE while it is in flight. */
    public final DocaError free() {
        if (state != TaskState.ALLOCATED && state != TaskState.COMPLETED) {
            return DocaError.BAD_STATE;
        }
        interceptor = null;
        onFree();
        pool.release(this);
        return DocaError.SUCCESS;
    }

    /** The completion status ({@code doca_task_get_status}); meaningful in the callbacks. */
    public final DocaError status() {
        return status;
    }

    public final TaskState state() {
        return state;
    }

    public final Ctx ctx() {
        return ctx;
    }

    public final long userData() {
        return userData;
    }

    public final void setUserData(long userData) {
        this.userData = userData;
    }

    /** Object user data (the pointer half of DOCA's {@code union doca_data}). */
    public final Object userObject() {
        return userObject;
    }

    public final void setUserObject(Object userObject) {
        this.userObject = userObject;
    }

    /** Hook for subclasses: clear references when the task goes back to its pool. */
    protected void onFree() {
    }

    final TaskPool<?> pool() {
        return pool;
    }

    final void setStatus(DocaError status) {
        this.status = status;
    }

    /**
     * Routes this task's next completion to {@code interceptor} instead of its callbacks. Used by
     * {@code Graph} instances, which own the tasks of their context nodes; not for applications.
     */
    public final void interceptCompletion(CompletionInterceptor interceptor, int token) {
        this.interceptor = interceptor;
        this.interceptorToken = token;
    }

    final void deliver() {
        CompletionInterceptor i = interceptor;
        if (i != null) {
            i.onTaskCompleted(this, interceptorToken);
        } else {
            pool.deliver(this);
        }
    }

    /** Receives completions of intercepted tasks (see {@link #interceptCompletion}). */
    @FunctionalInterface
    public interface CompletionInterceptor {
        void onTaskCompleted(Task task, int token);
    }
}
