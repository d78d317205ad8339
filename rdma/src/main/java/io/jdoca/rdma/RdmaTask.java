package io.jdoca.rdma;

import io.jdoca.core.DocaError;
import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.MemoryMap;

/**
 * Common base of the RDMA tasks: the connection, the local and remote buffers and the operands,
 * plus the transport's bookkeeping. Applications use the concrete task types.
 *
 * <p>Threads: as every {@link Task}, owned by the progress engine's thread; while in flight on a
 * TCP connection the transport thread fills in the results and hands it back through a lock-free
 * ring (which orders the writes).
 */
public abstract class RdmaTask extends Task {
    static final int K_RECV = 1;
    static final int K_SEND = 2;
    static final int K_SEND_IMM = 3;
    static final int K_READ = 4;
    static final int K_WRITE = 5;
    static final int K_WRITE_IMM = 6;
    static final int K_CAS = 7;
    static final int K_FADD = 8;
    static final int K_SE_GET = 9;
    static final int K_SE_SET = 10;
    static final int K_SE_ADD = 11;

    final int kind;
    RdmaConnection conn;
    /** Source (send, write, sync-event set) or destination (receive, read, atomic result, sync-event get). */
    Buf local;
    /** Remote buffer (read source, write destination, atomic destination); null for sync events. */
    Buf remote;
    SyncEventRemoteNet event;
    long operand;
    long swap;
    int immediate;

    // ---- transport bookkeeping, filled at execution
    /** Result the transport thread computed, read by the engine thread after the ring hand-off. */
    DocaError result = DocaError.SUCCESS;
    MemoryMap rMap;
    long rMapId;
    /** The remote map's capability, presented with one-sided requests (TCP). */
    long rCap0;
    long rCap1;
    long rAddr;
    long len;
    long seq;
    /** SHM: slot count after this message's last fragment (complete once the peer's head passes it). */
    long endSlot;
    /** SHM: bytes of the message already placed in the ring. */
    long sentBytes;
    boolean done;
    long resultLen;

    RdmaTask(TaskPool<?> pool, int kind) {
        super(pool);
        this.kind = kind;
    }

    /** The connection the task runs on (for a receive: the one it received on, after completion). */
    public RdmaConnection connection() {
        return conn;
    }

    /** Re-targets the task to another connection of the same context. */
    public void setConnection(RdmaConnection c) {
        this.conn = c;
    }

    void reset() {
        result = DocaError.SUCCESS;
        done = false;
        sentBytes = 0;
        resultLen = 0;
    }

    @Override
    protected void onFree() {
        local = null;
        remote = null;
        event = null;
        rMap = null;
        if (kind != K_RECV) {
            conn = null;
        }
    }
}
