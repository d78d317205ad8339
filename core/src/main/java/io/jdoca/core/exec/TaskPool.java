package io.jdoca.core.exec;

import io.jdoca.core.DocaError;
import java.util.function.Function;

/**
 * The pre-allocated tasks of one task type of one context, with their callbacks
 * ({@code <lib>_task_<op>_set_conf}). Every task object is created in {@link #setConf}; after that
 * {@link #alloc()} and {@link Task#free()} only move references on a stack.
 *
 * <p>Not thread-safe: the owning context's progress-engine thread only.
 *
 * @param <T> the task type
 */
public final class TaskPool<T extends Task> {
    private final Ctx ctx;
    private final String name;
    private final Function<TaskPool<T>, T> factory;
    private TaskCallback<T> successCb;
    private TaskCallback<T> errorCb;
    private Task[] free = new Task[0];
    private int top;
    private int size;

    TaskPool(Ctx ctx, String name, Function<TaskPool<T>, T> factory) {
        this.ctx = ctx;
        this.name = name;
        this.factory = factory;
    }

    /**
     * Sets the callbacks and creates {@code poolSize} tasks. Only while the context is IDLE and
     * no task of this type is outstanding (BAD_STATE otherwise).
     */
    public DocaError setConf(TaskCallback<T> success, TaskCallback<T> error, int poolSize) {
        if (ctx.state() != CtxState.IDLE || numAllocated() != 0) {
            return DocaError.BAD_STATE;
        }
        if (success == null || error == null || poolSize <= 0) {
            return DocaError.INVALID_VALUE;
        }
        this.successCb = success;
        this.errorCb = error;
        Task[] tasks = new Task[poolSize];
        for (int i = 0; i < poolSize; i++) {
            tasks[i] = factory.apply(this);
        }
        this.free = tasks;
        this.top = poolSize;
        this.size = poolSize;
        return DocaError.SUCCESS;
    }

    public boolean isConfigured() {
        return successCb != null;
    }

    /**
     * Takes a task ({@code doca_<lib>_task_<op>_alloc_init}); {@code null} when the pool is empty
     * (the context's {@link Ctx#lastError()} is then NO_MEMORY) or the context is not RUNNING
     * (BAD_STATE). Allocation-free.
     */
    @SuppressWarnings("unchecked")
    public T alloc() {
        if (ctx.state() != CtxState.RUNNING) {
            ctx.setLastError(DocaError.BAD_STATE);
            return null;
        }
        if (top == 0) {
            ctx.setLastError(DocaError.NO_MEMORY);
            return null;
        }
        Task t = free[--top];
        free[top] = null;
        t.state = TaskState.ALLOCATED;
        t.setStatus(DocaError.SUCCESS);
        t.setUserData(0);
        t.setUserObject(null);
        ctx.onTaskAllocated();
        return (T) t;
    }

    void release(Task t) {
        t.state = TaskState.FREE;
        free[top++] = t;
        ctx.onTaskFreed();
    }

    @SuppressWarnings("unchecked")
    void deliver(Task t) {
        T task = (T) t;
        if (t.status() == DocaError.SUCCESS) {
            successCb.onCompletion(task, t.userData(), ctx.userData());
        } else {
            errorCb.onCompletion(task, t.userData(), ctx.userData());
        }
    }

    public String name() {
        return name;
    }

    public int size() {
        return size;
    }

    public int numFree() {
        return top;
    }

    public int numAllocated() {
        return size - top;
    }

    Ctx ctx() {
        return ctx;
    }
}
