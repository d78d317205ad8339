package io.jdoca.nvmf.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.Mac;

/**
 * The DH-HMAC-CHAP computations (NVMe Base 2.0 §8.13.5.4 and §8.13.5.5; Base 2.1 §8.3.4.5.4, Figure 743),
 * byte for byte as Linux's {@code nvmet_auth_host_hash}/{@code nvmet_auth_ctrl_hash}
 * (drivers/nvme/target/auth.c) and the host side in drivers/nvme/host/auth.c compute them:
 *
 * <pre>
 * Ks  = H(g^xy mod p)                      session key; g^xy mod p as long as p, big-endian
 * Ca  = C                                  with the NULL DH group
 * Ca  = HMAC(Ks, C)                        with a DH group (nvme_auth_augmented_challenge)
 * R1  = HMAC(Kh, Ca1 || S1 || T_ID || SC_C || "HostHost"   || NQNh || 00h || NQNc)
 * R2  = HMAC(Kc, Ca2 || S2 || T_ID || SC_C || "Controller" || NQNc || 00h || NQNh)
 * </pre>
 *
 * where H and HMAC use the hash the Challenge selected, Kh and Kc are the transformed keys ({@link
 * DhchapKey#transform}), S is 4 bytes and T_ID 2 bytes little-endian, SC_C the one byte of the AUTH_Negotiate,
 * and the NQNs are UTF-8 without their terminators. Also the generated PSK of §8.13.5.9 and its digest (TP
 * 8018), for a later secure channel.
 *
 * <p>Stateless; safe from any thread.
 */
public final class DhchapCrypto {
    private static final byte[] HOST_LABEL = "HostHost".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CONTROLLER_LABEL = "Controller".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PSK_DIGEST_SUFFIX = " NVMe-over-Fabrics".getBytes(StandardCharsets.US_ASCII);

    private DhchapCrypto() {
    }

    /** Ks = H(g^xy mod p), from the shared value as {@link DhchapDhGroup#sharedSecret} returns it. */
    public static byte[] sessionKey(DhchapHash hash, byte[] sharedSecret) {
        return hash.hash(sharedSecret);
    }

    /** Ca = HMAC(Ks, C); with the NULL group (no session key, {@code null}) Ca = C. */
    public static byte[] augmentedChallenge(DhchapHash hash, byte[] sessionKey, byte[] challenge) {
        return sessionKey == null ? challenge.clone() : hash.hmac(sessionKey, challenge);
    }

    /** R1, the host's response, with the host's transformed key Kh. */
    public static byte[] hostResponse(DhchapHash hash, byte[] hostKey, byte[] augmentedChallenge, int sequence,
            int transactionId, int secureChannel, String hostNqn, String subsystemNqn) {
        return response(hash, hostKey, augmentedChallenge, sequence, transactionId, secureChannel, HOST_LABEL,
                hostNqn, subsystemNqn);
    }

    /** R2, the controller's response, with the controller's transformed key Kc. */
    public static byte[] controllerResponse(DhchapHash hash, byte[] controllerKey, byte[] augmentedChallenge,
            int sequence, int transactionId, int secureChannel, String subsystemNqn, String hostNqn) {
        return response(hash, controllerKey, augmentedChallenge, sequence, transactionId, secureChannel,
                CONTROLLER_LABEL, subsystemNqn, hostNqn);
    }

    /**
     * The generated PSK of NVMe Base §8.13.5.9 (2.1: §8.3.4.5.9): HMAC(Ks, C1 || C2), as Linux's {@code
     * nvme_auth_generate_psk}.
     */
    public static byte[] generatedPsk(DhchapHash hash, byte[] sessionKey, byte[] c1, byte[] c2) {
        return hash.hmac(sessionKey, c1, c2);
    }

    /**
     * The PSK digest of TP 8018 §3.6.1.3: Base64(HMAC(PSK, NQNh || " " || NQNc || " " || "NVMe-over-Fabrics")),
     * as Linux's {@code nvme_auth_generate_digest}.
     */
    public static String pskDigest(DhchapHash hash, byte[] psk, String hostNqn, String subsystemNqn) {
        byte[] d = hash.hmac(psk, hostNqn.getBytes(StandardCharsets.UTF_8), new byte[] {' '},
                subsystemNqn.getBytes(StandardCharsets.UTF_8), PSK_DIGEST_SUFFIX);
        return Base64.getEncoder().encodeToString(d);
    }

    /** Equality of two responses in time independent of where they differ ({@link MessageDigest#isEqual}). */
    public static boolean responsesMatch(byte[] expected, byte[] received) {
        return MessageDigest.isEqual(expected, received);
    }

    private static byte[] response(DhchapHash hash, byte[] key, byte[] augmentedChallenge, int sequence,
            int transactionId, int secureChannel, byte[] label, String firstNqn, String secondNqn) {
        Mac mac = hash.mac(key);
        mac.update(augmentedChallenge);
        mac.update(new byte[] {(byte) sequence, (byte) (sequence >>> 8), (byte) (sequence >>> 16),
            (byte) (sequence >>> 24), (byte) transactionId, (byte) (transactionId >>> 8), (byte) secureChannel});
        mac.update(label);
        mac.update(firstNqn.getBytes(StandardCharsets.UTF_8));
        mac.update((byte) 0);
        mac.update(secondNqn.getBytes(StandardCharsets.UTF_8));
        return mac.doFinal();
    }
}
