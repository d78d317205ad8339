package io.jdoca.nvmf.auth;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.zip.CRC32;
import javax.security.auth.Destroyable;

/**
 * A DH-HMAC-CHAP secret in the DHHC-1 representation (NVMe Base 2.0 §8.13.5.8 "Secret representation"; Base
 * 2.1 §8.3.4.5.8): {@code DHHC-1:XX:<base64 of secret || CRC-32 of secret, little-endian>:}, where XX is the
 * hash of the key transformation (00 none, 01 SHA-256, 02 SHA-384, 03 SHA-512) and the secret is 32, 48 or 64
 * bytes. This is what nvme-cli's {@code gen-dhchap-key} prints and what Linux's {@code nvme_auth_parse_key}
 * and {@code nvme_auth_extract_key} (drivers/nvme/common/auth.c) read.
 *
 * <p>Parsing follows Linux where the spec leaves room: surrounding white space is ignored (nvmet strips the
 * configfs newline), the trailing colon may be missing, and any secret length goes with any XX (Linux since
 * "nvme-auth: allow mixing of secret and hash lengths", 2023). The CRC-32 is the ordinary one (zlib's, Java's
 * {@link CRC32}). Errors are one line naming the problem, never the input: "DHHC-1 key: CRC mismatch".
 *
 * <p>Note on nvme-cli: {@code gen-dhchap-key --hmac=N --nqn=...} prints the already transformed secret
 * labelled N, and readers transform it once more; both ends do the same, so it interoperates, and this class
 * reads such a key exactly as Linux does.
 *
 * <p>The secret never appears in {@link #toString()} or in an exception. {@link #destroy()} wipes it.
 * Thread rules: immutable until {@link #destroy()}; sharing one key between threads is safe as long as none
 * destroys it while another uses it.
 */
public final class DhchapKey implements Destroyable {
    private static final String PREFIX = "DHHC-1:";
    private static final byte[] TRANSFORM_SUFFIX = "NVMe-over-Fabrics".getBytes(StandardCharsets.US_ASCII);

    /** 00h: the secret is the key; otherwise the transformation's hash. */
    private final DhchapHash transform;
    private final byte[] secret;
    private volatile boolean destroyed;

    private DhchapKey(DhchapHash transform, byte[] secret) {
        this.transform = transform;
        this.secret = secret;
    }

    /**
     * A key from its raw secret (copied) and the transformation to apply (XX: {@code null} for 00h).
     *
     * @throws IllegalArgumentException when the secret is not 32, 48 or 64 bytes
     */
    public static DhchapKey of(DhchapHash transform, byte[] secret) {
        if (!validLength(secret.length)) {
            throw new IllegalArgumentException("DHHC-1 key: the secret has " + secret.length
                    + " bytes, not 32, 48 or 64");
        }
        return new DhchapKey(transform, secret.clone());
    }

    /**
     * Parses a DHHC-1 representation.
     *
     * @throws IllegalArgumentException with a one-line reason that never quotes the input
     */
    public static DhchapKey parse(String representation) {
        String s = representation.strip();
        if (!s.startsWith(PREFIX) || s.length() < PREFIX.length() + 3 || s.charAt(PREFIX.length() + 2) != ':') {
            throw new IllegalArgumentException("DHHC-1 key: not of the form DHHC-1:XX:<base64>:");
        }
        char x0 = s.charAt(PREFIX.length());
        char x1 = s.charAt(PREFIX.length() + 1);
        if (x0 != '0' || x1 < '0' || x1 > '3') {
            throw new IllegalArgumentException("DHHC-1 key: the transformation XX is not 00, 01, 02 or 03");
        }
        DhchapHash transform = DhchapHash.ofId(x1 - '0');
        String body = s.substring(PREFIX.length() + 3);
        if (body.endsWith(":")) {
            body = body.substring(0, body.length() - 1);
        }
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(body);
        } catch (IllegalArgumentException e) {
            // Not chained: the JDK's message quotes the offending character of the secret.
            throw new IllegalArgumentException("DHHC-1 key: the key part is not base64");
        }
        try {
            int len = decoded.length - 4;
            if (!validLength(len)) {
                throw new IllegalArgumentException("DHHC-1 key: " + decoded.length
                        + " bytes decoded, not 36, 52 or 68 (a 32, 48 or 64-byte secret and its CRC-32)");
            }
            CRC32 crc = new CRC32();
            crc.update(decoded, 0, len);
            long stored = (decoded[len] & 0xffL) | (decoded[len + 1] & 0xffL) << 8
                    | (decoded[len + 2] & 0xffL) << 16 | (decoded[len + 3] & 0xffL) << 24;
            if (stored != crc.getValue()) {
                throw new IllegalArgumentException("DHHC-1 key: CRC mismatch");
            }
            return new DhchapKey(transform, Arrays.copyOf(decoded, len));
        } finally {
            Arrays.fill(decoded, (byte) 0);
        }
    }

    /**
     * The DHHC-1 representation, {@code DHHC-1:XX:<base64>:}, as nvme-cli writes it. This string is the
     * secret: store it as such, never log it.
     */
    public String representation() {
        checkLive();
        byte[] withCrc = Arrays.copyOf(secret, secret.length + 4);
        CRC32 crc = new CRC32();
        crc.update(secret);
        long v = crc.getValue();
        for (int i = 0; i < 4; i++) {
            withCrc[secret.length + i] = (byte) (v >>> 8 * i);
        }
        String out = PREFIX + "0" + transformId() + ":"
                + Base64.getEncoder().encodeToString(withCrc) + ":";
        Arrays.fill(withCrc, (byte) 0);
        return out;
    }

    /** XX: 0 for no transformation, else the {@link DhchapHash#id()} of the transformation's hash. */
    public int transformId() {
        return transform == null ? 0 : transform.id();
    }

    /** The transformation's hash, {@code null} when the secret is used as the key (XX = 00). */
    public DhchapHash transformHash() {
        return transform;
    }

    /** Length of the secret in bytes: 32, 48 or 64. */
    public int length() {
        return secret.length;
    }

    /**
     * The key K used as HMAC key of the responses, for the entity named {@code nqn} (the host's key with the
     * host NQN, the controller's with the subsystem NQN): the secret itself for XX = 00, otherwise
     * HMAC(secret, NQN || "NVMe-over-Fabrics") with XX's hash, the NQN without a terminator (NVMe Base 2.0
     * §8.13.5.7, as Linux's {@code nvme_auth_transform_key}). The result is a fresh array: wipe it after use.
     */
    public byte[] transform(String nqn) {
        checkLive();
        if (transform == null) {
            return secret.clone();
        }
        return transform.hmac(secret, nqn.getBytes(StandardCharsets.UTF_8), TRANSFORM_SUFFIX);
    }

    /** Wipes the secret; every later use but {@link #toString()} throws {@link IllegalStateException}. */
    @Override
    public void destroy() {
        destroyed = true;
        Arrays.fill(secret, (byte) 0);
    }

    @Override
    public boolean isDestroyed() {
        return destroyed;
    }

    /** The kind of key, never the secret: {@code DhchapKey[DHHC-1:01, 32 bytes]}. */
    @Override
    public String toString() {
        return "DhchapKey[DHHC-1:0" + transformId() + ", " + secret.length + " bytes"
                + (destroyed ? ", destroyed" : "") + "]";
    }

    private void checkLive() {
        if (destroyed) {
            throw new IllegalStateException("DHHC-1 key: destroyed");
        }
    }

    private static boolean validLength(int len) {
        return len == 32 || len == 48 || len == 64;
    }
}
