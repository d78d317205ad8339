package io.jdoca.sta.nvmf.rdma;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.jdoca.verbs.RdmaCm;
import io.jdoca.verbs.VerbsException;
import io.jdoca.verbs.VerbsLayouts;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

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

    private final MemorySegment id;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment privateData;
    private final int privateLen;
    private final int initiatorDepth;
    private final int responderResources;
    private final InetSocketAddress remote;
    private final InetSocketAddress local;
    private final NvmeRdmaCmRequest req = new NvmeRdmaCmRequest();
    private boolean answered;

    private NvmeRdmaConnectRequest(MemorySegment id, MemorySegment pd, int len, int ird, int ord,
                                   InetSocketAddress remote, InetSocketAddress local) {
        this.id = id;
        this.privateData = arena.allocate(MAX_PRIVATE);
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

    /** Copies what a CONNECT_REQUEST event ({@link VerbsLayouts#RDMA_CM_EVENT}) carries. */
    public static NvmeRdmaConnectRequest fromEvent(MemorySegment event) {
        MemorySegment ev = event.reinterpret(VerbsLayouts.RDMA_CM_EVENT.byteSize());
        MemorySegment cmId = ev.get(ADDRESS, VerbsLayouts.CM_EVENT_ID).reinterpret(VerbsLayouts.RDMA_CM_ID.byteSize());
        MemorySegment pd = ev.get(ADDRESS, VerbsLayouts.CM_EVENT_PRIVATE_DATA);
        int len = ev.get(JAVA_BYTE, VerbsLayouts.CM_EVENT_PRIVATE_DATA_LEN) & 0xff;
        int ird = ev.get(JAVA_BYTE, VerbsLayouts.CM_EVENT_RESPONDER_RESOURCES) & 0xff;
        int ord = ev.get(JAVA_BYTE, VerbsLayouts.CM_EVENT_INITIATOR_DEPTH) & 0xff;
        return new NvmeRdmaConnectRequest(cmId, pd, len, ird, ord, sockaddr(cmId, VerbsLayouts.CM_ID_DST_SIN),
                sockaddr(cmId, VerbsLayouts.CM_ID_SRC_SIN));
    }

    /** A request over bytes already in hand (tests: the private-data parser without a device). */
    public static NvmeRdmaConnectRequest of(MemorySegment privateData, int len, InetSocketAddress remote,
                                            InetSocketAddress local) {
        return new NvmeRdmaConnectRequest(MemorySegment.NULL, privateData, len, 16, 16, remote, local);
    }

    private static InetSocketAddress sockaddr(MemorySegment cmId, long off) {
        byte[] a = new byte[4];
        MemorySegment.copy(cmId, JAVA_BYTE, off + VerbsLayouts.offset(VerbsLayouts.SOCKADDR_IN, "sin_addr"), a, 0, 4);
        int port = cmId.get(java.lang.foreign.ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN),
                off + VerbsLayouts.offset(VerbsLayouts.SOCKADDR_IN, "sin_port")) & 0xffff;
        try {
            return new InetSocketAddress(InetAddress.getByAddress(a), port);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** The connection's rdma_cm id (NULL for requests made by {@link #of}). */
    public MemorySegment id() {
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
        MemorySegment pd = arena.allocate(NvmeRdmaCmAccept.LEN);
        NvmeRdmaCmAccept.encode(pd, 0, crqsize);
        MemorySegment cp = arena.allocate(VerbsLayouts.RDMA_CONN_PARAM);
        cp.set(ADDRESS, VerbsLayouts.offset(VerbsLayouts.RDMA_CONN_PARAM, "private_data"), pd);
        cp.set(JAVA_BYTE, VerbsLayouts.offset(VerbsLayouts.RDMA_CONN_PARAM, "private_data_len"),
                (byte) NvmeRdmaCmAccept.LEN);
        // We only RDMA-READ (host data of writes); the host reads nothing of ours.
        cp.set(JAVA_BYTE, VerbsLayouts.offset(VerbsLayouts.RDMA_CONN_PARAM, "initiator_depth"),
                (byte) Math.min(Math.max(initiatorDepth, 1), 16));
        cp.set(JAVA_BYTE, VerbsLayouts.offset(VerbsLayouts.RDMA_CONN_PARAM, "responder_resources"),
                (byte) Math.min(responderResources, 16));
        cp.set(JAVA_BYTE, VerbsLayouts.offset(VerbsLayouts.RDMA_CONN_PARAM, "flow_control"), (byte) 1);
        cp.set(JAVA_BYTE, VerbsLayouts.offset(VerbsLayouts.RDMA_CONN_PARAM, "rnr_retry_count"), (byte) 7);
        RdmaCm.accept(id, cp);
    }

    /**
     * {@code rdma_reject} with the NVMe/RDMA reject private data (status {@code sts}). The listener
     * destroys the id after acknowledging the event ({@code rdma_destroy_id} waits for that). Never
     * throws: a reject that cannot be sent leaves the host to time out.
     */
    public void reject(int sts) {
        if (answered || id.equals(MemorySegment.NULL)) {
            answered = true;
            return;
        }
        answered = true;
        MemorySegment pd = arena.allocate(NvmeRdmaCmReject.LEN);
        NvmeRdmaCmReject.encode(pd, 0, sts);
        try {
            RdmaCm.reject(id, pd, NvmeRdmaCmReject.LEN);
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
        arena.close();
    }
}
