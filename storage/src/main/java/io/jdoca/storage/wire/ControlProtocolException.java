package io.jdoca.storage.wire;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;

/**
 * A control frame that cannot be decoded. Carries the ids of the offending message when its header
 * was readable (so the peer can get an {@code error_response} it can match), and whether the byte
 * stream can still be followed ({@link #isFatal()}: a length over the limit leaves no way to find the
 * next frame). Immutable.
 */
public final class ControlProtocolException extends DocaException {
    private static final long serialVersionUID = 1L;
    private final boolean headerKnown;
    private final int messageId;
    private final int correlationId;
    private final boolean fatal;

    public ControlProtocolException(DocaError error, String message, boolean headerKnown, int messageId,
            int correlationId, boolean fatal) {
        super(error, message);
        this.headerKnown = headerKnown;
        this.messageId = messageId;
        this.correlationId = correlationId;
        this.fatal = fatal;
    }

    /** True if {@link #messageId()} and {@link #correlationId()} were read from the frame. */
    public boolean headerKnown() {
        return headerKnown;
    }

    public int messageId() {
        return messageId;
    }

    public int correlationId() {
        return correlationId;
    }

    /** True if the stream is out of sync and the connection must be closed. */
    public boolean isFatal() {
        return fatal;
    }
}
