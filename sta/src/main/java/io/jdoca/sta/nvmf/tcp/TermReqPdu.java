package io.jdoca.sta.nvmf.tcp;

import static io.jdoca.sta.nvmf.tcp.NvmeTcpPdu.LE16;
import static io.jdoca.sta.nvmf.tcp.NvmeTcpPdu.LE32;

import java.lang.foreign.MemorySegment;

/**
 * H2CTermReq / C2HTermReq (NVMe/TCP 1.0 §3.6.2.4 and §3.6.2.5, figures 22-23): a fatal transport
 * error report, followed by the closing of the connection. The header is 24 bytes; the data is the
 * header of the PDU in error (C2HTermReq: up to 128 bytes, so PLEN at most 152).
 *
 * <p>Stateless; safe from any thread.
 */
public final class TermReqPdu {
    /** FES, fatal error status. */
    public static final int OFF_FES = 8;
    /** FEI, fatal error information (e.g. the byte offset of an invalid header field). */
    public static final int OFF_FEI = 10;
    /** Maximum bytes of the offending PDU header carried in a C2HTermReq. */
    public static final int MAX_DATA = 128;

    // FES values (NVMe/TCP 1.0 §3.6.2.4, figure 22).
    public static final int FES_INVALID_HEADER_FIELD = 0x01;
    public static final int FES_PDU_SEQUENCE_ERROR = 0x02;
    public static final int FES_HEADER_DIGEST_ERROR = 0x03;
    public static final int FES_DATA_OUT_OF_RANGE = 0x04;
    public static final int FES_R2T_LIMIT_EXCEEDED = 0x05;
    public static final int FES_UNSUPPORTED_PARAMETER = 0x06;

    private TermReqPdu() {
    }

    /** Encodes a TermReq header; the caller appends {@code dataLen} bytes of the offending header. */
    public static void encode(MemorySegment s, long base, int type, int fes, int fei, int dataLen) {
        NvmeTcpPdu.putHeader(s, base, type, 0, NvmeTcpPdu.TERM_REQ_HLEN, 0, NvmeTcpPdu.TERM_REQ_HLEN + dataLen);
        s.set(LE16, base + OFF_FES, (short) fes);
        s.set(LE32, base + OFF_FEI, fei);
        s.set(LE16, base + 14, (short) 0);
        s.set(NvmeTcpPdu.LE64, base + 16, 0L);
    }

    public static int fes(MemorySegment s, long base) {
        return s.get(LE16, base + OFF_FES) & 0xffff;
    }

    public static int fei(MemorySegment s, long base) {
        return s.get(LE32, base + OFF_FEI);
    }
}
