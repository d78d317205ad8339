package io.jdoca.sta.nvmf.tls;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.zip.CRC32;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A configured NVMe/TCP TLS PSK in the PSK interchange format {@code NVMeTLSkey-1:HH:<base64(key || crc32 LE)>:}
 * (NVMe/TCP Transport Specification 1.0 §3.6.1.5; TP 8011/8018), and the derivations of §3.6.1.3 that turn it
 * into the TLS 1.3 external PSK and its identity, as SPDK ({@code lib/nvme/nvme_tcp.c},
 * {@code nvme_tcp_derive_retained_psk} / {@code _tls_psk}) and Linux ({@code nvme_auth_derive_tls_psk}) do:
 * <ul>
 *   <li>HH {@code 00}: the configured PSK is the retained PSK; {@code 01}/{@code 02}: retained PSK =
 *       HKDF-Expand-Label(HKDF-Extract(0, configured), "HostNQN", host NQN, L) with SHA-256/SHA-384
 *       (L: the configured PSK's length, 32 or 48 bytes).</li>
 *   <li>The cipher suite follows the key's length (32: TLS_AES_128_GCM_SHA256, hash id 01; 48:
 *       TLS_AES_256_GCM_SHA384, hash id 02), as SPDK picks it.</li>
 *   <li>TLS PSK = HKDF-Expand-Label(HKDF-Extract(0, retained), "nvme-tls-psk", context, hash length),
 *       context: identity version 0 ({@code NVMe0R0x <hostnqn> <subnqn>}, SPDK's) the identity itself;
 *       version 1 ({@code NVMe1R0x <hostnqn> <subnqn> <digest>}, TP 8018, Linux's) {@code "0x <digest>"},
 *       digest = Base64(HMAC(retained, hostnqn " " subnqn " NVMe-over-Fabrics")).</li>
 * </ul>
 * HKDF-Expand-Label is RFC 8446 §7.1's (length-prefixed "tls13 " label and context), not the
 * length-less form early libnvme used (nvme-cli's {@code --compat}).
 *
 * <p>No method's message, exception or {@link #toString} carries key material.
 *
 * <p>Immutable; thread-safe.
 */
public final class NvmeTlsKey {
    /** HH 00: no transformation (the configured PSK is the retained PSK). */
    public static final int HASH_NONE = 0;
    /** HH 01 / identity hash 01: SHA-256. */
    public static final int HASH_SHA256 = 1;
    /** HH 02 / identity hash 02: SHA-384. */
    public static final int HASH_SHA384 = 2;
    private static final String PREFIX = "NVMeTLSkey-1:";

    private final int hash;
    private final byte[] key;

    private NvmeTlsKey(int hash, byte[] key) {
        this.hash = hash;
        this.key = key;
    }

    /** A TLS PSK and the identity it goes with (what a TLS stack is given). */
    public record Derived(NvmeTlsIdentity identity, byte[] psk) {
        @Override
        public String toString() {
            return "Derived[" + identity.hostNqn() + " -> " + identity.subNqn() + ", " + psk.length + " bytes]";
        }
    }

    /**
     * Parses the interchange format (surrounding white space ignored); IllegalArgumentException naming what
     * is wrong, never the key.
     */
    public static NvmeTlsKey parse(String text) {
        String s = text == null ? "" : text.strip();
        if (!s.startsWith(PREFIX) || !s.endsWith(":") || s.length() < PREFIX.length() + 4) {
            throw new IllegalArgumentException("not a PSK in the interchange format (NVMeTLSkey-1:HH:<base64>:)");
        }
        String hh = s.substring(PREFIX.length(), PREFIX.length() + 2);
        if (s.charAt(PREFIX.length() + 2) != ':') {
            throw new IllegalArgumentException("the PSK's hash field must be two digits (00, 01 or 02)");
        }
        int h = switch (hh) {
            case "00" -> HASH_NONE;
            case "01" -> HASH_SHA256;
            case "02" -> HASH_SHA384;
            default -> throw new IllegalArgumentException("unknown PSK hash " + hh + " (00, 01 or 02)");
        };
        String b64 = s.substring(PREFIX.length() + 3, s.length() - 1);
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(b64);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the PSK is not valid Base64");
        }
        int len = raw.length - 4;
        boolean sizeOk = h == HASH_SHA256 ? len == 32 : h == HASH_SHA384 ? len == 48 : len == 32 || len == 48;
        if (!sizeOk) {
            Arrays.fill(raw, (byte) 0);
            throw new IllegalArgumentException("the PSK must be 32 or 48 bytes (hash 01: 32, 02: 48), not "
                    + Math.max(0, len));
        }
        byte[] k = Arrays.copyOf(raw, len);
        int crc = (raw[len] & 0xff) | (raw[len + 1] & 0xff) << 8 | (raw[len + 2] & 0xff) << 16
                | (raw[len + 3] & 0xff) << 24;
        Arrays.fill(raw, (byte) 0);
        if (crc != crc32(k)) {
            Arrays.fill(k, (byte) 0);
            throw new IllegalArgumentException("the PSK's CRC-32 does not match (a mistyped key?)");
        }
        return new NvmeTlsKey(h, k);
    }

    /** A key of {@code bytes} (32 or 48) with hash {@code hash} (HH), e.g. from {@link #generate}. */
    public static NvmeTlsKey of(int hash, byte[] bytes) {
        if (bytes.length != 32 && bytes.length != 48 || hash < HASH_NONE || hash > HASH_SHA384
                || (hash == HASH_SHA256 && bytes.length != 32) || (hash == HASH_SHA384 && bytes.length != 48)) {
            throw new IllegalArgumentException("a PSK is 32 bytes (hash 00 or 01) or 48 bytes (hash 00 or 02)");
        }
        return new NvmeTlsKey(hash, bytes.clone());
    }

    /** A fresh random key (nvme-cli's {@code gen-tls-key}): 32 bytes for hash 00/01, 48 for 02. */
    public static NvmeTlsKey generate(int hash, SecureRandom rnd) {
        byte[] b = new byte[hash == HASH_SHA384 ? 48 : 32];
        rnd.nextBytes(b);
        return of(hash, b);
    }

    /** The interchange format of this key (for key files; secret). */
    public String interchange() {
        byte[] raw = Arrays.copyOf(key, key.length + 4);
        int crc = crc32(key);
        for (int i = 0; i < 4; i++) {
            raw[key.length + i] = (byte) (crc >>> (8 * i));
        }
        String s = PREFIX + "0" + hash + ":" + Base64.getEncoder().encodeToString(raw) + ":";
        Arrays.fill(raw, (byte) 0);
        return s;
    }

    /** HH: the retained PSK's hash (00 none). */
    public int hash() {
        return hash;
    }

    /** The configured PSK's length: 32 or 48. */
    public int length() {
        return key.length;
    }

    /** The identity hash (and cipher suite) this key goes with: 01 (SHA-256, AES-128) for 32 bytes, else 02. */
    public int cipherHash() {
        return key.length == 32 ? HASH_SHA256 : HASH_SHA384;
    }

    /** The retained PSK for {@code hostNqn} (§3.6.1.3 step 1; a copy of the key for HH 00). */
    public byte[] retained(String hostNqn) {
        if (hash == HASH_NONE) {
            return key.clone();
        }
        byte[] prk = TlsHkdf.extract(hash, key);
        byte[] r = TlsHkdf.expandLabel(hash, prk, "HostNQN", ascii(hostNqn), key.length);
        Arrays.fill(prk, (byte) 0);
        return r;
    }

    /** The PSK digest of TP 8018: Base64(HMAC_hash(retained, hostnqn " " subnqn " NVMe-over-Fabrics")). */
    public static String digest(int hash, byte[] retained, String hostNqn, String subNqn) {
        try {
            String alg = hash == HASH_SHA384 ? "HmacSHA384" : "HmacSHA256";
            Mac mac = Mac.getInstance(alg);
            mac.init(new SecretKeySpec(retained, alg));
            return Base64.getEncoder().encodeToString(mac.doFinal(ascii(hostNqn + " " + subNqn
                    + " NVMe-over-Fabrics")));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC unavailable: " + e.getClass().getSimpleName(), e);
        }
    }

    /**
     * The identity of version {@code version} (0: SPDK's, 1: with the digest), from {@code hostNqn} to
     * {@code subNqn}.
     */
    public NvmeTlsIdentity identity(int version, String hostNqn, String subNqn) {
        String d = null;
        if (version == 1) {
            byte[] r = retained(hostNqn);
            d = digest(cipherHash(), r, hostNqn, subNqn);
            Arrays.fill(r, (byte) 0);
        }
        return new NvmeTlsIdentity(version, cipherHash(), hostNqn, subNqn, d);
    }

    /** The TLS PSK and identity (version 0 or 1) a host uses to reach {@code subNqn}. */
    public Derived derive(int version, String hostNqn, String subNqn) {
        NvmeTlsIdentity id = identity(version, hostNqn, subNqn);
        return new Derived(id, tlsPsk(id));
    }

    /**
     * The TLS PSK for {@code id} (the target's side: the identity a host offered), or null when the identity
     * cannot belong to this key (its hash is not this key's cipher hash, or its digest differs).
     */
    public byte[] tlsPsk(NvmeTlsIdentity id) {
        if (id.hash() != cipherHash()) {
            return null;
        }
        byte[] r = retained(id.hostNqn());
        try {
            String context;
            if (id.version() == 1) {
                String d = digest(id.hash(), r, id.hostNqn(), id.subNqn());
                if (!java.security.MessageDigest.isEqual(ascii(d), ascii(id.digest()))) {
                    return null;
                }
                context = String.format("%02d %s", id.hash(), d);
            } else {
                context = id.text();
            }
            byte[] prk = TlsHkdf.extract(id.hash(), r);
            byte[] psk = TlsHkdf.expandLabel(id.hash(), prk, "nvme-tls-psk", ascii(context),
                    TlsHkdf.hashLength(id.hash()));
            Arrays.fill(prk, (byte) 0);
            return psk;
        } finally {
            Arrays.fill(r, (byte) 0);
        }
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static int crc32(byte[] b) {
        CRC32 c = new CRC32();
        c.update(b);
        return (int) c.getValue();
    }

    @Override
    public String toString() {
        return "NvmeTlsKey[hash " + String.format("%02d", hash) + ", " + key.length + " bytes]";
    }
}
