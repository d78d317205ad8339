package io.jdoca.sta.nvmf.tcp;

import io.jdoca.sta.nvme.NvmeLayouts;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The NVMe/TCP PDU common header (NVMe/TCP Transport Specification 1.0, section 3.6.1, figure 18)
 * and the constants every PDU shares: PDU types, flags, limits. All multi-byte fields of NVMe/TCP
 * are little-endian. Static accessors over a segment and a base offset: nothing allocates.
 *
 * <p>Stateless; safe from any thread (the segment is the caller's).
 */
public final class NvmeTcpPdu {
    /** Little-endian unaligned layouts: every NVMe/TCP and NVMe field is little-endian (NVMe/TCP 1.0 §3.6.1). */
    public static final ValueLayout.OfShort LE16 = NvmeLayouts.LE16;
    public static final ValueLayout.OfInt LE32 = NvmeLayouts.LE32;
    public static final ValueLayout.OfLong LE64 = NvmeLayouts.LE64;
    public static final ValueLayout.OfByte U8 = NvmeLayouts.U8;

    // PDU types (NVMe/TCP 1.0 §3.6.1, figure 19 "PDU-Type values").
    public static final int TYPE_IC_REQ = 0x00;
    public static final int TYPE_IC_RESP = 0x01;
    public static final int TYPE_H2C_TERM_REQ = 0x02;
    public static final int TYPE_C2H_TERM_REQ = 0x03;
    public static final int TYPE_CAPSULE_CMD = 0x04;
    public static final int TYPE_CAPSULE_RESP = 0x05;
    public static final int TYPE_H2C_DATA = 0x06;
    public static final int TYPE_C2H_DATA = 0x07;
    public static final int TYPE_R2T = 0x09;

    // FLAGS bits (NVMe/TCP 1.0 §3.6.1, figure 18 byte 1; data PDUs §3.6.2.8/§3.6.2.9).
    public static final int FLAG_HDGSTF = 0x01;
    public static final int FLAG_DDGSTF = 0x02;
    /** LAST_PDU in H2CData and C2HData. */
    public static final int FLAG_DATA_LAST = 0x04;
    /** SUCCESS in C2HData: the command completed, no CapsuleResp follows. */
    public static final int FLAG_DATA_SUCCESS = 0x08;

    // Common header field offsets (NVMe/TCP 1.0 §3.6.1, figure 18).
    public static final int OFF_PDU_TYPE = 0;
    public static final int OFF_FLAGS = 1;
    public static final int OFF_HLEN = 2;
    public static final int OFF_PDO = 3;
    public static final int OFF_PLEN = 4;
    /** Length of the common header. */
    public static final int CH_LEN = 8;

    // Fixed header lengths per type (NVMe/TCP 1.0 §3.6.2.x, figures 20-28).
    public static final int IC_LEN = 128;
    public static final int CAPSULE_CMD_HLEN = 72;
    public static final int CAPSULE_RESP_HLEN = 24;
    public static final int DATA_HLEN = 24;
    public static final int R2T_HLEN = 24;
    public static final int TERM_REQ_HLEN = 24;
    /** Digest length (CRC32C, §3.6.1.x "Digests"). */
    public static final int DIGEST_LEN = 4;

    private NvmeTcpPdu() {
    }

    public static int type(MemorySegment s, long base) {
        return s.get(U8, base + OFF_PDU_TYPE) & 0xff;
    }

    public static int flags(MemorySegment s, long base) {
        return s.get(U8, base + OFF_FLAGS) & 0xff;
    }

    public static int hlen(MemorySegment s, long base) {
        return s.get(U8, base + OFF_HLEN) & 0xff;
    }

    public static int pdo(MemorySegment s, long base) {
        return s.get(U8, base + OFF_PDO) & 0xff;
    }

    /** PLEN as an unsigned value in a long (a hostile peer may send 0xffffffff). */
    public static long plen(MemorySegment s, long base) {
        return s.get(LE32, base + OFF_PLEN) & 0xffffffffL;
    }

    /** Writes the common header. */
    public static void putHeader(MemorySegment s, long base, int type, int flags, int hlen, int pdo, int plen) {
        s.set(U8, base + OFF_PDU_TYPE, (byte) type);
        s.set(U8, base + OFF_FLAGS, (byte) flags);
        s.set(U8, base + OFF_HLEN, (byte) hlen);
        s.set(U8, base + OFF_PDO, (byte) pdo);
        s.set(LE32, base + OFF_PLEN, plen);
    }

    /** Clears {@code len} bytes (reserved fields must be zero). */
    public static void zero(MemorySegment s, long base, long len) {
        s.asSlice(base, len).fill((byte) 0);
    }

    /** Human-readable PDU type name, for logs and tests (allocates nothing: constant strings). */
    public static String typeName(int type) {
        return switch (type) {
            case TYPE_IC_REQ -> "ICReq";
            case TYPE_IC_RESP -> "ICResp";
            case TYPE_H2C_TERM_REQ -> "H2CTermReq";
            case TYPE_C2H_TERM_REQ -> "C2HTermReq";
            case TYPE_CAPSULE_CMD -> "CapsuleCmd";
            case TYPE_CAPSULE_RESP -> "CapsuleResp";
            case TYPE_H2C_DATA -> "H2CData";
            case TYPE_C2H_DATA -> "C2HData";
            case TYPE_R2T -> "R2T";
            default -> "Unknown";
        };
    }
}
