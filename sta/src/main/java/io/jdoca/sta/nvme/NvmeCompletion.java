package io.jdoca.sta.nvme;

import static io.jdoca.sta.nvme.NvmeLayouts.LE16;
import static io.jdoca.sta.nvme.NvmeLayouts.LE32;

import java.lang.foreign.MemorySegment;

/**
 * A 16-byte NVMe completion queue entry (NVMe Base 2.0 §4.6, figure 94): DW0, DW1, SQHD, SQID,
 * CID, status (phase tag bit 0, SC bits 8:1, SCT bits 11:9, CRD 13:12, M bit 14, DNR bit 15).
 *
 * <p>Stateless; safe from any thread.
 */
public final class NvmeCompletion {
    public static final int SIZE = 16;
    public static final int OFF_DW0 = 0;
    public static final int OFF_DW1 = 4;
    public static final int OFF_SQHD = 8;
    public static final int OFF_SQID = 10;
    public static final int OFF_CID = 12;
    public static final int OFF_STATUS = 14;

    private NvmeCompletion() {
    }

    public static void encode(MemorySegment s, long base, int dw0, int dw1, int sqhd, int sqid, int cid, int status) {
        s.set(LE32, base + OFF_DW0, dw0);
        s.set(LE32, base + OFF_DW1, dw1);
        s.set(LE16, base + OFF_SQHD, (short) sqhd);
        s.set(LE16, base + OFF_SQID, (short) sqid);
        s.set(LE16, base + OFF_CID, (short) cid);
        s.set(LE16, base + OFF_STATUS, (short) status);
    }

    public static int dw0(MemorySegment s, long base) {
        return s.get(LE32, base + OFF_DW0);
    }

    public static int dw1(MemorySegment s, long base) {
        return s.get(LE32, base + OFF_DW1);
    }

    public static int sqhd(MemorySegment s, long base) {
        return s.get(LE16, base + OFF_SQHD) & 0xffff;
    }

    public static int sqid(MemorySegment s, long base) {
        return s.get(LE16, base + OFF_SQID) & 0xffff;
    }

    public static int cid(MemorySegment s, long base) {
        return s.get(LE16, base + OFF_CID) & 0xffff;
    }

    /** The 16-bit status field (phase tag included). */
    public static int status(MemorySegment s, long base) {
        return s.get(LE16, base + OFF_STATUS) & 0xffff;
    }
}
