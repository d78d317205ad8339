package io.jdoca.sta.nvmf.tcp;

import static io.jdoca.sta.nvmf.tcp.NvmeTcpPdu.LE16;
import static io.jdoca.sta.nvmf.tcp.NvmeTcpPdu.LE32;
import static io.jdoca.sta.nvmf.tcp.NvmeTcpPdu.U8;

import java.lang.foreign.MemorySegment;

/**
 * ICReq, the host's Initialize Connection Request (NVMe/TCP 1.0 §3.6.2.2, figure 20): 128 bytes.
 * A flyweight: {@link #wrap} points it at bytes; getters read them in place.
 *
 * <p>Not thread-safe (one instance per connection).
 */
public final class IcReqPdu {
    /** PFV, PDU format version (0 = NVMe/TCP 1.0). */
    public static final int OFF_PFV = 8;
    /** HPDA, host PDU data alignment (0's based dwords). */
    public static final int OFF_HPDA = 10;
    /** DGST: bit 0 HDGST_ENABLE, bit 1 DDGST_ENABLE. */
    public static final int OFF_DGST = 11;
    /** MAXR2T: maximum outstanding R2Ts per command (0's based). */
    public static final int OFF_MAXR2T = 12;

    private MemorySegment seg;
    private long base;

    public IcReqPdu wrap(MemorySegment seg, long base) {
        this.seg = seg;
        this.base = base;
        return this;
    }

    public int pfv() {
        return seg.get(LE16, base + OFF_PFV) & 0xffff;
    }

    public int hpda() {
        return seg.get(U8, base + OFF_HPDA) & 0xff;
    }

    public boolean headerDigest() {
        return (seg.get(U8, base + OFF_DGST) & 0x01) != 0;
    }

    public boolean dataDigest() {
        return (seg.get(U8, base + OFF_DGST) & 0x02) != 0;
    }

    public long maxR2t() {
        return seg.get(LE32, base + OFF_MAXR2T) & 0xffffffffL;
    }

    /** Encodes an ICReq (used by initiators: nvme-perf, tests). */
    public static void encode(MemorySegment s, long base, boolean hdgst, boolean ddgst, int hpda, int maxR2t) {
        NvmeTcpPdu.zero(s, base, NvmeTcpPdu.IC_LEN);
        NvmeTcpPdu.putHeader(s, base, NvmeTcpPdu.TYPE_IC_REQ, 0, NvmeTcpPdu.IC_LEN, 0, NvmeTcpPdu.IC_LEN);
        s.set(LE16, base + OFF_PFV, (short) 0);
        s.set(U8, base + OFF_HPDA, (byte) hpda);
        s.set(U8, base + OFF_DGST, (byte) ((hdgst ? 1 : 0) | (ddgst ? 2 : 0)));
        s.set(LE32, base + OFF_MAXR2T, maxR2t);
    }
}
