package io.jdoca.sta.nvmf.tcp;

import static io.jdoca.sta.nvmf.tcp.NvmeTcpPdu.LE16;
import static io.jdoca.sta.nvmf.tcp.NvmeTcpPdu.LE32;
import static io.jdoca.sta.nvmf.tcp.NvmeTcpPdu.U8;

import java.lang.foreign.MemorySegment;

/**
 * ICResp, the controller's Initialize Connection Response (NVMe/TCP 1.0 §3.6.2.3, figure 21):
 * 128 bytes. Static encoder plus getters for initiators.
 *
 * <p>Stateless; safe from any thread.
 */
public final class IcRespPdu {
    /** PFV, PDU format version. */
    public static final int OFF_PFV = 8;
    /** CPDA, controller PDU data alignment. Linux requires 0. */
    public static final int OFF_CPDA = 10;
    /** DGST echo of what the host asked for. */
    public static final int OFF_DGST = 11;
    /** MAXH2CDATA: largest H2CData payload the controller accepts; a multiple of 4, at least 4096. */
    public static final int OFF_MAXH2CDATA = 12;

    private IcRespPdu() {
    }

    public static void encode(MemorySegment s, long base, boolean hdgst, boolean ddgst, int maxH2cData) {
        NvmeTcpPdu.zero(s, base, NvmeTcpPdu.IC_LEN);
        NvmeTcpPdu.putHeader(s, base, NvmeTcpPdu.TYPE_IC_RESP, 0, NvmeTcpPdu.IC_LEN, 0, NvmeTcpPdu.IC_LEN);
        s.set(LE16, base + OFF_PFV, (short) 0);
        s.set(U8, base + OFF_CPDA, (byte) 0);
        s.set(U8, base + OFF_DGST, (byte) ((hdgst ? 1 : 0) | (ddgst ? 2 : 0)));
        s.set(LE32, base + OFF_MAXH2CDATA, maxH2cData);
    }

    public static int pfv(MemorySegment s, long base) {
        return s.get(LE16, base + OFF_PFV) & 0xffff;
    }

    public static int cpda(MemorySegment s, long base) {
        return s.get(U8, base + OFF_CPDA) & 0xff;
    }

    public static int dgst(MemorySegment s, long base) {
        return s.get(U8, base + OFF_DGST) & 0xff;
    }

    public static long maxH2cData(MemorySegment s, long base) {
        return s.get(LE32, base + OFF_MAXH2CDATA) & 0xffffffffL;
    }
}
