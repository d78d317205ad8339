package io.jdoca.sta;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ClosedChannelException;

/**
 * An in-memory, non-blocking, allocation-free byte pipe pair for socket-free tests: what one end
 * writes the other reads. Read returns 0 when empty, -1 after the peer closed and the data drained.
 */
final class PipeChannel implements ByteChannel {
    private final ByteBuffer inbox;
    private PipeChannel peer;
    private boolean closed;
    private boolean peerClosed;

    private PipeChannel(int capacity) {
        this.inbox = ByteBuffer.allocateDirect(capacity);
        this.inbox.flip();
    }

    /** Two connected ends: [0] target side, [1] client side. */
    static PipeChannel[] pair(int capacity) {
        PipeChannel a = new PipeChannel(capacity);
        PipeChannel b = new PipeChannel(capacity);
        a.peer = b;
        b.peer = a;
        return new PipeChannel[] {a, b};
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        if (!inbox.hasRemaining()) {
            return peerClosed ? -1 : 0;
        }
        int n = Math.min(dst.remaining(), inbox.remaining());
        int lim = inbox.limit();
        inbox.limit(inbox.position() + n);
        dst.put(inbox);
        inbox.limit(lim);
        return n;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        if (closed || peer.closed) {
            throw new IOException("pipe closed");
        }
        ByteBuffer in = peer.inbox;
        in.compact();
        int n = Math.min(src.remaining(), in.remaining());
        int lim = src.limit();
        src.limit(src.position() + n);
        in.put(src);
        src.limit(lim);
        in.flip();
        return n;
    }

    /** Bytes waiting to be read on this end. */
    int available() {
        return inbox.remaining();
    }

    @Override
    public boolean isOpen() {
        return !closed;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            peer.peerClosed = true;
        }
    }

    boolean peerClosed() {
        return peerClosed;
    }
}
