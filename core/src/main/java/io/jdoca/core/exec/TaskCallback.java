package io.jdoca.core.exec;

/**
 * A task completion or error callback ({@code doca_<lib>_task_<op>_completion_cb_t}): called on
 * the progress engine's thread from {@link ProgressEngine#progress()}, with the task's and the
 * context's user data. The callback may free the task, re-arm and resubmit it, or submit others.
 *
 * @param <T> the task type
 */
@FunctionalInterface
public interface TaskCallback<T extends Task> {
    void onCompletion(T task, long taskUserData, long ctxUserData);
}
