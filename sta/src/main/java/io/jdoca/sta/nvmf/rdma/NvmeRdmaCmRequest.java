package io.jdoca.sta.nvmf.rdma;

import static io.jdoca.sta.nvme.NvmeLayouts.LE16;

import java.lang.foreign.MemorySegment;

/**
 * The private data of an rdma_cm connection request for an NVMe/RDMA queue (NVMe RDMA Transport
 * Specification 1.0, §3.3 "RDMA_CM_REQUEST Private Data", figure 4; NVMe over Fabrics 1.1
 * §7.3.1), 32 bytes, little-endian:
 * <pre>
 *  bytes 01:00 RECFMT   record format, 0 (version 1.0)
 *  bytes 03:02 QID      the NVMe queue this connection carries (0 = admin)
 *  bytes 05:04 HRQSIZE  host receive queue size (1's based: the completions the host can take)
 *  bytes 07:06 HSQSIZE  host send queue size (0's based: the SQSIZE the host will Connect with)
 *  bytes 09:08 CNTLID   controller id (I/O queues; 0xFFFF = dynamic)
 *  bytes 31:10 reserved
 * </pre>
 * A flyweight over bytes the peer sent: {@link #validate} checks everything before a field is
 * used, and answers with the reject status the specification assigns (figure 6).
 *
 * <p>Not thread-safe; valid while the wrapped bytes are.
 */
public final class NvmeRdmaCmRequest {
    public static final int LEN = 32;
    public static final int OFF_RECFMT = 0;
    public static final int OFF_QID = 2;
    public static final int OFF_HRQSIZE = 4;
    public static final int OFF_HSQSIZE = 6;
    public static final int OFF_CNTLID = 8;
    /** The only record format defined (RDMA Transport 1.0 figure 4). */
    public static final int RECFMT_1_0 = 0;
    /** Largest queue id (NVMe Base 2.0: 65535 queues, ids 0..65534). */
    public static final int MAX_QID = 0xfffe;

    private MemorySegment seg;
    private long base;
    private int len;

    /** Wraps {@code len} bytes of private data at {@code base} (len may be below {@link #LEN}: validate tells). */
    public NvmeRdmaCmRequest wrap(MemorySegment seg, long base, int len) {
        this.seg = seg;
        this.base = base;
        this.len = len;
        return this;
    }

    public int recfmt() {
        return seg.get(LE16, base + OFF_RECFMT) & 0xffff;
    }

    public int qid() {
        return seg.get(LE16, base + OFF_QID) & 0xffff;
    }

    public int hrqsize() {
        return seg.get(LE16, base + OFF_HRQSIZE) & 0xffff;
    }

    public int hsqsize() {
        return seg.get(LE16, base + OFF_HSQSIZE) & 0xffff;
    }

    public int cntlid() {
        return seg.get(LE16, base + OFF_CNTLID) & 0xffff;
    }

    /** Receive buffers the controller posts: one per host SQ entry (HSQSIZE is 0's based). */
    public int recvQueueSize() {
        return hsqsize() + 1;
    }

    /**
     * 0 when the request can be accepted with queues of at most {@code maxQueueSize} entries,
     * else the reject status ({@link NvmeRdmaCmReject}): too short, unknown record format, a queue
     * id out of range, a send or receive queue size of 0 or beyond the limit.
     */
    public int validate(int maxQueueSize) {
        if (seg == null || len < LEN || seg.byteSize() - base < LEN) {
            return NvmeRdmaCmReject.STS_INVALID_LEN;
        }
        if (recfmt() != RECFMT_1_0) {
            return NvmeRdmaCmReject.STS_INVALID_RECFMT;
        }
        if (qid() > MAX_QID) {
            return NvmeRdmaCmReject.STS_INVALID_QID;
        }
        int sq = recvQueueSize();
        if (sq < 2 || sq > maxQueueSize) {
            return NvmeRdmaCmReject.STS_INVALID_HSQSIZE;
        }
        int rq = hrqsize();
        if (rq < 1 || rq > maxQueueSize + 1) {
            return NvmeRdmaCmReject.STS_INVALID_HRQSIZE;
        }
        return 0;
    }

    /** Encodes a request (initiators, tests): HSQSIZE is 0's based, HRQSIZE 1's based. */
    public static void encode(MemorySegment s, long base, int qid, int hrqsize, int hsqsize, int cntlid) {
        s.asSlice(base, LEN).fill((byte) 0);
        s.set(LE16, base + OFF_RECFMT, (short) RECFMT_1_0);
        s.set(LE16, base + OFF_QID, (short) qid);
        s.set(LE16, base + OFF_HRQSIZE, (short) hrqsize);
        s.set(LE16, base + OFF_HSQSIZE, (short) hsqsize);
        s.set(LE16, base + OFF_CNTLID, (short) cntlid);
    }
}
