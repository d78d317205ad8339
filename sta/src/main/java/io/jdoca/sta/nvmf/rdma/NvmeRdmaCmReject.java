package io.jdoca.sta.nvmf.rdma;

import static io.jdoca.sta.nvme.NvmeLayouts.LE16;

import java.lang.foreign.MemorySegment;

/**
 * The private data of an rdma_cm reject of an NVMe/RDMA connection (NVMe RDMA Transport
 * Specification 1.0, §3.3 "RDMA_CM_REJECT Private Data", figure 6), 4 bytes, little-endian:
 * RECFMT (bytes 01:00, 0) and STS (bytes 03:02), one of the STS_ values. The Linux host prints
 * the status as the reason it could not connect.
 *
 * <p>Stateless; the segment is the caller's.
 */
public final class NvmeRdmaCmReject {
    public static final int LEN = 4;
    public static final int OFF_RECFMT = 0;
    public static final int OFF_STS = 2;

    /** The private data was shorter than the request's 32 bytes. */
    public static final int STS_INVALID_LEN = 0x01;
    /** RECFMT not supported. */
    public static final int STS_INVALID_RECFMT = 0x02;
    /** QID not valid. */
    public static final int STS_INVALID_QID = 0x03;
    /** HSQSIZE out of range. */
    public static final int STS_INVALID_HSQSIZE = 0x04;
    /** HRQSIZE out of range. */
    public static final int STS_INVALID_HRQSIZE = 0x05;
    /** No resources for the queue. */
    public static final int STS_NO_RSC = 0x06;
    /** Invalid IRD (RDMA read depth). */
    public static final int STS_INVALID_IRD = 0x07;
    /** Invalid ORD. */
    public static final int STS_INVALID_ORD = 0x08;

    private NvmeRdmaCmReject() {
    }

    public static void encode(MemorySegment s, long base, int sts) {
        s.set(LE16, base + OFF_RECFMT, (short) NvmeRdmaCmRequest.RECFMT_1_0);
        s.set(LE16, base + OFF_STS, (short) sts);
    }

    public static int sts(MemorySegment s, long base) {
        return s.get(LE16, base + OFF_STS) & 0xffff;
    }

    /** The status's name, as the specification words it (control path: logs). */
    public static String describe(int sts) {
        return switch (sts) {
            case STS_INVALID_LEN -> "invalid length";
            case STS_INVALID_RECFMT -> "invalid record format";
            case STS_INVALID_QID -> "invalid queue id";
            case STS_INVALID_HSQSIZE -> "invalid host send queue size";
            case STS_INVALID_HRQSIZE -> "invalid host receive queue size";
            case STS_NO_RSC -> "no resources";
            case STS_INVALID_IRD -> "invalid IRD";
            case STS_INVALID_ORD -> "invalid ORD";
            default -> "status " + sts;
        };
    }
}
