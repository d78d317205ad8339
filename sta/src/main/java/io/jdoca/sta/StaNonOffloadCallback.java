package io.jdoca.sta;

import io.jdoca.sta.nvme.NvmeCommand;
import java.lang.foreign.MemorySegment;

/**
 * Receives the commands the engine does not execute itself ({@code doca_sta_io_non_offload_register_cb}):
 * Fabrics commands (Connect, Property Get/Set), every admin command, and I/O commands it does not
 * offload. The application answers with {@link StaIo#taskNonOffloadSendAllocInit},
 * {@link StaIo#taskNonOffloadWriteSendAllocInit} or, to fetch data first,
 * {@link StaIo#taskNonOffloadReadAllocInit}; it may answer later (e.g. an Asynchronous Event
 * Request).
 *
 * <p>Called on the IO context's progress-engine thread. {@code command} and {@code payload} are
 * only valid during the call: copy what must outlive it.
 */
@FunctionalInterface
public interface StaNonOffloadCallback {
    /**
     * @param qp           the queue pair the command arrived on
     * @param command      the 64-byte SQE
     * @param payload      in-capsule data, or null
     * @param payloadLen   bytes of in-capsule data
     * @param payloadValid false when the command carries host data that was not in the capsule
     *                     (fetch it with a non-offload read task)
     * @param userData     the value given at registration
     */
    void onCommand(StaQp qp, NvmeCommand command, MemorySegment payload, int payloadLen, boolean payloadValid,
            long userData);
}
