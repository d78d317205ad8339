package io.jdoca.sta.nvmf.rdma;

import io.jdoca.core.mem.NativeMemory;
import io.jdoca.verbs.CmEvent;
import io.jdoca.verbs.CmId;
import io.jdoca.verbs.ConnParam;
import io.jdoca.verbs.VerbsException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * One rdma_cm connection request for an NVMe/RDMA queue ({@code RDMA_CM_EVENT_CONNECT_REQUEST}),
 * as the application's listener hands it to {@code StaIo.qpAccept} (the seed's
 * {@code doca_sta_io_qp_alloc + doca_sta_io_qp_accept}): the new connection's id, a copy of the
 * host's private data ({@link NvmeRdmaCmRequest}, validated before use), the host's RDMA read
 * depths and both addresses. Copied out of the event, so it outlives the event's acknowledgement.
 *
 * <p>Thread rules: made on the listener's thread and handed over once; {@link #accept} and
 * {@link #reject} are for whoever holds it, once.
 */
// Restricted FFM calls (libc/kernel entry points, native structs); the launcher runs with --enable-native-access.
@SuppressWarnings("restricted")
public final class NvmeRdmaConnectRequest {
    private static final int MAX_PRIVATE = 256;

    /** The connection's rdma_cm id; null for requests made by {@link #of}. */
    private final CmId id;
    private final NativeMemory memory = new NativeMemory();
    private final MemorySegment privateData;
    private final int privateLen;
    private final int initiatorDepth;
    private final int responderResources;
    private final InetSocketAddress remote;
    private final InetSocketAddress local;
    private final NvmeRdmaCmRequest req = new NvmeRdmaCmRequest();
    private boolean answered;

    private NvmeRdmaConnectRequest(CmId id, MemorySegment pd, int len, int ird, int ord, InetSocketAddress remote,
                                   InetSocketAddress local) {
        this.id = id;
        this.privateData = memory.allocate(MAX_PRIVATE, 8);
        this.privateLen = Math.min(len, MAX_PRIVATE);
        if (privateLen > 0 && !pd.equals(MemorySegment.NULL)) {
            MemorySegment.copy(pd.reinterpret(privateLen), 0, privateData, 0, privateLen);
        }
        this.initiatorDepth = ord;
        this.responderResources = ird;
        this.remote = remote;
        this.local = local;
        req.wrap(privateData, 0, privateLen);
    }

    /** Copies what a CONNECT_REQUEST event carries (its private data is valid only during the event). */
    public static NvmeRdmaConnectRequest fromEvent(CmEvent ev) {
        CmId id = CmId.fromRequest(ev);
        return new NvmeRdmaConnectRequest(id, ev.privateData(), ev.privateDataLength(), ev.responderResources(),
                ev.initiatorDepth(), id.remoteAddress(), id.localAddress());
    }

    /** A request over bytes already in hand (tests: the private-data parser without a device). */
    public static NvmeRdmaConnectRequest of(MemorySegment privateData, int len, InetSocketAddress remote,
                                            InetSocketAddress local) {
        return new NvmeRdmaConnectRequest(null, privateData, len, 16, 16, remote, local);
    }

    /** The connection's rdma_cm id (null for requests made by {@link #of}). */
    public CmId id() {
        return id;
    }

    /** The host's private data, parsed in place; call {@link #validate} first. */
    public NvmeRdmaCmRequest privateData() {
        return req;
    }

    /**
     * 0, or the reject status ({@link NvmeRdmaCmReject}) this request earns with queues of at most {@code
     * maxQueueSize}.
     */
    public int validate(int maxQueueSize) {
        return req.validate(maxQueueSize);
    }

    public InetSocketAddress remoteAddress() {
        return remote;
    }

    public InetSocketAddress localAddress() {
        return local;
    }

    /** RDMA READs the controller may have outstanding toward the host (the host's responder resources). */
    public int initiatorDepth() {
        return initiatorDepth;
    }

    public int responderResources() {
        return responderResources;
    }

    /**
     * {@code rdma_accept} with the NVMe/RDMA accept private data (CRQSIZE {@code crqsize}); the QP
     * must exist on the id. Throws {@link VerbsException}.
     */
    public void accept(int crqsize) {
        answered = true;
        byte[] pd = new byte[NvmeRdmaCmAccept.LEN];
        NvmeRdmaCmAccept.encode(MemorySegment.ofArray(pd), 0, crqsize);
        // We only RDMA-READ (host data of writes); the host reads nothing of ours.
        id.accept(ConnParam.of(pd, Math.min(responderResources, 16), Math.min(Math.max(initiatorDepth, 1), 16))
                .withFlowControl());
    }

    /**
     * {@code rdma_reject} with the NVMe/RDMA reject private data (status {@code sts}). The listener
     * destroys the id after acknowledging the event ({@code rdma_destroy_id} waits for that). Never
     * throws: a reject that cannot be sent leaves the host to time out.
     */
    public void reject(int sts) {
        if (answered || id == null) {
            answered = true;
            return;
        }
        answered = true;
        byte[] pd = new byte[NvmeRdmaCmReject.LEN];
        NvmeRdmaCmReject.encode(MemorySegment.ofArray(pd), 0, sts);
        try {
            id.reject(pd);
        } catch (VerbsException e) {
            // the host gave up already
        }
    }

    /** True once accepted or rejected. */
    public boolean answered() {
        return answered;
    }

    /** Frees the copies (after accept or reject). */
    public void release() {
        memory.close();
    }
}
