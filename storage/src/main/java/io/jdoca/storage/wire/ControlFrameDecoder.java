package io.jdoca.storage.wire;

import io.jdoca.core.DocaError;
import java.util.Arrays;

/**
 * Reassembles control frames from a byte stream (TCP reads of any size, or Comch messages): bytes go
 * into an rx buffer and a message is decoded once 4 + {@code wire_size} bytes are present, then
 * removed (reference §1 "Frame").
 *
 * <p>{@link #next()} returns the next message, null when a frame is incomplete, or throws
 * {@link ControlProtocolException}. A malformed body is consumed (the stream stays in sync); a
 * {@code wire_size} over {@link ControlCodec#MAX_BODY_SIZE} is fatal, after which the decoder
 * refuses further input.
 *
 * <p>Not thread-safe: one reader thread.
 */
public final class ControlFrameDecoder {
    private final int maxBody;
    private byte[] buf = new byte[4096];
    private int start;
    private int end;
    private boolean broken;

    public ControlFrameDecoder() {
        this(ControlCodec.MAX_BODY_SIZE);
    }

    public ControlFrameDecoder(int maxBody) {
        this.maxBody = maxBody;
    }

    /** Appends received bytes. */
    public void feed(byte[] src, int off, int len) {
        if (broken || len <= 0) {
            return;
        }
        ensure(len);
        System.arraycopy(src, off, buf, end, len);
        end += len;
    }

    private void ensure(int more) {
        if (buf.length - end >= more) {
            return;
        }
        int live = end - start;
        if (start > 0) {
            System.arraycopy(buf, start, buf, 0, live);
            start = 0;
            end = live;
        }
        if (buf.length - end < more) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, live + more));
        }
    }

    /** Bytes received and not yet decoded. */
    public int buffered() {
        return end - start;
    }

    public boolean isBroken() {
        return broken;
    }

    /** The next complete message, or null if more bytes are needed. */
    public ControlMessage next() {
        if (broken) {
            return null;
        }
        int avail = end - start;
        if (avail < ControlCodec.FRAME_HEADER_SIZE) {
            return null;
        }
        long wireSize = Integer.toUnsignedLong(ControlCodec.peekU32(buf, start));
        if (wireSize > maxBody) {
            broken = true;
            boolean hdr = avail >= ControlCodec.FRAME_HEADER_SIZE + ControlCodec.BODY_HEADER_SIZE;
            int mid = hdr ? ControlCodec.peekU32(buf, start + 4 + ControlCodec.OFF_MESSAGE_ID) : 0;
            int cid = hdr ? ControlCodec.peekU32(buf, start + 4 + ControlCodec.OFF_CORRELATION_ID) : 0;
            start = end = 0;
            throw new ControlProtocolException(DocaError.TOO_BIG,
                    "control frame of " + wireSize + " bytes exceeds the limit of " + maxBody, hdr, mid, cid, true);
        }
        if (avail - ControlCodec.FRAME_HEADER_SIZE < wireSize) {
            return null;
        }
        int bodyOff = start + ControlCodec.FRAME_HEADER_SIZE;
        start = bodyOff + (int) wireSize;
        if (start == end) {
            start = end = 0;
        }
        return ControlCodec.decodeBody(buf, bodyOff, (int) wireSize);
    }
}
