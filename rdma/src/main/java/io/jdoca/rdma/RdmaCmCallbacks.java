package io.jdoca.rdma;

/**
 * Callbacks of the CM-style connection mode ({@code doca_rdma_set_connection_state_callbacks}):
 * called on the engine thread during progress.
 */
public final class RdmaCmCallbacks {
    private RdmaCmCallbacks() {
    }

    /**
     * A peer dialled {@link Rdma#startListenToPort}: answer with {@link Rdma#connectionAccept} or {@link
     * Rdma#connectionReject}.
     */
    @FunctionalInterface
    public interface ConnectionRequest {
        void onRequest(RdmaConnection request, long ctxUserData);
    }

    /** The connection is ESTABLISHED: tasks may be submitted on it. */
    @FunctionalInterface
    public interface ConnectionEstablished {
        void onEstablished(RdmaConnection conn, long connUserData);
    }

    /** The connection could not be made (refused, unreachable, timed out). */
    @FunctionalInterface
    public interface ConnectionFailure {
        void onFailure(RdmaConnection conn, long connUserData);
    }

    /** The connection is gone (context stopped, or the peer left). */
    @FunctionalInterface
    public interface ConnectionDisconnection {
        void onDisconnect(RdmaConnection conn, long connUserData);
    }
}
