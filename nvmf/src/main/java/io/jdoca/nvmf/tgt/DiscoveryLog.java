package io.jdoca.nvmf.tgt;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The discovery log page (LID 70h, NVMe-oF 1.1 §5.3, figures 31-32): a 1024-byte header (GENCTR,
 * NUMREC, RECFMT) followed by 1024-byte entries (TRTYPE, ADRFAM, SUBTYPE, TREQ, PORTID, CNTLID,
 * ASQSZ, TRSVCID @32, SUBNQN @256, TRADDR @512, TSAS @768).
 *
 * <p>Stateless; safe from any thread.
 */
public final class DiscoveryLog {
    public static final int HEADER = 1024;
    public static final int ENTRY = 1024;
    public static final int TRTYPE_RDMA = 1;
    public static final int TRTYPE_TCP = 3;
    public static final int ADRFAM_IPV4 = 1;
    public static final int ADRFAM_IPV6 = 2;
    /** SUBTYPE of a referral to another discovery service (NVMe-oF 1.1 figure 32). */
    public static final int SUBTYPE_DISCOVERY = 1;
    public static final int SUBTYPE_NVME = 2;
    /** TREQ secure channel: not specified (jdoca's own entries), required, not required (SPDK's referrals). */
    public static final int TREQ_NOT_SPECIFIED = 0;
    public static final int TREQ_REQUIRED = 1;
    public static final int TREQ_NOT_REQUIRED = 2;
    /** TSAS SECTYPE for TCP: no security. */
    public static final int SECTYPE_NONE = 0;
    /** TSAS SECTYPE for TCP: TLS 1.3 (NVMe/TCP Transport Specification figure 6; Linux's NVMF_TCP_SECTYPE_TLS13). */
    public static final int SECTYPE_TLS13 = 2;
    /** Or'ed into an {@link Entry}'s treq (never on the wire): a TCP entry's TSAS says SECTYPE TLS 1.3. */
    static final int TREQ_TLS13 = 0x100;
    /** TSAS for RDMA (NVMe-oF 1.1 figure 34): RDMA_QPTYPE reliable connected. */
    public static final int RDMA_QPTYPE_CONNECTED = 1;
    /** RDMA_PRTYPE: provider type not specified (Soft-RoCE reports none; Linux nvmet writes the same). */
    public static final int RDMA_PRTYPE_NOT_SPECIFIED = 1;
    /** RDMA_CMS: the RDMA_IP connection management service (rdma_cm). */
    public static final int RDMA_CMS_RDMA_CM = 1;

    /**
     * One record: a subsystem (or, {@code subtype} {@link #SUBTYPE_DISCOVERY}, a discovery service
     * referred to) reachable at {@code address:port} over transport {@code trtype} (TRTYPE_*) and
     * address family {@code adrfam} (ADRFAM_*), with secure-channel requirement {@code treq}.
     */
    public record Entry(String subnqn, String address, int port, int portId, int trtype, int adrfam, int subtype,
                        int treq) {
        /** An NVM subsystem's record, IPv4. */
        public Entry(String subnqn, String address, int port, int portId, int trtype) {
            this(subnqn, address, port, portId, trtype, ADRFAM_IPV4, SUBTYPE_NVME, TREQ_NOT_SPECIFIED);
        }

        /** An NVMe/TCP record. */
        public Entry(String subnqn, String address, int port, int portId) {
            this(subnqn, address, port, portId, TRTYPE_TCP);
        }
    }

    private DiscoveryLog() {
    }

    public static byte[] build(long genctr, List<Entry> entries) {
        ByteBuffer b = IdentifyData.le(HEADER + ENTRY * entries.size());
        b.putLong(0, genctr);
        b.putLong(8, entries.size());
        b.putShort(16, (short) 0);
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            int o = HEADER + i * ENTRY;
            b.put(o, (byte) e.trtype());
            b.put(o + 1, (byte) e.adrfam());
            b.put(o + 2, (byte) e.subtype());
            b.put(o + 3, (byte) (e.treq() & 0xff));
            b.putShort(o + 4, (short) e.portId());
            b.putShort(o + 6, (short) 0xffff);  // CNTLID: dynamic
            b.putShort(o + 8, (short) 32);      // ASQSZ
            IdentifyData.ascii(b, o + 32, 32, Integer.toString(e.port()));
            IdentifyData.nqn(b, o + 256, 256, e.subnqn());
            IdentifyData.ascii(b, o + 512, 256, e.address());
            if (e.trtype() == TRTYPE_RDMA) {
                b.put(o + 768, (byte) RDMA_QPTYPE_CONNECTED);
                b.put(o + 769, (byte) RDMA_PRTYPE_NOT_SPECIFIED);
                b.put(o + 770, (byte) RDMA_CMS_RDMA_CM);
                // RDMA_PKEY (bytes 09:08 of TSAS) 0: not used over RoCE
            } else {
                b.put(o + 768, (byte) ((e.treq() & TREQ_TLS13) != 0 ? SECTYPE_TLS13 : SECTYPE_NONE));
            }
        }
        return b.array();
    }
}
