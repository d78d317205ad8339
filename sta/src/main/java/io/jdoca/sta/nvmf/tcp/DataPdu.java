package io.jdoca.sta.nvmf.tcp;

import static io.jdoca.sta.nvmf.tcp.NvmeTcpPdu.LE16;
import static io.jdoca.sta.nvmf.tcp.NvmeTcpPdu.LE32;

import java.lang.foreign.MemorySegment;

/**
 * The header shared by H2CData (§3.6.2.8, figure 26), C2HData (§3.6.2.9, figure 27) and R2T
 * (§3.6.2.10, figure 28) PDUs of NVMe/TCP 1.0: 24 bytes. In R2T the offset and length fields are
 * R2TO and R2TL.
 *
 * <p>Stateless; safe from any thread.
 */
public final class DataPdu {
    /** CCCID: the command identifier of the command this data belongs to. */
    public static final int OFF_CCCID = 8;
    /** TTAG: transfer tag (set by the controller in R2T, echoed by the host in H2CData). */
    public static final int OFF_TTAG = 10;
    /** DATAO / R2TO: offset of this data within the command's data. */
    public static final int OFF_DATAO = 12;
    /** DATAL / R2TL: length of the data. */
    public static final int OFF_DATAL = 16;

    private DataPdu() {
    }

    public static int cccid(MemorySegment s, long base) {
        return s.get(LE16, base + OFF_CCCID) & 0xffff;
    }

    public static int ttag(MemorySegment s, long base) {
        return s.get(LE16, base + OFF_TTAG) & 0xffff;
    }

    public static long datao(MemorySegment s, long base) {
        return s.get(LE32, base + OFF_DATAO) & 0xffffffffL;
    }

    public static long datal(MemorySegment s, long base) {
        return s.get(LE32, base + OFF_DATAL) & 0xffffffffL;
    }

    /**
     * Encodes a data or R2T header. {@code pdo} and {@code plen} are computed by the caller from
     * the digest settings (§3.6.1: PLEN = HLEN + HDGST + PAD + DATA + DDGST).
     */
    public static void encode(MemorySegment s, long base, int type, int flags, int pdo, int plen,
                              int cccid, int ttag, long offset, long length) {
        NvmeTcpPdu.putHeader(s, base, type, flags, NvmeTcpPdu.DATA_HLEN, pdo, plen);
        s.set(LE16, base + OFF_CCCID, (short) cccid);
        s.set(LE16, base + OFF_TTAG, (short) ttag);
        s.set(LE32, base + OFF_DATAO, (int) offset);
        s.set(LE32, base + OFF_DATAL, (int) length);
        s.set(LE32, base + 20, 0);
    }
}
