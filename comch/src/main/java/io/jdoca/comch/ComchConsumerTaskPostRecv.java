package io.jdoca.comch;

import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;

/**
 * Posts a receive buffer to a consumer ({@code doca_comch_consumer_task_post_recv}): completes when
 * a producer's message has been appended to the buffer's tailroom, with the immediate data
 * available through {@link #immData()} / {@link #immDataLen()}. Re-arm with {@link #setBuf} (or
 * {@code buf().resetDataLen()}) and resubmit.
 *
 * <p>Not thread-safe: the consumer's progress-engine thread.
 */
public final class ComchConsumerTaskPostRecv extends Task {
    Buf buf;
    final byte[] imm = new byte[Comch.MAX_IMM_DATA_LEN];
    int immLen;

    ComchConsumerTaskPostRecv(TaskPool<?> pool) {
        super(pool);
    }

    public Buf buf() {
        return buf;
    }

    public void setBuf(Buf b) {
        this.buf = b;
    }

    /** The immediate data of the received message (bytes {@code [0, immDataLen())}). */
    public byte[] immData() {
        return imm;
    }

    public int immDataLen() {
        return immLen;
    }

    @Override
    protected void onFree() {
        buf = null;
    }
}
