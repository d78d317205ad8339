package io.jdoca.comch;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One Comch connection ({@code doca_comch_connection}) between a server and its client. Consumers
 * and producers are created on it; the remote consumers the peer announced are kept here so that
 * producers on any thread can find their rings.
 *
 * <p>Threads: owned by the progress-engine thread of its server or client. Frame writes
 * ({@link #writeFrame}) are serialized so consumers on other threads can announce themselves;
 * {@link #findRemoteConsumer} is lock- and allocation-free from any thread.
 */
public final class ComchConnection {
    private final ComchEndpoint owner;
    private final SocketChannel channel;
    private final AtomicInteger nextConsumerId = new AtomicInteger();
    private final List<RemoteConsumer> mappedRings = new ArrayList<>();
    private volatile RemoteConsumer[] remotes = new RemoteConsumer[0];
    private volatile boolean open = true;
    private long userData;
    /** What has been read from the socket and not yet dispatched (frames arrive in pieces). */
    private final ByteBuffer rx = ByteBuffer.allocateDirect(ComchWire.MAX_FRAME + 8);
    private volatile ComchIdentity peerIdentity;
    /** Server: when a connection that has not said HELLO is closed (nanoTime). */
    final long helloDeadline;

    ComchConnection(ComchEndpoint owner, SocketChannel channel) {
        this(owner, channel, 0);
    }

    ComchConnection(ComchEndpoint owner, SocketChannel channel, long helloDeadline) {
        this.owner = owner;
        this.channel = channel;
        this.helloDeadline = helloDeadline;
    }

    /** Who the peer said it is (its HELLO, or the server's ACCEPT); null before. */
    public ComchIdentity peerIdentity() {
        return peerIdentity;
    }

    void setPeerIdentity(ComchIdentity id) {
        this.peerIdentity = id;
    }

    ByteBuffer rx() {
        return rx;
    }

    /** The server or client this connection belongs to. */
    public ComchEndpoint endpoint() {
        return owner;
    }

    public boolean isOpen() {
        return open;
    }

    public long userData() {
        return userData;
    }

    public void setUserData(long v) {
        this.userData = v;
    }

    SocketChannel channel() {
        return channel;
    }

    int allocateConsumerId() {
        return nextConsumerId.incrementAndGet();
    }

    /** Writes one whole frame; thread-safe. Throws CONNECTION_RESET if the socket fails. */
    void writeFrame(ByteBuffer frame) {
        if (!open) {
            throw new DocaException(DocaError.NOT_CONNECTED, "comch connection is closed");
        }
        synchronized (this) {
            try {
                while (frame.hasRemaining()) {
                    if (channel.write(frame) == 0) {
                        Thread.yield();
                    }
                }
            } catch (IOException e) {
                open = false;
                throw new DocaException(DocaError.CONNECTION_RESET, "comch connection write failed: " + e.getMessage(),
                        e);
            }
        }
    }

    // ------------------------------------------------------------------ remote consumers

    /** A consumer the peer announced: its id and its mapped ring. */
    static final class RemoteConsumer {
        final int id;
        final ComchRing ring;
        final SharedRegion mapping;
        volatile boolean expired;

        RemoteConsumer(int id, ComchRing ring, SharedRegion mapping) {
            this.id = id;
            this.ring = ring;
            this.mapping = mapping;
        }
    }

    /** The live remote consumer {@code id}, or null. Allocation-free; any thread. */
    RemoteConsumer findRemoteConsumer(int id) {
        RemoteConsumer[] a = remotes;
        for (int i = 0; i < a.length; i++) {
            RemoteConsumer r = a[i];
            if (r.id == id && !r.expired) {
                return r;
            }
        }
        return null;
    }

    /** Ids of the peer's live consumers (control path). */
    public int[] remoteConsumerIds() {
        RemoteConsumer[] a = remotes;
        return java.util.Arrays.stream(a).filter(r -> !r.expired).mapToInt(r -> r.id).toArray();
    }

    void addRemote(int id, int slots, int stride, int maxMsg, long bytes, long cap0, long cap1, String path) {
        SharedRegion m = SharedMemory.mapGranted(path, ComchWire.ringGrant(id), cap0, cap1, 0, bytes, "comch peer of "
                + owner.name());
        ComchRing ring = new ComchRing(m.segment(), slots, stride, maxMsg);
        if (!ring.headerMatches()) {
            m.close();
            throw new DocaException(DocaError.INVALID_VALUE, "consumer ring " + path
                    + " does not match its announcement");
        }
        RemoteConsumer r = new RemoteConsumer(id, ring, m);
        synchronized (mappedRings) {
            mappedRings.add(r);
            RemoteConsumer[] a = java.util.Arrays.copyOf(remotes, remotes.length + 1);
            a[a.length - 1] = r;
            remotes = a;
        }
    }

    /** Marks remote consumer {@code id} expired; true if it was live. */
    boolean expireRemote(int id) {
        for (RemoteConsumer r : remotes) {
            if (r.id == id && !r.expired) {
                r.expired = true;
                synchronized (mappedRings) {
                    remotes = java.util.Arrays.stream(remotes).filter(x -> x != r).toArray(RemoteConsumer[]::new);
                }
                return true;
            }
        }
        return false;
    }

    /** Live remote consumer ids, expired as the connection ends (the caller fires the events). */
    int[] expireAll() {
        int[] ids = remoteConsumerIds();
        for (RemoteConsumer r : remotes) {
            r.expired = true;
        }
        remotes = new RemoteConsumer[0];
        return ids;
    }

    void markClosed() {
        open = false;
    }

    /** Unmaps the peer's rings; only once no producer can use them (connection torn down). */
    void unmapRings() {
        synchronized (mappedRings) {
            for (RemoteConsumer r : mappedRings) {
                r.expired = true;
                r.mapping.close();
            }
            mappedRings.clear();
        }
    }

    @Override
    public String toString() {
        return "ComchConnection[" + owner.name() + (open ? ", open" : ", closed") + "]";
    }
}
