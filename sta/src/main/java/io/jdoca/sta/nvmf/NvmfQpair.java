package io.jdoca.sta.nvmf;

import io.jdoca.core.DocaError;

/**
 * The NVMe-oF state of one queue pair (SPDK's {@code spdk_nvmf_qpair}): its life cycle, queue id
 * and size, SQ head, whether the host disabled SQ flow control, and the namespaces it may reach;
 * joined to its transport ({@link NvmfTransport}) and its command layer
 * ({@link NvmfCommandExecutor}). The STA API's queue pair ({@code StaQp}) owns one and receives its
 * {@link NvmfQpairEvents}.
 *
 * <p><b>Threads.</b> The owning IO engine's thread, except {@link #state()} (volatile: any thread).
 */
public final class NvmfQpair {
    private final NvmfPollGroup group;
    private final NvmfQpairEvents events;
    private volatile NvmfQpairState state = NvmfQpairState.ALLOCATED;
    private int qid = -1;
    private int sqsize = 32;
    private int sqhd;
    private boolean sqFlowDisabled;
    private NvmfNamespaceMap namespaces;
    private NvmfListenerAna ana;
    private long hostIdHi;
    private long hostIdLo;
    private int lastFes;
    private NvmfTransport transport;
    private NvmfCommandExecutor executor;

    public NvmfQpair(NvmfPollGroup group, NvmfQpairEvents events) {
        this.group = group;
        this.events = events;
    }

    /**
     * Joins the transport and builds the command layer over its request pool ({@code maxIo}: the
     * largest data transfer of a command). Once, right after the transport was created. Control path.
     */
    public void attach(NvmfTransport t, int maxIo) {
        if (transport != null || state != NvmfQpairState.ALLOCATED) {
            throw new IllegalStateException("transport already attached");
        }
        transport = t;
        executor = new NvmfCommandExecutor(this, group, t, maxIo, t.inCapsuleDataSize());
        transition(NvmfQpairState.CONNECTING);
    }

    public NvmfPollGroup group() {
        return group;
    }

    public NvmfTransport transport() {
        return transport;
    }

    public NvmfCommandExecutor executor() {
        return executor;
    }

    public NvmfQpairEvents events() {
        return events;
    }

    /** The life-cycle state (any thread). */
    public NvmfQpairState state() {
        return state;
    }

    /** Moves to {@code next}; BAD_STATE (nothing changed) when the table forbids it. */
    public DocaError transition(NvmfQpairState next) {
        if (!state.canTransitionTo(next)) {
            return DocaError.BAD_STATE;
        }
        state = next;
        return DocaError.SUCCESS;
    }

    /** True once the connection is closed: buffers may be gone, nothing may be sent. */
    public boolean closed() {
        return state == NvmfQpairState.CLOSED;
    }

    /** A fatal transport error: the transport sends its notice, then the owner closes the queue pair. */
    public void terminate(int fes) {
        lastFes = fes;
        transition(NvmfQpairState.TERMINATING);
    }

    /** The FES of the fatal error that terminated the connection (0 if none). */
    public int lastFes() {
        return lastFes;
    }

    /** The connection failed: reported to the owner, which tears it down. */
    public void fail(String operation, DocaError why, int detail) {
        events.onTransportError(operation, why, detail);
    }

    /** NVMe queue id from the Fabrics Connect (-1 before Connect). */
    public int qid() {
        return qid;
    }

    /** Submission queue size in entries (1-based). */
    public int sqSize() {
        return sqsize;
    }

    public void setSqSize(int entries) {
        sqsize = entries;
    }

    /** The SQ head pointer every completion reports. */
    public int sqhd() {
        return sqhd;
    }

    /** A command was taken off the submission queue. */
    public void advanceSqHead() {
        sqhd = sqhd + 1 >= sqsize ? 0 : sqhd + 1;
    }

    /** True when the host disabled SQ flow control at Connect (CATTR bit 2): reads may end with C2HData SUCCESS. */
    public boolean sqFlowControlDisabled() {
        return sqFlowDisabled;
    }

    /** The Connect command named the queue (the application still decides whether to accept it). */
    void onConnect(int queueId, int entries, boolean flowControlDisabled) {
        this.qid = queueId;
        this.sqsize = entries;
        this.sqFlowDisabled = flowControlDisabled;
    }

    /** Lets the queue execute I/O on {@code map}'s namespaces (after a valid I/O-queue Connect). */
    public void bind(NvmfNamespaceMap map) {
        this.namespaces = map;
    }

    /**
     * The path this I/O queue came in on and the host behind it: the listener's ANA states (null:
     * the subsystem does not report ANA) and the 128-bit host identifier its Connect carried.
     * Set once, on the IO thread, when the I/O-queue Connect is accepted.
     */
    public void setPath(NvmfListenerAna listenerAna, long hostIdHi, long hostIdLo) {
        this.ana = listenerAna;
        this.hostIdHi = hostIdHi;
        this.hostIdLo = hostIdLo;
    }

    /** The ANA states of the listener the queue came in on, or null (no ANA reporting). */
    public NvmfListenerAna ana() {
        return ana;
    }

    /** The host identifier's first 8 bytes (big-endian, as in the Connect data). */
    public long hostIdHi() {
        return hostIdHi;
    }

    /** The host identifier's last 8 bytes. */
    public long hostIdLo() {
        return hostIdLo;
    }

    /** The namespaces the queue may reach, or null before an I/O-queue Connect was accepted. */
    public NvmfNamespaceMap namespaces() {
        return namespaces;
    }

    /** True once nothing is left to send and no request is outstanding. */
    public boolean drained() {
        return !transport.sendPending() && transport.requests().outstanding() == 0;
    }

    /** One duty cycle: answers that waited for room, then the transport's send, receive, deliver. */
    public int poll() {
        int n = executor.backendIo().drainDeferred();
        return n + transport.poll();
    }

    /** {@link #poll} right after the engine's selector returned (see {@link NvmfTransport#pollAfterSelect}). */
    public int pollAfterSelect(boolean readable) {
        int n = executor.backendIo().drainDeferred();
        return n + transport.pollAfterSelect(readable);
    }
}
