package io.jdoca.gga;

import io.jdoca.core.DocaError;
import io.jdoca.storage.wire.IoMessageType;

/**
 * What {@link GgaTxnMachine} asks of the world: each call starts one asynchronous step (a task on
 * a DOCA context, in {@link GgaWorker}) whose completion comes back as a machine event, or returns
 * an error when the step could not start. Implementations must not call back into the machine from
 * inside these methods.
 *
 * <p>Worker thread only; every method is allocation-free.
 */
public interface GgaTxnPort {
    /** Sends an IO request of transaction {@code txn} to target {@code role} (completion: send then response). */
    DocaError sendRequest(int txn, int role, IoMessageType type, int size, long requesterOffset, long storageOffset);

    /** DMA of the initiator's block at {@code hostOffset} into the transaction's chunk. */
    DocaError fetchFromInitiator(int txn, long hostOffset);

    /**
     * LZ4-packs the fetched block into its container in the chunk (inline, synchronous): the
     * container size, or a negated {@link DocaError} code when it does not fit.
     */
    int packBlock(int txn);

    /** EC create: parity of the chunk's two data halves. */
    DocaError ecCreate(int txn);

    /** EC recover of the half {@code plan} names (recover_a: data_1, recover_b: data_2). */
    DocaError ecRecover(int txn, RecoveryKind plan);

    /**
     * Validates the chunk's container and starts its LZ4 decompression into the initiator's memory at
     * {@code hostOffset}: IO_FAILED when the container is not valid, INVALID_VALUE when the range is.
     */
    DocaError decompress(int txn, long hostOffset);

    /** Sends the reply (result code {@code result}) to the initiator. */
    DocaError reply(int txn, int result);

    /** Reposts the transaction's receive for the next initiator message (after its reply went out). */
    void repostHostReceive(int txn);

    /** A target was declared lost (rare; may log). */
    void reportTargetLost(int role);
}
