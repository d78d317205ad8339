package io.jdoca.nvmf.auth;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import javax.crypto.KeyAgreement;
import javax.crypto.interfaces.DHPublicKey;
import javax.crypto.spec.DHParameterSpec;
import javax.crypto.spec.DHPublicKeySpec;

/**
 * The DH-HMAC-CHAP Diffie-Hellman groups (NVMe Base 2.0 §8.13.5.2; Base 2.1 Figure 741 "DH-HMAC-CHAP
 * Diffie-Hellman group identifiers"): 00h NULL (no exchange: DH-HMAC-CHAP reduces to HMAC-CHAP) and 01h-05h
 * the RFC 7919 groups ffdhe2048 to ffdhe8192, generator 2. Key pairs and agreement use the JDK's DH
 * {@link KeyPairGenerator} and {@link KeyAgreement} with the RFC 7919 moduli ({@link FfdhePrimes}).
 *
 * <p>On the wire a DH value (g^x mod p) is big-endian and exactly as long as p, leading zeros kept, as
 * Linux's kpp "ffdheNNNN(dh)" writes it; the shared value g^xy mod p is the same length before it is hashed
 * into the session key.
 *
 * <p>Immutable; safe from any thread (each call makes its own JCA objects).
 */
public enum DhchapDhGroup {
    /** 00h: no Diffie-Hellman exchange; no DH values, no session key. */
    NULL(0, null, 0),
    /** 01h: ffdhe2048. The spec lets a policy prohibit it (CNSA); leave it out of the allowed list to do so. */
    FFDHE2048(1, FfdhePrimes.FFDHE2048, 225),
    /** 02h: ffdhe3072, which every implementation supports (the spec's "shall"). */
    FFDHE3072(2, FfdhePrimes.FFDHE3072, 275),
    /** 03h: ffdhe4096. */
    FFDHE4096(3, FfdhePrimes.FFDHE4096, 325),
    /** 04h: ffdhe6144. */
    FFDHE6144(4, FfdhePrimes.FFDHE6144, 375),
    /** 05h: ffdhe8192. */
    FFDHE8192(5, FfdhePrimes.FFDHE8192, 400);

    private static final BigInteger GENERATOR = BigInteger.TWO;

    private final int id;
    private final BigInteger prime;
    /** Private exponent bits: RFC 7919 §5.2's minimum for a short exponent, i.e. twice the group's strength. */
    private final int exponentBits;

    DhchapDhGroup(int id, BigInteger prime, int exponentBits) {
        this.id = id;
        this.prime = prime;
        this.exponentBits = exponentBits;
    }

    /** The DHgID of the wire messages. */
    public int id() {
        return id;
    }

    /** The group for identifier {@code id}, or {@code null} for a reserved, vendor-specific or out-of-range one. */
    public static DhchapDhGroup ofId(int id) {
        for (DhchapDhGroup g : values()) {
            if (g.id == id) {
                return g;
            }
        }
        return null;
    }

    /** The modulus p; {@code null} for {@link #NULL}. */
    public BigInteger prime() {
        return prime;
    }

    /** Bytes of a DH value of this group (DHVLEN): the length of p, 0 for {@link #NULL}. */
    public int valueLength() {
        return prime == null ? 0 : (prime.bitLength() + 7) / 8;
    }

    /** A fresh ephemeral key pair (x, g^x mod p). */
    public KeyPair generateKeyPair(SecureRandom random) {
        requireExchange();
        try {
            KeyPairGenerator gen = KeyPairGenerator.getInstance("DH");
            gen.initialize(new DHParameterSpec(prime, GENERATOR, exponentBits), random);
            return gen.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("DH key pair for " + this + " could not be generated", e);
        }
    }

    /** The DH value of {@code pair} as the wire carries it: g^x mod p, big-endian, {@link #valueLength()} bytes. */
    public byte[] publicValue(KeyPair pair) {
        requireExchange();
        return fixedLength(((DHPublicKey) pair.getPublic()).getY(), valueLength());
    }

    /**
     * g^xy mod p from our private key and the peer's DH value, {@link #valueLength()} bytes; {@code null}
     * when the peer's value is not a usable element of the group (wrong length, or outside 2..p-2: 0, 1 and
     * p-1 would fix the shared value whatever our exponent).
     */
    public byte[] sharedSecret(PrivateKey mine, byte[] peerValue) {
        requireExchange();
        if (peerValue.length != valueLength()) {
            return null;
        }
        BigInteger y = new BigInteger(1, peerValue);
        if (y.compareTo(BigInteger.ONE) <= 0 || y.compareTo(prime.subtract(BigInteger.ONE)) >= 0) {
            return null;
        }
        try {
            PublicKey peer = KeyFactory.getInstance("DH").generatePublic(new DHPublicKeySpec(y, prime, GENERATOR));
            KeyAgreement agreement = KeyAgreement.getInstance("DH");
            agreement.init(mine);
            agreement.doPhase(peer, true);
            return leftPad(agreement.generateSecret(), valueLength());
        } catch (GeneralSecurityException e) {
            // The JDK's own validation refused the value: the same answer as the range check above.
            return null;
        }
    }

    @Override
    public String toString() {
        return this == NULL ? "null" : "ffdhe" + prime.bitLength();
    }

    private void requireExchange() {
        if (prime == null) {
            throw new IllegalStateException("the NULL DH group has no exchange");
        }
    }

    /** {@code v} big-endian in exactly {@code length} bytes (v < 2^(8 length)). */
    static byte[] fixedLength(BigInteger v, int length) {
        return leftPad(v.toByteArray(), length);
    }

    /** {@code b} without a sign byte and left-padded with zeros to {@code length}. */
    private static byte[] leftPad(byte[] b, int length) {
        if (b.length == length) {
            return b;
        }
        byte[] out = new byte[length];
        int copy = Math.min(b.length, length);
        System.arraycopy(b, b.length - copy, out, length - copy, copy);
        return out;
    }
}
