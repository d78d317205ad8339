package io.jdoca.nvmf.perf;

import java.io.IOException;

/**
 * One NVMe-oF host queue as {@code nvme-perf} drives it, whatever the transport: Fabrics Connect,
 * Property Get/Set, admin commands (blocking, control path), then pipelined Read/Write submitted
 * without allocation and completed from {@link #poll()} through a {@link NvmeTcpHost.Listener}.
 * Implemented by {@link NvmeTcpHost} (NVMe/TCP) and {@link NvmeRdmaHost} (NVMe/RDMA).
 *
 * <p>Not thread-safe: one thread per queue.
 */
public interface NvmeHostQueue extends AutoCloseable {
    /** The callbacks of {@link #poll()}. */
    void setListener(NvmeTcpHost.Listener l);

    /**
     * Transport-level initialisation before Connect (NVMe/TCP: ICReq/ICResp; NVMe/RDMA: nothing, rdma_cm runs at
     * Connect).
     */
    void initialize() throws IOException;

    /** Fabrics Connect of queue {@code qid} with SQSIZE {@code sqsize0} (0's based); returns the CQE {status, dw0}. */
    int[] connect(int qid, int sqsize0, String subnqn, String hostnqn, int cntlid, long katoMs,
            int cattr) throws IOException;

    /** Property Set; returns {status, dw0, dw1}. */
    int[] propertySet(int offset, long value) throws IOException;

    /** Property Get: {status, low, high}. */
    int[] propertyGet(int offset, boolean eightBytes) throws IOException;

    /** An admin command returning {@code out.length} bytes (Identify); returns the status. */
    int adminRead(int opcode, int nsid, int cdw10, int cdw11, byte[] out) throws IOException;

    /** An admin command without data; returns {status, dw0, dw1}. */
    int[] adminSimple(int opcode, int nsid, int cdw10, int cdw11) throws IOException;

    /** Queues a Read of {@code nlb} blocks ({@code bytes}); false when it cannot be queued now. */
    boolean read(int cid, int nsid, long slba, int nlb, int bytes);

    /** Queues a Write of {@code bytes} at {@code off} of {@code data}; false when it cannot be queued now. */
    boolean write(int cid, int nsid, long slba, int nlb, java.lang.foreign.MemorySegment data, long off, int bytes,
            int inCapsuleMax);

    /** Non-blocking duty cycle: sends what is queued, dispatches what arrived; returns the events handled. */
    int poll() throws IOException;

    /** Sleeps until something may have arrived or {@code timeoutMillis} passed. */
    void awaitReadable(long timeoutMillis) throws IOException;

    @Override
    void close();
}
