package io.jdoca.comch;

import io.jdoca.core.DocaError;
import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;
import java.lang.foreign.MemorySegment;

/**
 * Sends a buffer's data section to a remote consumer ({@code doca_comch_producer_task_send(buf,
 * imm, imm_len, consumer_id)}). Completes once the message is in the consumer's ring. Re-arm with the
 * setters and resubmit.
 *
 * <p>Not thread-safe: the producer's progress-engine thread.
 */
public final class ComchProducerTaskSend extends Task {
    Buf buf;
    final MemorySegment imm = MemorySegment.ofArray(new byte[Comch.MAX_IMM_DATA_LEN]);
    int immLen;
    int remoteConsumerId;

    ComchProducerTaskSend(TaskPool<?> pool) {
        super(pool);
    }

    public Buf buf() {
        return buf;
    }

    public void setBuf(Buf b) {
        this.buf = b;
    }

    public int remoteConsumerId() {
        return remoteConsumerId;
    }

    public void setRemoteConsumerId(int id) {
        this.remoteConsumerId = id;
    }

    /** Copies immediate data (≤ {@link Comch#MAX_IMM_DATA_LEN} bytes); INVALID_VALUE if longer. Allocation-free. */
    public DocaError setImmData(MemorySegment src, int len) {
        if (len < 0 || len > Comch.MAX_IMM_DATA_LEN || (len > 0 && (src == null || src.byteSize() < len))) {
            return DocaError.INVALID_VALUE;
        }
        if (len > 0) {
            MemorySegment.copy(src, 0, imm, 0, len);
        }
        this.immLen = len;
        return DocaError.SUCCESS;
    }

    public int immDataLen() {
        return immLen;
    }

    @Override
    protected void onFree() {
        buf = null;
    }
}
