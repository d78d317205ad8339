package io.jdoca.sta.nvmf;

import io.jdoca.core.DocaError;

/**
 * The requests of one queue pair, all created with it by its transport (SPDK's per-qpair
 * {@code tcp_req_free_queue} / {@code rdma_recv}-side request array): {@link #get} takes one
 * (FREE → NEED_BUFFER), {@link #put} returns a COMPLETED one (→ FREE). The transport chooses the
 * request class ({@link Factory}), so its own per-request fields live in the same object as the
 * command layer's. Nothing is allocated after construction.
 *
 * <p>Not thread-safe: the owning IO engine's thread.
 */
public final class NvmfRequestPool {
    /** Creates the transport's request for index {@code tag} (construction only). */
    @FunctionalInterface
    public interface Factory {
        NvmfRequest create(NvmfRequestPool pool, int tag);
    }

    private final NvmfRequest[] all;
    private final NvmfRequest[] free;
    private int freeTop;
    /** The command layer the requests belong to (set once, by it). */
    NvmfCommandExecutor executor;
    /** Transitions the table refused (a bug when non-zero; tests assert it stays 0). */
    long badTransitions;
    /**
     * The last {@link #TRACE} states entered by any request of this pool (ordinals, a ring): the
     * per-transition trace point, read by tests and debuggers.
     */
    public static final int TRACE = 64;
    final byte[] trace = new byte[TRACE];
    /** Transitions recorded so far (the ring's write position is {@code traced % TRACE}). */
    long traced;
    /** Requests looked up by CID (the application's answers only; tests assert the data path adds none). */
    long cidLookups;

    /** {@code size} requests made by {@code factory}. Control path. */
    public NvmfRequestPool(int size, Factory factory) {
        all = new NvmfRequest[size];
        free = new NvmfRequest[size];
        for (int i = 0; i < size; i++) {
            all[i] = factory.create(this, i);
            free[size - 1 - i] = all[i];
        }
        freeTop = size;
    }

    /** A free request moved to NEED_BUFFER, or null when all are outstanding. */
    public NvmfRequest get() {
        if (freeTop == 0) {
            return null;
        }
        NvmfRequest r = free[--freeTop];
        r.transition(NvmfRequestState.NEED_BUFFER);
        return r;
    }

    /** Returns a COMPLETED request; false (and counted) from any other state. */
    public boolean put(NvmfRequest r) {
        if (r.transition(NvmfRequestState.FREE) != DocaError.SUCCESS) {
            return false;
        }
        r.clear();
        free[freeTop++] = r;
        return true;
    }

    /** The request with transfer tag {@code tag}, or null when the tag is unknown or the request is FREE. */
    public NvmfRequest byTag(int tag) {
        if (tag < 0 || tag >= all.length) {
            return null;
        }
        NvmfRequest r = all[tag];
        return r.state() == NvmfRequestState.FREE ? null : r;
    }

    /** The request at index {@code tag}, whatever its state. */
    public NvmfRequest at(int tag) {
        return all[tag];
    }

    public int size() {
        return all.length;
    }

    /** Requests not FREE. */
    public int outstanding() {
        return all.length - freeTop;
    }

    /** Requests free now. */
    public int available() {
        return freeTop;
    }

    /** Transitions refused so far (0 unless there is a bug). */
    public long badTransitions() {
        return badTransitions;
    }

    /** Requests looked up by command identifier so far (only the application's answers do that). */
    public long cidLookups() {
        return cidLookups;
    }

    /** Transitions recorded so far by this pool's requests (the trace's position). */
    public long traced() {
        return traced;
    }

    /** The state entered by transition number {@code i} (one of the last {@link #TRACE} recorded). */
    public NvmfRequestState traceAt(long i) {
        return NvmfRequestState.values()[trace[(int) (i & (TRACE - 1))]];
    }

    void record(NvmfRequestState s) {
        trace[(int) (traced++ & (TRACE - 1))] = (byte) s.ordinal();
    }

    /**
     * The application's outstanding command {@code cid} (EXECUTING or fetching its data), or null.
     * A scan: the application names its answers by CID (the seed's completion carries it), which
     * is the control path (admin and Fabrics commands), never the offloaded data path.
     */
    NvmfRequest applicationRequest(int cid) {
        cidLookups++;
        for (NvmfRequest r : all) {
            if (r.kind == NvmfRequest.KIND_APPLICATION && r.cid == cid
                    && (r.state() == NvmfRequestState.EXECUTING
                    || r.state() == NvmfRequestState.TRANSFERRING_HOST_TO_APPLICATION)) {
                return r;
            }
        }
        return null;
    }
}
