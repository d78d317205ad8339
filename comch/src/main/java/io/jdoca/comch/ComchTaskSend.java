package io.jdoca.comch;

import io.jdoca.core.DocaError;
import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskPool;

/**
 * Sends one control message on a connection ({@code doca_comch_task_send}). The message bytes are
 * copied into the task's own pre-allocated buffer at alloc/re-arm time.
 *
 * <p>Not thread-safe: the progress-engine thread of its server or client.
 */
public final class ComchTaskSend extends Task {
    final byte[] msg;
    int len;
    ComchConnection connection;

    ComchTaskSend(TaskPool<?> pool, int maxMsgSize) {
        super(pool);
        this.msg = new byte[maxMsgSize];
    }

    /** Re-arms with a new message; INVALID_VALUE if it exceeds the maximum message size. */
    public DocaError setMsg(ComchConnection conn, byte[] src, int off, int length) {
        if (conn == null || src == null || length < 0 || length > msg.length || off < 0 || off > src.length - length) {
            return DocaError.INVALID_VALUE;
        }
        System.arraycopy(src, off, msg, 0, length);
        this.len = length;
        this.connection = conn;
        return DocaError.SUCCESS;
    }

    public ComchConnection connection() {
        return connection;
    }

    public int msgLen() {
        return len;
    }

    @Override
    protected void onFree() {
        connection = null;
    }
}
