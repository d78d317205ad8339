package io.jdoca.nvmf.auth;

import java.nio.ByteBuffer;

/**
 * AUTH_Negotiate, host to controller, the first message of a transaction (NVMe Base 2.0 §8.13.4.1; Base 2.1
 * Figure 731 "AUTH_Negotiate message format", Figure 739 "Authentication protocol descriptor for
 * DH-HMAC-CHAP"; Linux {@code struct nvmf_auth_dhchap_negotiate_data}):
 *
 * <pre>
 * bytes 5:0   common header, AUTH_Type 00h, AUTH_Id 00h
 * byte  6     SC_C: secure channel concatenation, 00h none (Base 2.1 Figure 732)
 * byte  7     NAPD: number of authentication protocol descriptors
 * bytes 8+    NAPD descriptors of 64 bytes each; a DH-HMAC-CHAP one is:
 *               byte  0      AuthID, 01h DH-HMAC-CHAP (Base 2.1 Figure 733)
 *               byte  1      reserved
 *               byte  2      HALEN: hash identifiers listed (1 to 30)
 *               byte  3      DHLEN: DH group identifiers listed (1 to 30)
 *               bytes 33:4   HashIDList, one byte each, then zero padding
 *               bytes 63:34  DHgIDList, one byte each, then zero padding
 * </pre>
 *
 * <p>Total reading, flyweight and thread rules as {@link AuthMessage}.
 */
public final class AuthNegotiate extends AuthMessage {
    /** Bytes before the descriptors. */
    public static final int FIXED_LENGTH = 8;
    /** Bytes of one authentication protocol descriptor. */
    public static final int DESCRIPTOR_LENGTH = 64;
    /** Most identifiers one list of a DH-HMAC-CHAP descriptor holds. */
    public static final int MAX_IDS = 30;

    static final int OFF_SC_C = 6;
    static final int OFF_NAPD = 7;
    static final int DESC_AUTH_ID = 0;
    static final int DESC_HALEN = 2;
    static final int DESC_DHLEN = 3;
    static final int DESC_HASH_IDS = 4;
    static final int DESC_DH_IDS = 34;

    /** A flyweight over {@code message}'s remaining bytes. */
    public AuthNegotiate wrap(ByteBuffer message) {
        wrapBuffer(message);
        return this;
    }

    /** A flyweight over all of {@code message}. */
    public AuthNegotiate wrap(byte[] message) {
        return wrap(ByteBuffer.wrap(message));
    }

    /**
     * Structure only: the header, the length exactly 8 + 64 x NAPD (as SPDK requires; Linux's host sends
     * exactly that), and HALEN, DHLEN at most 30 in the first DH-HMAC-CHAP descriptor. Whether a descriptor,
     * hash and group are acceptable is the controller's policy, not structure.
     */
    @Override
    public AuthFailureReason check() {
        AuthFailureReason header = checkHeader(TYPE_COMMON, ID_NEGOTIATE, FIXED_LENGTH);
        if (header != null) {
            return header;
        }
        if (length() != FIXED_LENGTH + DESCRIPTOR_LENGTH * descriptorCount()) {
            return AuthFailureReason.INCORRECT_PAYLOAD;
        }
        int d = dhchapDescriptor();
        if (d >= 0 && (hashIdCount(d) > MAX_IDS || dhGroupIdCount(d) > MAX_IDS)) {
            return AuthFailureReason.INCORRECT_PAYLOAD;
        }
        return null;
    }

    /** Byte 6: SC_C. */
    public int secureChannel() {
        return u8(OFF_SC_C);
    }

    /** Byte 7: NAPD. */
    public int descriptorCount() {
        return u8(OFF_NAPD);
    }

    /** AuthID of descriptor {@code i} (0-based). */
    public int descriptorAuthId(int i) {
        return u8(descriptor(i) + DESC_AUTH_ID);
    }

    /** Index of the first DH-HMAC-CHAP descriptor (AuthID 01h) present in the message, -1 without one. */
    public int dhchapDescriptor() {
        for (int i = 0; i < descriptorCount(); i++) {
            if (descriptor(i) + DESCRIPTOR_LENGTH <= length() && descriptorAuthId(i) == TYPE_DHCHAP) {
                return i;
            }
        }
        return -1;
    }

    /** HALEN of descriptor {@code i}. */
    public int hashIdCount(int i) {
        return u8(descriptor(i) + DESC_HALEN);
    }

    /** DHLEN of descriptor {@code i}. */
    public int dhGroupIdCount(int i) {
        return u8(descriptor(i) + DESC_DHLEN);
    }

    /** The HashIDList of descriptor {@code i}: its first min(HALEN, 30) identifiers. */
    public int[] hashIds(int i) {
        return ids(descriptor(i) + DESC_HASH_IDS, hashIdCount(i));
    }

    /** The DHgIDList of descriptor {@code i}: its first min(DHLEN, 30) identifiers. */
    public int[] dhGroupIds(int i) {
        return ids(descriptor(i) + DESC_DH_IDS, dhGroupIdCount(i));
    }

    /**
     * An AUTH_Negotiate with one DH-HMAC-CHAP descriptor listing {@code hashIds} and {@code dhGroupIds} (what a
     * host sends; at most 30 of each).
     */
    public static byte[] encode(int transactionId, int secureChannel, int[] hashIds, int[] dhGroupIds) {
        if (hashIds.length > MAX_IDS || dhGroupIds.length > MAX_IDS) {
            throw new IllegalArgumentException("at most 30 identifiers per list");
        }
        ByteBuffer out = newMessage(FIXED_LENGTH + DESCRIPTOR_LENGTH);
        putHeader(out, TYPE_COMMON, ID_NEGOTIATE, transactionId);
        out.put(OFF_SC_C, (byte) secureChannel).put(OFF_NAPD, (byte) 1);
        out.put(FIXED_LENGTH + DESC_AUTH_ID, (byte) TYPE_DHCHAP);
        out.put(FIXED_LENGTH + DESC_HALEN, (byte) hashIds.length);
        out.put(FIXED_LENGTH + DESC_DHLEN, (byte) dhGroupIds.length);
        for (int k = 0; k < hashIds.length; k++) {
            out.put(FIXED_LENGTH + DESC_HASH_IDS + k, (byte) hashIds[k]);
        }
        for (int k = 0; k < dhGroupIds.length; k++) {
            out.put(FIXED_LENGTH + DESC_DH_IDS + k, (byte) dhGroupIds[k]);
        }
        return out.array();
    }

    private static int descriptor(int i) {
        return FIXED_LENGTH + DESCRIPTOR_LENGTH * Math.max(0, i);
    }

    private int[] ids(int off, int count) {
        int[] out = new int[Math.min(count, MAX_IDS)];
        for (int k = 0; k < out.length; k++) {
            out[k] = u8(off + k);
        }
        return out;
    }
}
