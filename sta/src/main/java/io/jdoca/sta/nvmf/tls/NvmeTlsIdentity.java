package io.jdoca.sta.nvmf.tls;

/**
 * An NVMe/TCP TLS PSK identity (NVMe/TCP Transport Specification §3.6.1.3, TP 8018):
 * {@code NVMe<version>R<hash> <hostnqn> <subnqn>} (version 0, SPDK's) or
 * {@code NVMe1R<hash> <hostnqn> <subnqn> <PSK digest>} (version 1, Linux's); R: a retained PSK, hash 01
 * (SHA-256) or 02 (SHA-384). Not secret (the digest is an HMAC of the key, not the key), but only the NQNs
 * belong in a log line.
 *
 * <p>Immutable; any thread.
 */
public record NvmeTlsIdentity(int version, int hash, String hostNqn, String subNqn, String digest) {
    /** The identity as it goes on the wire (ASCII). */
    public String text() {
        String base = "NVMe" + version + "R0" + hash + " " + hostNqn + " " + subNqn;
        return version == 1 ? base + " " + digest : base;
    }

    /** Parses {@code s}; null when it is not an NVMe retained-PSK identity of version 0 or 1. */
    public static NvmeTlsIdentity parse(String s) {
        if (s == null || s.length() < 12 || !s.startsWith("NVMe") || s.charAt(5) != 'R' || s.charAt(8) != ' ') {
            return null;
        }
        int version = s.charAt(4) - '0';
        String hh = s.substring(6, 8);
        int hash = "01".equals(hh) ? NvmeTlsKey.HASH_SHA256 : "02".equals(hh) ? NvmeTlsKey.HASH_SHA384 : -1;
        String[] parts = s.substring(9).split(" ", -1);
        if (hash < 0 || (version != 0 && version != 1) || parts.length != 2 + version) {
            return null;
        }
        for (String p : parts) {
            if (p.isEmpty()) {
                return null;
            }
        }
        return new NvmeTlsIdentity(version, hash, parts[0], parts[1], version == 1 ? parts[2] : null);
    }

    @Override
    public String toString() {
        return "NVMe" + version + "R0" + hash + " " + hostNqn + " " + subNqn;
    }
}
