package io.jdoca.sta;

import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.nio.channels.SelectableChannel;

/**
 * The transport seam of one queue pair (the per-qpair half of SPDK's
 * {@code spdk_nvmf_transport_ops}): everything the NVMe-oF command layer
 * ({@link NvmfCommandExecutor}) needs from the wire, and nothing about the wire itself.
 * {@link NvmeTcpConnection} is the NVMe/TCP implementation, {@link NvmeRdmaConnection} the NVMe/RDMA
 * one beside it (R2T becomes an RDMA READ, C2HData an RDMA WRITE, the response a SEND).
 *
 * <p><b>Contract.</b>
 * <ul>
 *   <li>Every method runs on the owning {@link StaIo} engine thread, inside its progress; a
 *       transport never calls back from another thread.</li>
 *   <li>Upward calls: inside {@link #poll} the transport hands each received command to
 *       {@link NvmfCommandExecutor#onCommand}, each piece of requested host data to
 *       {@link NvmfCommandExecutor#onHostData} and a digest or framing failure to the queue pair
 *       ({@link StaQp}, which tears it down through its engine).</li>
 *   <li>Room: before it delivers a command the transport guarantees room for the largest answer
 *       (data of the maximum I/O size plus a completion), so the command layer's send calls
 *       ({@link #sendCompletion}, {@link #c2hBegin}/{@link #c2hEnd}, {@link #sendData},
 *       {@link #requestHostData}) never fail. Callers outside command delivery (the application's
 *       non-offload tasks) ask first with {@link #reserve}.</li>
 *   <li>No allocation, no exceptions: failures of the wire close the connection and are reported
 *       through {@link StaIo}'s transport-error event.</li>
 * </ul>
 */
interface NvmfTransport {
    /** One duty cycle: send what is queued, receive, deliver. Returns the units of work done. */
    int poll();

    /** Pushes queued bytes to the wire; returns what went out, -1 when the wire failed. */
    int flush();

    /** True while answers wait for the wire. */
    boolean sendPending();

    /** True (and room kept until the next poll) when {@code dataLen} bytes of data plus a completion fit now. */
    boolean reserve(int dataLen);

    /** Queues the completion (CQE) of command {@code cid}. */
    void sendCompletion(int cid, int status, int dw0, int dw1);

    /**
     * Starts controller-to-host data of {@code len} bytes for command {@code cid} (RDMA: the
     * command's registered data buffer; TCP: the send ring's tail): returns the
     * offset in {@link #c2hBuffer()} where the back-end must place it (zero copy). Ends with
     * {@link #c2hEnd}; abandoning it (a failed back-end read) needs no call.
     */
    long c2hBegin(int cid, int len);

    /** The buffer {@link #c2hBegin} offsets point into. */
    MemorySegment c2hBuffer();

    /** Sends the data placed after {@link #c2hBegin}; {@code success} also completes the command (no CQE follows). */
    void c2hEnd(int cid, int len, boolean success);

    /** Sends {@code len} bytes of {@code src} to the host as command {@code cid}'s data (a copy). */
    void sendData(int cid, MemorySegment src, long srcOff, int len);

    /** Asks the host for {@code len} bytes of the request's data; they arrive through {@link NvmfCommandExecutor#onHostData}. */
    void requestHostData(StaRequest r, int offset, int len);

    /** True when an answer must not wait (e.g. a fatal error being sent). */
    boolean terminating();

    /** Negotiated header digest (NVMe/TCP; false for transports without it). */
    boolean headerDigest();

    /** Negotiated data digest (NVMe/TCP; false for transports without it). */
    boolean dataDigest();

    SocketAddress remoteAddress();

    SocketAddress localAddress();

    /** What the engine's selector watches for readability, or null. */
    SelectableChannel selectable();

    /** Closes the wire; queued bytes are dropped. */
    void close();

    /** Frees the buffers; nothing may touch them afterwards. */
    void releaseMemory();
}
