package io.jdoca.sta.nvme;

import static io.jdoca.sta.nvme.NvmeLayouts.LE16;
import static io.jdoca.sta.nvme.NvmeLayouts.LE32;
import static io.jdoca.sta.nvme.NvmeLayouts.LE64;
import static io.jdoca.sta.nvme.NvmeLayouts.U8;

import java.lang.foreign.MemorySegment;

/**
 * A 64-byte NVMe submission queue entry (NVMe Base 2.0 §4.2, figure 88 "Common Command Format"),
 * with the SGL data-block descriptor of NVMe over Fabrics in DPTR (§4.3.2). A flyweight: wrap it
 * over the bytes (inside a CapsuleCmd PDU, at offset 8) and read fields in place. Fabrics
 * commands (opcode 0x7f) put FCTYPE at byte 4 (NVMe-oF 1.1 §6.1, figure 9).
 *
 * <p>Not thread-safe; valid only while the wrapped bytes are.
 */
public final class NvmeCommand {
    public static final int SIZE = 64;
    public static final int OFF_OPCODE = 0;
    public static final int OFF_FLAGS = 1;
    public static final int OFF_CID = 2;
    public static final int OFF_NSID = 4;
    /** FCTYPE of a Fabrics command (NVMe-oF 1.1 figure 9). */
    public static final int OFF_FCTYPE = 4;
    public static final int OFF_MPTR = 16;
    /** SGL descriptor: address (8), length (4), reserved (3), SGL identifier (1) (Base 2.0 §4.3.2, figure 117). */
    public static final int OFF_SGL_ADDR = 24;
    public static final int OFF_SGL_LEN = 32;
    public static final int OFF_SGL_TYPE = 39;
    public static final int OFF_CDW10 = 40;
    public static final int OFF_CDW11 = 44;
    public static final int OFF_CDW12 = 48;
    public static final int OFF_CDW13 = 52;
    public static final int OFF_CDW14 = 56;
    public static final int OFF_CDW15 = 60;

    /** SGL identifier of in-capsule data: Data Block descriptor, Offset sub-type (0x0 << 4 | 0x1). */
    public static final int SGL_DATA_BLOCK_OFFSET = 0x01;
    /**
     * SGL identifier NVMe/TCP uses for host-memory data: Transport Data Block, sub-type Transport A (0x5 << 4 | 0xA).
     */
    public static final int SGL_TRANSPORT_DATA_BLOCK = 0x5a;

    private MemorySegment seg;
    private long base;

    public NvmeCommand wrap(MemorySegment seg, long base) {
        this.seg = seg;
        this.base = base;
        return this;
    }

    public MemorySegment segment() {
        return seg;
    }

    public long base() {
        return base;
    }

    public int opcode() {
        return seg.get(U8, base + OFF_OPCODE) & 0xff;
    }

    public int flags() {
        return seg.get(U8, base + OFF_FLAGS) & 0xff;
    }

    public int cid() {
        return seg.get(LE16, base + OFF_CID) & 0xffff;
    }

    public int nsid() {
        return seg.get(LE32, base + OFF_NSID);
    }

    public int fctype() {
        return seg.get(U8, base + OFF_FCTYPE) & 0xff;
    }

    public long sglAddress() {
        return seg.get(LE64, base + OFF_SGL_ADDR);
    }

    /**
     * The descriptor's length: 4 bytes, except a Keyed SGL Data Block (type 0x4, NVMe/RDMA), whose
     * length is 3 bytes followed by the key (Base 2.0 figure 121).
     */
    public long sglLength() {
        long v = seg.get(LE32, base + OFF_SGL_LEN) & 0xffffffffL;
        return isKeyed(sglType()) ? v & 0xffffff : v;
    }

    /** True for an SGL identifier of a Keyed SGL Data Block (descriptor type 0x4, any sub-type). */
    public static boolean isKeyed(int sglType) {
        return sglType >>> 4 == 0x4;
    }

    /** True for an SGL identifier naming host memory the transport fetches data from (NVMe/TCP or keyed RDMA). */
    public static boolean isHostMemory(int sglType) {
        return sglType == SGL_TRANSPORT_DATA_BLOCK || isKeyed(sglType);
    }

    public int sglType() {
        return seg.get(U8, base + OFF_SGL_TYPE) & 0xff;
    }

    public int cdw10() {
        return seg.get(LE32, base + OFF_CDW10);
    }

    public int cdw11() {
        return seg.get(LE32, base + OFF_CDW11);
    }

    public int cdw12() {
        return seg.get(LE32, base + OFF_CDW12);
    }

    public int cdw13() {
        return seg.get(LE32, base + OFF_CDW13);
    }

    public int cdw14() {
        return seg.get(LE32, base + OFF_CDW14);
    }

    public int cdw15() {
        return seg.get(LE32, base + OFF_CDW15);
    }

    /** Starting LBA of an NVM I/O command (CDW10-11, NVM Command Set 1.0 §3.2.4). */
    public long slba() {
        return seg.get(LE64, base + OFF_CDW10);
    }

    /** Number of logical blocks, 1-based (CDW12 bits 15:0 are 0's based). */
    public int nlb() {
        return (seg.get(LE32, base + OFF_CDW12) & 0xffff) + 1;
    }

    /** Copies the 64 bytes out (control path). */
    public byte[] toBytes() {
        return seg.asSlice(base, SIZE).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    // -------------------------------------------------------------- encoders (initiators, tests)

    /** Zeroes the SQE and sets opcode, cid, nsid. */
    public static void encode(MemorySegment s, long base, int opcode, int cid, int nsid) {
        for (int i = 0; i < SIZE; i += 8) {
            s.set(LE64, base + i, 0L); // not asSlice().fill(): a slice per command unless escape analysis removes it
        }
        s.set(U8, base + OFF_OPCODE, (byte) opcode);
        s.set(LE16, base + OFF_CID, (short) cid);
        s.set(LE32, base + OFF_NSID, nsid);
    }

    public static void putSgl(MemorySegment s, long base, int type, long addr, long len) {
        s.set(LE64, base + OFF_SGL_ADDR, addr);
        s.set(LE32, base + OFF_SGL_LEN, (int) len);
        s.set(U8, base + OFF_SGL_TYPE, (byte) type);
    }

    public static void putCdw(MemorySegment s, long base, int off, int value) {
        s.set(LE32, base + off, value);
    }

    /** Sets an NVM Read/Write range (SLBA in CDW10-11, NLB 0's based in CDW12). */
    public static void putRange(MemorySegment s, long base, long slba, int nlb) {
        s.set(LE64, base + OFF_CDW10, slba);
        s.set(LE32, base + OFF_CDW12, (nlb - 1) & 0xffff);
    }
}
