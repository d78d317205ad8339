package io.jdoca.sta;

/**
 * The requests of one queue pair, all created with it (SPDK's per-qpair {@code tcp_req_free_queue}):
 * {@link #get} takes one (FREE → NEED_BUFFER), {@link #put} returns a COMPLETED one (→ FREE).
 * Nothing is allocated after construction.
 *
 * <p>Not thread-safe: the owning IO engine's thread.
 */
final class StaRequestPool {
    private final StaRequest[] all;
    private final StaRequest[] free;
    private int freeTop;
    /** Transitions the table refused (a bug when non-zero; tests assert it stays 0). */
    long badTransitions;
    /** The command layer the requests belong to (set once by it). */
    NvmfCommandExecutor executor;
    /**
     * The last {@link #TRACE} states entered by any request of this pool (ordinals, a ring): the
     * per-transition trace point, read by tests and debuggers.
     */
    static final int TRACE = 64;
    final byte[] trace = new byte[TRACE];
    /** Transitions recorded so far (the ring's write position is {@code traced % TRACE}). */
    long traced;

    StaRequestPool(int size) {
        all = new StaRequest[size];
        free = new StaRequest[size];
        for (int i = 0; i < size; i++) {
            all[i] = new StaRequest(this, i);
            free[size - 1 - i] = all[i];
        }
        freeTop = size;
    }

    /** A free request moved to NEED_BUFFER, or null when all are outstanding. */
    StaRequest get() {
        if (freeTop == 0) {
            return null;
        }
        StaRequest r = free[--freeTop];
        r.transition(StaRequestState.NEED_BUFFER);
        return r;
    }

    /** Returns a COMPLETED request; false (and counted) from any other state. */
    boolean put(StaRequest r) {
        if (r.transition(StaRequestState.FREE) != io.jdoca.core.DocaError.SUCCESS) {
            return false;
        }
        r.clear();
        free[freeTop++] = r;
        return true;
    }

    /** The request with transfer tag {@code tag}, or null when the tag is unknown or the request is FREE. */
    StaRequest byTag(int tag) {
        if (tag < 0 || tag >= all.length) {
            return null;
        }
        StaRequest r = all[tag];
        return r.state() == StaRequestState.FREE ? null : r;
    }

    int size() {
        return all.length;
    }

    /** Requests not FREE. */
    int outstanding() {
        return all.length - freeTop;
    }

    void record(StaRequestState s) {
        trace[(int) (traced++ & (TRACE - 1))] = (byte) s.ordinal();
    }

    StaRequest at(int tag) {
        return all[tag];
    }
}
