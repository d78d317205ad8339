package io.jdoca.nvmf.auth;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The DH-HMAC-CHAP hash functions (NVMe Base 2.0 §8.13.5.2; Base 2.1 Figure 740 "DH-HMAC-CHAP hash function
 * identifiers"): identifier 01h SHA-256, 02h SHA-384, 03h SHA-512; 00h, 04h-DFh and FFh are reserved, E0h-FEh
 * vendor specific (none supported here). The same identifiers name the key transformation of a DHHC-1 secret
 * ({@link DhchapKey}), where 00h means "no transformation".
 *
 * <p>Immutable; safe from any thread. {@link #hmac} and {@link #hash} create their JCA objects per call, so
 * they are thread-safe too.
 */
public enum DhchapHash {
    /** SHA-256 (identifier 01h), 32-byte hash: every implementation supports it (the spec's "shall"). */
    SHA_256(1, 32, "SHA-256", "HmacSHA256"),
    /** SHA-384 (identifier 02h), 48-byte hash. */
    SHA_384(2, 48, "SHA-384", "HmacSHA384"),
    /** SHA-512 (identifier 03h), 64-byte hash. */
    SHA_512(3, 64, "SHA-512", "HmacSHA512");

    private final int id;
    private final int length;
    private final String digestName;
    private final String macName;

    DhchapHash(int id, int length, String digestName, String macName) {
        this.id = id;
        this.length = length;
        this.digestName = digestName;
        this.macName = macName;
    }

    /** The HashID of the wire messages and of DHHC-1's XX field. */
    public int id() {
        return id;
    }

    /** The hash length HL in bytes: the length of challenges, responses and the session key. */
    public int length() {
        return length;
    }

    /** The hash for identifier {@code id}, or {@code null} for a reserved, vendor-specific or out-of-range one. */
    public static DhchapHash ofId(int id) {
        for (DhchapHash h : values()) {
            if (h.id == id) {
                return h;
            }
        }
        return null;
    }

    /** H(data). */
    public byte[] hash(byte[] data) {
        try {
            return MessageDigest.getInstance(digestName).digest(data);
        } catch (GeneralSecurityException e) {
            // Every Java SE platform has SHA-256/384/512 (the JCA's required algorithms).
            throw new IllegalStateException(digestName + " is not available", e);
        }
    }

    /**
     * HMAC with this hash, keyed with {@code key}, over the concatenation of {@code parts} (RFC 2104; the
     * spec writes it HMAC(key, a || b || ...)).
     */
    public byte[] hmac(byte[] key, byte[]... parts) {
        Mac mac = mac(key);
        for (byte[] p : parts) {
            mac.update(p);
        }
        return mac.doFinal();
    }

    /** A fresh {@link Mac} keyed with {@code key} (non-empty: every DH-HMAC-CHAP key is at least 32 bytes). */
    Mac mac(byte[] key) {
        try {
            Mac mac = Mac.getInstance(macName);
            mac.init(new SecretKeySpec(key, macName));
            return mac;
        } catch (GeneralSecurityException e) {
            // The message names the algorithm only: the key must never reach an exception.
            throw new IllegalStateException(macName + " could not be initialised");
        }
    }

    @Override
    public String toString() {
        return digestName;
    }
}
