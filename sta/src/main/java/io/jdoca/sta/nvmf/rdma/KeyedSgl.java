package io.jdoca.sta.nvmf.rdma;

import static io.jdoca.sta.nvme.NvmeLayouts.LE32;
import static io.jdoca.sta.nvme.NvmeLayouts.LE64;
import static io.jdoca.sta.nvme.NvmeLayouts.U8;

import java.lang.foreign.MemorySegment;

/**
 * The SGL descriptor in DPTR of an NVMe/RDMA command capsule (bytes 39:24 of the SQE; NVMe Base
 * 2.0 §4.3.2, figures 117-121; NVMe RDMA Transport Specification 1.0 §3.2):
 * <ul>
 *   <li>Keyed SGL Data Block (type 0x4, figure 121): address (bytes 07:00), length (bytes 10:08,
 *       <b>3 bytes</b>), key (bytes 14:11), identifier (byte 15). Sub-type 0x0 = address, 0xF =
 *       invalidate the key (the controller answers with SEND with Invalidate).</li>
 *   <li>Data Block (type 0x0) with sub-type 0x1 (offset): in-capsule data, address = offset from
 *       the start of the capsule's data (ICDOFF 0), length bytes 11:08 (4 bytes).</li>
 * </ul>
 * Static accessors over the SQE base: nothing allocates. Stateless; safe from any thread.
 */
public final class KeyedSgl {
    /** Offset of DPTR.SGL1 in the SQE. */
    public static final int OFF_SGL = 24;
    public static final int OFF_ADDRESS = OFF_SGL;
    public static final int OFF_LENGTH = OFF_SGL + 8;
    public static final int OFF_KEY = OFF_SGL + 11;
    public static final int OFF_ID = OFF_SGL + 15;

    /** SGL descriptor types (Base 2.0 figure 118). */
    public static final int TYPE_DATA_BLOCK = 0x0;
    public static final int TYPE_KEYED_DATA_BLOCK = 0x4;
    /** Sub-types (figure 119). */
    public static final int SUBTYPE_ADDRESS = 0x0;
    public static final int SUBTYPE_OFFSET = 0x1;
    public static final int SUBTYPE_INVALIDATE_KEY = 0xF;
    /** Largest length a keyed descriptor can carry (3 bytes). */
    public static final int MAX_KEYED_LENGTH = 0xffffff;

    private KeyedSgl() {
    }

    public static int id(MemorySegment s, long sqe) {
        return s.get(U8, sqe + OFF_ID) & 0xff;
    }

    public static int type(MemorySegment s, long sqe) {
        return id(s, sqe) >>> 4;
    }

    public static int subtype(MemorySegment s, long sqe) {
        return id(s, sqe) & 0xf;
    }

    public static long address(MemorySegment s, long sqe) {
        return s.get(LE64, sqe + OFF_ADDRESS);
    }

    /** The 3-byte length of a keyed descriptor. */
    public static int keyedLength(MemorySegment s, long sqe) {
        return s.get(LE32, sqe + OFF_LENGTH) & 0xffffff;
    }

    /** The 4-byte length of an (unkeyed) data block descriptor. */
    public static long blockLength(MemorySegment s, long sqe) {
        return s.get(LE32, sqe + OFF_LENGTH) & 0xffffffffL;
    }

    public static int key(MemorySegment s, long sqe) {
        return s.get(LE32, sqe + OFF_KEY);
    }

    /** True for a keyed data block (host memory the controller reaches with RDMA READ/WRITE). */
    public static boolean keyed(MemorySegment s, long sqe) {
        return type(s, sqe) == TYPE_KEYED_DATA_BLOCK;
    }

    /** Writes a keyed data block descriptor (initiators, tests). */
    public static void putKeyed(MemorySegment s, long sqe, long addr, int len, int key, boolean invalidate) {
        s.set(LE64, sqe + OFF_ADDRESS, addr);
        s.set(U8, sqe + OFF_LENGTH, (byte) len);
        s.set(U8, sqe + OFF_LENGTH + 1, (byte) (len >>> 8));
        s.set(U8, sqe + OFF_LENGTH + 2, (byte) (len >>> 16));
        s.set(LE32, sqe + OFF_KEY, key);
        s.set(U8, sqe + OFF_ID, (byte) (TYPE_KEYED_DATA_BLOCK << 4 | (invalidate
                ? SUBTYPE_INVALIDATE_KEY : SUBTYPE_ADDRESS)));
    }

    /** Writes an in-capsule (offset) data block descriptor (initiators, tests). */
    public static void putOffset(MemorySegment s, long sqe, long offset, int len) {
        s.set(LE64, sqe + OFF_ADDRESS, offset);
        s.set(LE32, sqe + OFF_LENGTH, len);
        s.set(U8, sqe + OFF_SGL + 12, (byte) 0); // bytes 14:12 reserved
        s.set(U8, sqe + OFF_SGL + 13, (byte) 0);
        s.set(U8, sqe + OFF_SGL + 14, (byte) 0);
        s.set(U8, sqe + OFF_ID, (byte) (TYPE_DATA_BLOCK << 4 | SUBTYPE_OFFSET));
    }
}
