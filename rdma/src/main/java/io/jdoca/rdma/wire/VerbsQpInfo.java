package io.jdoca.rdma.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The verbs part of a connection blob ({@link RdmaConnectionBlob}, transport VERBS): what the peer's RC QP
 * needs to move INIT → RTR → RTS towards this end (rdma-core's {@code ibv_modify_qp}; the fields are the
 * IBA's: QPN and PSN are 24-bit, InfiniBand Architecture Specification Vol. 1, 9.2 (BTH); the GID is the
 * 128-bit port address of the GRH, 8.3; the LID addresses an InfiniBand port without GRH; the MTU is the
 * port's active {@code enum ibv_mtu}). Little-endian, {@value #SIZE} bytes:
 *
 * <pre>
 *   off size field
 *    0   4   QP number (≤ 0xFFFFFF)
 *    4   4   first PSN of this end's send queue (≤ 0xFFFFFF, random)
 *    8  16   GID (network order, as ibv_query_gid gives it)
 *   24   2   LID (InfiniBand; 0 on RoCE)
 *   26   1   port number (≥ 1)
 *   27   1   active MTU (enum ibv_mtu: 1 = 256 … 5 = 4096)
 *   28   1   link layer (IBV_LINK_LAYER_*: 1 InfiniBand, 2 Ethernet)
 *   29   3   reserved (0)
 *   32   8   address of this end's control word (jdoca: the peer RDMA-writes 1 there when it closes)
 *   40   4   rkey of the control word
 *   44   4   reserved (0)
 * </pre>
 * Immutable; thread-safe.
 *
 * @param qpn       QP number
 * @param psn       first packet sequence number
 * @param gid       16-byte GID
 * @param lid       LID (IB) or 0
 * @param port      port number
 * @param mtu       enum ibv_mtu
 * @param linkLayer IBV_LINK_LAYER_*
 * @param ctrlAddr  address of the control word
 * @param ctrlRkey  its rkey
 */
public record VerbsQpInfo(int qpn, int psn, byte[] gid, int lid, int port, int mtu, int linkLayer, long ctrlAddr,
        int ctrlRkey) {
    public static final int SIZE = 48;

    public VerbsQpInfo {
        gid = gid.clone();
    }

    @Override
    public byte[] gid() {
        return gid.clone();
    }

    /** Writes the {@value #SIZE} bytes at {@code off} of {@code s}. */
    public void encode(MemorySegment s, long off) {
        if (gid.length != 16) {
            throw new IllegalArgumentException("a GID has 16 bytes, not " + gid.length);
        }
        s.set(ValueLayout.JAVA_INT_UNALIGNED, off, qpn);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, off + 4, psn);
        MemorySegment.copy(gid, 0, s, ValueLayout.JAVA_BYTE, off + 8, 16);
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, off + 24, (short) lid);
        s.set(ValueLayout.JAVA_BYTE, off + 26, (byte) port);
        s.set(ValueLayout.JAVA_BYTE, off + 27, (byte) mtu);
        s.set(ValueLayout.JAVA_BYTE, off + 28, (byte) linkLayer);
        s.set(ValueLayout.JAVA_BYTE, off + 29, (byte) 0);
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, off + 30, (short) 0);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, off + 32, ctrlAddr);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, off + 40, ctrlRkey);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, off + 44, 0);
    }

    /** Parses {@value #SIZE} bytes at {@code off}; {@link IllegalArgumentException} for any malformed field. */
    public static VerbsQpInfo decode(MemorySegment s, long off) {
        if (s.byteSize() - off < SIZE) {
            throw new IllegalArgumentException("verbs QP descriptor truncated");
        }
        int qpn = s.get(ValueLayout.JAVA_INT_UNALIGNED, off);
        int psn = s.get(ValueLayout.JAVA_INT_UNALIGNED, off + 4);
        if ((qpn & 0xFF000000) != 0 || qpn == 0 || (psn & 0xFF000000) != 0) {
            throw new IllegalArgumentException("QP number or PSN out of 24 bits");
        }
        byte[] gid = new byte[16];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, off + 8, gid, 0, 16);
        int lid = Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, off + 24));
        int port = Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, off + 26));
        int mtu = Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, off + 27));
        int ll = Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, off + 28));
        if (port == 0 || mtu < 1 || mtu > 5 || ll > 2) {
            throw new IllegalArgumentException("bad port, MTU or link layer in verbs QP descriptor");
        }
        if (s.get(ValueLayout.JAVA_BYTE, off + 29) != 0 || s.get(ValueLayout.JAVA_SHORT_UNALIGNED, off + 30) != 0
                || s.get(ValueLayout.JAVA_INT_UNALIGNED, off + 44) != 0) {
            throw new IllegalArgumentException("reserved bytes set in verbs QP descriptor");
        }
        long ctrl = s.get(ValueLayout.JAVA_LONG_UNALIGNED, off + 32);
        if (ctrl == 0 || (ctrl & 7) != 0) {
            throw new IllegalArgumentException("bad control word address in verbs QP descriptor");
        }
        return new VerbsQpInfo(qpn, psn, gid, lid, port, mtu, ll, ctrl, s.get(ValueLayout.JAVA_INT_UNALIGNED, off
                + 40));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof VerbsQpInfo v && v.qpn == qpn && v.psn == psn && Arrays.equals(v.gid, gid) && v.lid == lid
                && v.port == port && v.mtu == mtu && v.linkLayer == linkLayer && v.ctrlAddr == ctrlAddr
                && v.ctrlRkey == ctrlRkey;
    }

    @Override
    public int hashCode() {
        return qpn * 31 + psn;
    }

    @Override
    public String toString() {
        return "VerbsQpInfo[qpn 0x" + Integer.toHexString(qpn) + ", psn 0x" + Integer.toHexString(psn) + ", port "
                + port
                + ", mtu " + mtu + ", lid " + lid + "]";
    }
}
