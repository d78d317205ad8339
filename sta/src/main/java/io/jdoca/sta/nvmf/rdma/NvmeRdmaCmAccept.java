package io.jdoca.sta.nvmf.rdma;

import static io.jdoca.sta.nvme.NvmeLayouts.LE16;

import java.lang.foreign.MemorySegment;

/**
 * The private data of the controller's rdma_cm accept (NVMe RDMA Transport Specification 1.0,
 * §3.3 "RDMA_CM_REPLY Private Data", figure 5), 32 bytes, little-endian: RECFMT (bytes 01:00,
 * 0) and CRQSIZE (bytes 03:02, the controller's receive queue size, 1's based: the commands the
 * host may have outstanding), the rest reserved.
 *
 * <p>Stateless; the segment is the caller's.
 */
public final class NvmeRdmaCmAccept {
    public static final int LEN = 32;
    public static final int OFF_RECFMT = 0;
    public static final int OFF_CRQSIZE = 2;

    private NvmeRdmaCmAccept() {
    }

    public static void encode(MemorySegment s, long base, int crqsize) {
        s.asSlice(base, LEN).fill((byte) 0);
        s.set(LE16, base + OFF_RECFMT, (short) NvmeRdmaCmRequest.RECFMT_1_0);
        s.set(LE16, base + OFF_CRQSIZE, (short) crqsize);
    }

    public static int recfmt(MemorySegment s, long base) {
        return s.get(LE16, base + OFF_RECFMT) & 0xffff;
    }

    public static int crqsize(MemorySegment s, long base) {
        return s.get(LE16, base + OFF_CRQSIZE) & 0xffff;
    }
}
