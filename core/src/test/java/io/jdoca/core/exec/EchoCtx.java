package io.jdoca.core.exec;

import io.jdoca.core.DocaError;

/**
 * A minimal context for testing the runtime: an "echo" task completes with the status it carries,
 * on the next progress. Start can be made asynchronous to exercise STARTING.
 */
public final class EchoCtx extends Ctx {
    /** The test task: completes with {@link #result}. */
    public static final class EchoTask extends Task {
        public DocaError result = DocaError.SUCCESS;

        EchoTask(TaskPool<?> pool) {
            super(pool);
        }
    }

    public final TaskPool<EchoTask> pool;
    private final TaskQueue queue = new TaskQueue();
    public boolean asyncStart;
    public boolean stopCalled;
    public DocaError validation = DocaError.SUCCESS;
    private boolean stopping;

    public EchoCtx() {
        super("echo");
        pool = registerTaskType("echo", EchoTask::new);
    }

    public EchoTask allocInit(long userData) {
        EchoTask t = pool.alloc();
        if (t != null) {
            t.setUserData(userData);
            t.result = DocaError.SUCCESS;
        }
        return t;
    }

    public void finishStart(DocaError e) {
        startCompleted(e);
    }

    @Override
    protected DocaError onStart() {
        stopping = false;
        if (!pool.isConfigured()) {
            return DocaError.BAD_STATE;
        }
        return asyncStart ? DocaError.IN_PROGRESS : DocaError.SUCCESS;
    }

    @Override
    protected void onStop() {
        stopCalled = true;
        stopping = true;
    }

    @Override
    protected DocaError validateTask(Task t) {
        return validation;
    }

    @Override
    protected DocaError onSubmit(Task t) {
        queue.add(t);
        return DocaError.SUCCESS;
    }

    @Override
    public boolean hasPendingWork() {
        return !queue.isEmpty();
    }

    @Override
    protected int work() {
        int n = 0;
        int todo = queue.size();
        for (int i = 0; i < todo; i++) {
            EchoTask t = (EchoTask) queue.poll();
            complete(t, stopping ? DocaError.SHUTDOWN : t.result);
            n++;
        }
        return n;
    }
}
