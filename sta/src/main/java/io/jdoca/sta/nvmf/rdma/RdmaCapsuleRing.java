package io.jdoca.sta.nvmf.rdma;

import io.jdoca.core.mem.NativeMemory;
import java.lang.foreign.MemorySegment;

/**
 * The receive side of an NVMe/RDMA queue pair (NVMe RDMA Transport 1.0 §3.2: command capsules
 * arrive as RDMA SENDs into receive buffers the controller posted, each IOCCSZ × 16 bytes): a
 * ring of pre-posted, registered capsule buffers, one more than the host's send queue holds (the
 * spare covers the moment between a response reaching the host and the capsule's buffer being
 * posted again), and a FIFO of received capsules waiting for command resources (a data buffer).
 * A capsule's buffer is posted again as soon as its command has been handed to the command layer,
 * which consumes in-capsule data within that call.
 *
 * <p>Not thread-safe: the owning IO engine's thread.
 */
final class RdmaCapsuleRing {
    static final long KIND_RECV = 1L << 32;

    final int slots;
    final int capsuleSize;
    final MemorySegment area;
    /** Bytes received per slot (while backlogged). */
    private final int[] received;
    private final int[] backlog;
    private int backlogHead;
    private int backlogCount;
    long reposts;

    RdmaCapsuleRing(NativeMemory memory, int slots, int capsuleSize) {
        this.slots = slots;
        this.capsuleSize = capsuleSize;
        this.area = memory.allocate((long) slots * capsuleSize, 4096);
        this.received = new int[slots];
        this.backlog = new int[slots];
    }

    long offset(int slot) {
        return (long) slot * capsuleSize;
    }

    /** Posts every slot (control path, before the accept); 0 or the errno of the first failure. */
    int postAll(RdmaQueuePair rq) {
        for (int i = 0; i < slots; i++) {
            int rc = rq.postRecv(KIND_RECV | i, offset(i), capsuleSize);
            if (rc != 0) {
                return rc;
            }
        }
        return 0;
    }

    int repost(RdmaQueuePair rq, int slot) {
        reposts++;
        return rq.postRecv(KIND_RECV | slot, offset(slot), capsuleSize);
    }

    boolean backlogged() {
        return backlogCount > 0;
    }

    int backlogCount() {
        return backlogCount;
    }

    /** Queues a received capsule that could not be started yet. */
    void defer(int slot, int byteLen) {
        received[slot] = byteLen;
        backlog[(backlogHead + backlogCount) % slots] = slot;
        backlogCount++;
    }

    int peekSlot() {
        return backlog[backlogHead];
    }

    int peekLen() {
        return received[backlog[backlogHead]];
    }

    void pop() {
        backlogHead = (backlogHead + 1) % slots;
        backlogCount--;
    }
}
