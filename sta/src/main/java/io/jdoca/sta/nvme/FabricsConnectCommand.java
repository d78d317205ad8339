package io.jdoca.sta.nvme;

import static io.jdoca.sta.nvme.NvmeLayouts.LE16;
import static io.jdoca.sta.nvme.NvmeLayouts.LE32;
import static io.jdoca.sta.nvme.NvmeLayouts.LE64;
import static io.jdoca.sta.nvme.NvmeLayouts.U8;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * The Fabrics Connect command (NVMe-oF 1.1 §3.3, figure 20) and its 1024-byte Connect data
 * (figure 21), plus the Property Get/Set fields (§3.4-3.5, figures 23 and 25). Static accessors
 * over the SQE base (and the data base).
 *
 * <p>Stateless; safe from any thread.
 */
public final class FabricsConnectCommand {
    /** RECFMT, record format (0). */
    public static final int OFF_RECFMT = 40;
    /** QID: 0 for the admin queue. */
    public static final int OFF_QID = 42;
    /** SQSIZE, 0's based. */
    public static final int OFF_SQSIZE = 44;
    /** CATTR: bit 2 = disable SQ flow control. */
    public static final int OFF_CATTR = 46;
    /** KATO, keep-alive timeout in ms (admin queue only). */
    public static final int OFF_KATO = 48;

    /** Connect data: HOSTID (16 bytes). */
    public static final int DATA_OFF_HOSTID = 0;
    /** Connect data: CNTLID (0xffff = dynamic controller model). */
    public static final int DATA_OFF_CNTLID = 16;
    public static final int DATA_OFF_SUBNQN = 256;
    public static final int DATA_OFF_HOSTNQN = 512;
    public static final int DATA_LEN = 1024;
    public static final int NQN_LEN = 256;

    /** Property Get/Set ATTRIB: bits 2:0 size (0 = 4 bytes, 1 = 8 bytes). */
    public static final int OFF_PROP_ATTRIB = 40;
    public static final int OFF_PROP_OFFSET = 44;
    public static final int OFF_PROP_VALUE = 48;

    private FabricsConnectCommand() {
    }

    public static int recfmt(MemorySegment s, long sqe) {
        return s.get(LE16, sqe + OFF_RECFMT) & 0xffff;
    }

    public static int qid(MemorySegment s, long sqe) {
        return s.get(LE16, sqe + OFF_QID) & 0xffff;
    }

    /** SQSIZE as sent (0's based). */
    public static int sqsize(MemorySegment s, long sqe) {
        return s.get(LE16, sqe + OFF_SQSIZE) & 0xffff;
    }

    public static int cattr(MemorySegment s, long sqe) {
        return s.get(U8, sqe + OFF_CATTR) & 0xff;
    }

    public static long kato(MemorySegment s, long sqe) {
        return s.get(LE32, sqe + OFF_KATO) & 0xffffffffL;
    }

    public static int cntlid(MemorySegment data, long base) {
        return data.get(LE16, base + DATA_OFF_CNTLID) & 0xffff;
    }

    public static byte[] hostId(MemorySegment data, long base) {
        return data.asSlice(base + DATA_OFF_HOSTID, 16).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    public static String subNqn(MemorySegment data, long base) {
        return nqn(data, base + DATA_OFF_SUBNQN);
    }

    public static String hostNqn(MemorySegment data, long base) {
        return nqn(data, base + DATA_OFF_HOSTNQN);
    }

    /** A NUL-terminated NQN of at most 256 bytes (NVMe Base 2.0 §4.5). */
    public static String nqn(MemorySegment s, long off) {
        int n = 0;
        while (n < NQN_LEN && s.get(U8, off + n) != 0) {
            n++;
        }
        byte[] b = s.asSlice(off, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        return new String(b, StandardCharsets.UTF_8);
    }

    public static int propertyAttrib(MemorySegment s, long sqe) {
        return s.get(U8, sqe + OFF_PROP_ATTRIB) & 0x7;
    }

    public static int propertyOffset(MemorySegment s, long sqe) {
        return s.get(LE32, sqe + OFF_PROP_OFFSET);
    }

    public static long propertyValue(MemorySegment s, long sqe) {
        return s.get(LE64, sqe + OFF_PROP_VALUE);
    }

    /** CATTR bit 2: disable SQ flow control (the controller then need not report SQHD). */
    public static final int CATTR_DISABLE_SQ_FLOW = 0x04;

    /** Encodes a Connect SQE with attributes (e.g. {@link #CATTR_DISABLE_SQ_FLOW}); the caller sets the SGL. */
    public static void encode(MemorySegment s, long sqe, int cid, int qid, int sqsize0, long katoMs, int cattr) {
        encode(s, sqe, cid, qid, sqsize0, katoMs);
        s.set(U8, sqe + OFF_CATTR, (byte) cattr);
    }

    /** Encodes a Connect SQE (initiators, tests); the caller sets the SGL. */
    public static void encode(MemorySegment s, long sqe, int cid, int qid, int sqsize0, long katoMs) {
        NvmeCommand.encode(s, sqe, NvmeOpcode.FABRICS, cid, 0);
        s.set(U8, sqe + OFF_FCTYPE_BYTE, (byte) NvmeOpcode.FCTYPE_CONNECT);
        s.set(LE16, sqe + OFF_QID, (short) qid);
        s.set(LE16, sqe + OFF_SQSIZE, (short) sqsize0);
        s.set(LE32, sqe + OFF_KATO, (int) katoMs);
    }

    private static final int OFF_FCTYPE_BYTE = 4;

    /** Encodes Connect data. */
    public static void encodeData(MemorySegment s, long base, byte[] hostId, int cntlid, String subNqn,
            String hostNqn) {
        s.asSlice(base, DATA_LEN).fill((byte) 0);
        MemorySegment.copy(MemorySegment.ofArray(hostId), 0, s, base + DATA_OFF_HOSTID, Math.min(16, hostId.length));
        s.set(LE16, base + DATA_OFF_CNTLID, (short) cntlid);
        byte[] sn = subNqn.getBytes(StandardCharsets.UTF_8);
        byte[] hn = hostNqn.getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(MemorySegment.ofArray(sn), 0, s, base + DATA_OFF_SUBNQN, Math.min(255, sn.length));
        MemorySegment.copy(MemorySegment.ofArray(hn), 0, s, base + DATA_OFF_HOSTNQN, Math.min(255, hn.length));
    }
}
