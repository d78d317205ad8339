package io.jdoca.sta.nvmf;

import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.nio.channels.SelectableChannel;

/**
 * The transport operations of one queue pair (the per-qpair and per-request half of SPDK's
 * {@code spdk_nvmf_transport_ops}): everything the NVMe-oF command layer ({@link NvmfCommandExecutor})
 * needs from the wire, and nothing about the wire itself. Every operation on a command takes its
 * {@link NvmfRequest}, which the transport created (its {@link #requests() pool}) and may extend
 * with its own fields. The TCP and RDMA transports are registered as {@link NvmfTransportType}s.
 *
 * <p><b>Contract.</b>
 * <ul>
 *   <li>Every method runs on the owning IO engine's thread, inside its progress; a transport never
 *       calls back from another thread.</li>
 *   <li>Upward calls: inside {@link #poll} the transport takes a request for each received command
 *       and hands both to {@link NvmfCommandExecutor#onCommand}, each piece of requested host data
 *       to {@link NvmfCommandExecutor#onHostData}, and a failure of the wire to
 *       {@link NvmfQpair#fail} (a fatal protocol error after {@link NvmfQpair#terminate}).</li>
 *   <li>Room: before it delivers a command the transport guarantees room for the largest answer
 *       (data of the maximum I/O size plus a completion), so the command layer's send calls never
 *       fail. Answers outside command delivery (the application's tasks, asynchronous back-end
 *       completions) ask first with {@link #reserve}.</li>
 *   <li>Ending a request: {@link #complete} and a successful {@link #c2hEnd} hand the request back
 *       to the transport, which calls {@link NvmfCommandExecutor#completed} once the wire no longer
 *       needs it (TCP: at once, the bytes are in its send buffer; RDMA: when the SEND completed).
 *       The caller must not touch the request afterwards.</li>
 *   <li>No allocation, no exceptions: failures of the wire are reported through {@link NvmfQpair#fail}.</li>
 * </ul>
 */
public interface NvmfTransport {
    /** The transport's type (its registry entry). */
    NvmfTransportType type();

    /** The requests of this queue pair (created with the transport). */
    NvmfRequestPool requests();

    /** One duty cycle: send what is queued, receive, deliver. Returns the units of work done. */
    int poll();

    /**
     * {@link #poll} right after the engine's selector returned, which tells whether {@link #selectable()} has
     * bytes: when it has none ({@code readable} false) the transport may skip its read (a syscall that would find
     * nothing) and only send and deliver what it holds; when it has, it must read. The default polls as usual; a
     * transport that buffers received bytes of its own beyond the socket (TLS records) reads anyway.
     */
    default int pollAfterSelect(boolean readable) {
        return poll();
    }

    /** Pushes queued bytes to the wire; returns what went out, -1 when the wire failed. */
    int flush();

    /** True while answers wait for the wire. */
    boolean sendPending();

    /** True (and room kept until the next poll) when {@code dataLen} bytes of data plus a completion fit now. */
    boolean reserve(int dataLen);

    /** Sends the response capsule of {@code r} (its status, DW0 and DW1), then ends it (see the contract). */
    void complete(NvmfRequest r);

    /** The largest in-capsule data of a command this transport accepts (IOCCSZ × 16 − 64). */
    int inCapsuleDataSize();

    /**
     * Starts controller-to-host data of {@code len} bytes for {@code r} (RDMA: the request's
     * registered data buffer; TCP: the send ring's tail): returns the offset in {@link #c2hBuffer()}
     * where the back-end must place it (zero copy). Ends with {@link #c2hEnd}; abandoning it (a
     * failed back-end read) needs no call.
     */
    long c2hBegin(NvmfRequest r, int len);

    /** The buffer {@link #c2hBegin} offsets point into. */
    MemorySegment c2hBuffer();

    /**
     * Sends the {@code len} bytes placed after {@link #c2hBegin}. {@code complete}: they also end
     * the command successfully (TCP: C2HData with SUCCESS, no CapsuleResp; RDMA: the response SEND
     * follows the WRITE), and {@code r} goes back to the transport; else {@link #complete} follows.
     */
    void c2hEnd(NvmfRequest r, int len, boolean complete);

    /** Sends {@code len} bytes of {@code src} to the host as {@code r}'s data (a copy). */
    void sendData(NvmfRequest r, MemorySegment src, long srcOff, int len);

    /**
     * Asks the host for {@code len} bytes of {@code r}'s data at {@code offset}; they arrive through {@link
     * NvmfCommandExecutor#onHostData}.
     */
    void requestHostData(NvmfRequest r, int offset, int len);

    /** The TLS PSK identity the connection was secured with (NVMe/TCP over TLS), or null. */
    default io.jdoca.sta.nvmf.tls.NvmeTlsIdentity tlsIdentity() {
        return null;
    }

    /** Negotiated header digest (NVMe/TCP; false for transports without it). */
    boolean headerDigest();

    /** Negotiated data digest (NVMe/TCP; false for transports without it). */
    boolean dataDigest();

    SocketAddress remoteAddress();

    SocketAddress localAddress();

    /** What the engine's selector watches for readability, or null (transports that do not use sockets). */
    SelectableChannel selectable();

    /**
     * Before the engine sleeps: arms the transport's completion notification (RDMA:
     * {@code ibv_req_notify_cq}); 0 when armed or nothing needs arming, else an errno value (do not sleep).
     */
    int arm();

    /** Closes the wire; queued bytes are dropped. */
    void close();

    /** Frees the buffers; nothing may touch them afterwards. */
    void releaseMemory();
}
