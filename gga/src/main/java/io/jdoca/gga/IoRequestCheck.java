package io.jdoca.gga;

import io.jdoca.core.DocaError;
import io.jdoca.storage.wire.IoMessage;
import io.jdoca.storage.wire.IoMessageType;

/**
 * Validation of the IO messages the service receives from outside (reference §2): initiator
 * requests and target responses. Everything the data path later uses as an offset or index is
 * checked here, so a malformed or hostile message becomes an error code, never an out-of-range
 * access.
 *
 * <p>Stateless; any thread; allocation-free.
 */
public final class IoRequestCheck {
    private IoRequestCheck() {
    }

    /**
     * Checks an initiator request of {@code len} received bytes: a full 64-byte message, type read
     * or write, whole blocks (1..255), block-aligned and inside the initiator-visible
     * {@code capacity}, and a requester range inside the initiator's memory of {@code hostLen}
     * bytes. Returns the number of blocks, or the negated DocaError code (INVALID_VALUE).
     */
    public static int request(IoMessage m, long len, GgaLayout layout, long capacity, long hostLen) {
        if (len < IoMessage.SIZE) {
            return -DocaError.INVALID_VALUE.code();
        }
        int type = m.typeCode();
        if (type != IoMessageType.READ.code() && type != IoMessageType.WRITE.code()) {
            return -DocaError.INVALID_VALUE.code();
        }
        long ioSize = m.ioSize();
        int blocks = layout.blocksInIo(ioSize);
        if (blocks < 0) {
            return blocks;
        }
        long requester = m.requesterOffset();
        if (!layout.inRange(m.storageOffset(), ioSize, capacity) || requester < 0 || requester > hostLen - ioSize) {
            return -DocaError.INVALID_VALUE.code();
        }
        return blocks;
    }

    /**
     * The transaction index a target response of {@code len} bytes refers to (its user_data), or -1
     * if the message is short or the index is not one of the {@code transactions}.
     */
    public static int responseIndex(IoMessage r, long len, int transactions) {
        if (len < IoMessage.SIZE) {
            return -1;
        }
        long idx = r.userData();
        return idx >= 0 && idx < transactions ? (int) idx : -1;
    }

    /** The result a target response carries: its result code, or IO_FAILED if it is not of type result. */
    public static int responseResult(IoMessage r) {
        return r.typeCode() != IoMessageType.RESULT.code() ? DocaError.IO_FAILED.code() : r.result();
    }
}
