package io.jdoca.rdma;

import io.jdoca.core.mem.SharedRegion;
import io.jdoca.rdma.wire.RdmaConnectionBlob;
import java.nio.channels.SocketChannel;

/**
 * One reliable connection of an {@link Rdma} context ({@code doca_rdma_connection}): made by
 * {@link Rdma#export()} (or the CM calls), joined to the peer by {@link Rdma#connect}. Tasks on one
 * connection complete in submission order.
 *
 * <p>Threads: read {@link #state()} from any thread; everything else on the engine's thread.
 */
public final class RdmaConnection {
    final Rdma rdma;
    final int id;
    final long nonce;
    private volatile RdmaConnectionState state = RdmaConnectionState.IDLE;
    private long userData;
    private Object userObject;
    RdmaTransportType transport;
    RdmaConnectionBlob peer;
    RdmaEndpoint endpoint;
    /** SHM: the ring this side consumes, created at export (null for TCP-only contexts). */
    SharedRegion inbound;
    /** Capability of {@link #inbound}, carried in this end's connection blob. */
    long ringCap0;
    long ringCap1;
    /** TCP: the socket once dialled or accepted (set by a control thread). */
    volatile SocketChannel pendingChannel;
    volatile String failure;
    long connectStartNanos;
    /** CM mode: the socket the blobs are exchanged over, and the peer blob it brought. */
    volatile SocketChannel cmChannel;
    volatile byte[] cmPeerBlob;
    boolean cmInitiator;
    /** VERBS: this connection's QP, from export on (becomes {@link #endpoint} at connect). */
    VerbsEndpoint verbsEp;
    boolean cmReported;
    /** VERBS CM mode: this connection's rdma_cm id (a request's, on the placeholder the request callback gets). */
    VerbsCm.Link verbsCm;

    RdmaConnection(Rdma rdma, int id, long nonce) {
        this.rdma = rdma;
        this.id = id;
        this.nonce = nonce;
    }

    /** Context-unique id ({@code doca_rdma_connection_get_id}). */
    public int id() {
        return id;
    }

    public RdmaConnectionState state() {
        return state;
    }

    /** The transport chosen at connect (null before). */
    public RdmaTransportType transport() {
        return transport;
    }

    /** The peer's process id (0 before connect). */
    public long peerPid() {
        RdmaConnectionBlob p = peer;
        return p == null ? 0 : p.pid();
    }

    public Rdma rdma() {
        return rdma;
    }

    /** {@code doca_rdma_connection_get_user_data}. */
    public long userData() {
        return userData;
    }

    /** {@code doca_rdma_connection_set_user_data}. */
    public void setUserData(long userData) {
        this.userData = userData;
    }

    public Object userObject() {
        return userObject;
    }

    public void setUserObject(Object o) {
        this.userObject = o;
    }

    /** Made or accepted in CM mode (the connection-state callbacks apply). */
    boolean cm() {
        return cmInitiator || cmChannel != null || verbsCm != null;
    }

    /** Applies a transition if the table allows it; false (state unchanged) otherwise. */
    boolean transition(RdmaConnectionState next) {
        RdmaConnectionState s = state;
        if (!s.canTransitionTo(next)) {
            return false;
        }
        state = next;
        return true;
    }

    @Override
    public String toString() {
        return "RdmaConnection[" + id + ", " + state + (transport == null ? "" : ", " + transport)
                + (peer == null ? "" : ", peer pid " + peer.pid()) + "]";
    }
}
