package io.jdoca.nvmf.perf;

import java.util.Locale;

/**
 * One spdk_nvme_perf transport ID ({@code -r 'trtype:TCP adrfam:IPv4 traddr:... trsvcid:... subnqn:...
 * [hostnqn:...] [ns:N]'}): the keys of SPDK's {@code spdk_nvme_transport_id_parse} that an NVMe/TCP or
 * NVMe/RDMA host uses, plus perf's own {@code ns:} and {@code hostnqn:}. Without {@code subnqn} (or with
 * the discovery NQN) it names a discovery service, as in SPDK; {@code nsid} 0 means every active
 * namespace.
 *
 * <p>Immutable; any thread.
 */
record PerfTrid(boolean rdma, boolean ipv6, String traddr, int trsvcid, String subnqn, String hostnqn, int nsid) {
    /** The well-known discovery subsystem NQN (NVMe-oF 1.1 §7.1). */
    static final String DISCOVERY_NQN = "nqn.2014-08.org.nvmexpress.discovery";

    /** True when this trid names a discovery service rather than an NVM subsystem. */
    boolean discovery() {
        return subnqn == null || subnqn.equals(DISCOVERY_NQN);
    }

    /** The NQN to connect to: the subsystem's, or the discovery NQN. */
    String connectNqn() {
        return discovery() ? DISCOVERY_NQN : subnqn;
    }

    /** This trid for subsystem {@code nqn} at {@code addr}:{@code port} (an entry of a discovery log). */
    PerfTrid forSubsystem(boolean entryRdma, String addr, int port, String nqn) {
        return new PerfTrid(entryRdma, ipv6, addr, port, nqn, hostnqn, nsid);
    }

    /** "TCP  (addr:127.0.0.1 subnqn:NQN)", spdk_nvme_perf's controller name shape. */
    String name() {
        return String.format(Locale.ROOT, "%s (addr:%s subnqn:%s)", rdma ? "RDMA" : "TCP ", traddr, connectNqn());
    }

    /**
     * Parses {@code t} over {@code base} (the values of --address, --port, -n, --hostnqn and --nsid, which
     * a key of {@code t} overrides); IllegalArgumentException with one line naming the bad key.
     */
    static PerfTrid parse(String t, PerfTrid base) {
        boolean rdma = base.rdma;
        boolean ipv6 = base.ipv6;
        String traddr = base.traddr;
        int trsvcid = base.trsvcid;
        String subnqn = null; // a trid without subnqn is a discovery trid, whatever -n says
        String hostnqn = base.hostnqn;
        int nsid = base.nsid;
        for (String kv : t.trim().split("\\s+")) {
            int c = kv.indexOf(':');
            if (c <= 0) {
                throw new IllegalArgumentException("-r: '" + kv + "' is not key:value (e.g. 'trtype:TCP "
                        + "traddr:127.0.0.1 trsvcid:4420 subnqn:NQN')");
            }
            String k = kv.substring(0, c).toLowerCase(Locale.ROOT);
            String v = kv.substring(c + 1);
            switch (k) {
                case "trtype" -> {
                    if (v.equalsIgnoreCase("rdma")) {
                        rdma = true;
                    } else if (v.equalsIgnoreCase("tcp")) {
                        rdma = false;
                    } else {
                        throw new IllegalArgumentException("-r: trtype:" + v
                                + " is not supported (nvme-perf speaks TCP and RDMA)");
                    }
                }
                case "adrfam" -> {
                    if (!v.equalsIgnoreCase("ipv4") && !v.equalsIgnoreCase("ipv6")) {
                        throw new IllegalArgumentException("-r: adrfam:" + v + " must be IPv4 or IPv6");
                    }
                    ipv6 = v.equalsIgnoreCase("ipv6");
                }
                case "traddr" -> traddr = v;
                case "trsvcid" -> {
                    try {
                        trsvcid = Integer.parseInt(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("-r: trsvcid:" + v + " is not a port number");
                    }
                    if (trsvcid < 1 || trsvcid > 65535) {
                        throw new IllegalArgumentException("-r: trsvcid:" + v + " is not a TCP port 1..65535");
                    }
                }
                case "subnqn" -> subnqn = v;
                case "hostnqn" -> hostnqn = v;
                case "ns" -> {
                    try {
                        nsid = Integer.parseUnsignedInt(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("-r: ns:" + v + " is not a namespace id");
                    }
                    if (nsid == 0 || nsid == -1) {
                        throw new IllegalArgumentException("-r: ns:" + v + " is not a namespace id 1..4294967294");
                    }
                }
                default -> throw new IllegalArgumentException("-r: unknown key '" + k
                        + "' (trtype, adrfam, traddr, trsvcid, subnqn, hostnqn, ns)");
            }
        }
        PerfTrid r = new PerfTrid(rdma, ipv6, traddr, trsvcid, subnqn, hostnqn, nsid);
        r.check("-r");
        return r;
    }

    /** Checks what the transport needs; IllegalArgumentException naming {@code flag}. */
    void check(String flag) {
        if (rdma && ipv6) {
            throw new IllegalArgumentException(flag + ": adrfam:IPv6 is not supported with trtype:RDMA (IPv4 only)");
        }
        if (rdma && !isIpv4Literal(traddr)) {
            throw new IllegalArgumentException(flag + ": traddr:" + traddr
                    + " must be an IPv4 address with trtype:RDMA");
        }
    }

    /** True for a dotted-quad IPv4 literal (no name lookup: rdma_cm is given the address as is). */
    static boolean isIpv4Literal(String a) {
        String[] p = a.split("\\.", -1);
        if (p.length != 4) {
            return false;
        }
        for (String x : p) {
            if (x.isEmpty() || x.length() > 3 || !x.chars().allMatch(Character::isDigit) || Integer.parseInt(x) > 255) {
                return false;
            }
        }
        return true;
    }
}
