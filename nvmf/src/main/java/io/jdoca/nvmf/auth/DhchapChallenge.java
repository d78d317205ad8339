package io.jdoca.nvmf.auth;

import java.nio.ByteBuffer;

/**
 * DH-HMAC-CHAP_Challenge, controller to host (NVMe Base 2.0 §8.13.5.3; Base 2.1 Figure 742
 * "DH-HMAC-CHAP_Challenge message format"; Linux {@code struct nvmf_auth_dhchap_challenge_data}):
 *
 * <pre>
 * bytes 5:0              common header, AUTH_Type 01h, AUTH_Id 01h
 * byte  6                HL: hash length of the selected hash
 * byte  7                reserved
 * byte  8                HashID: the selected hash function
 * byte  9                DHgID: the selected DH group, 00h for none
 * bytes 11:10            DHVLEN: bytes of the DH value, 0 without one
 * bytes 15:12            SEQNUM: sequence number S1
 * bytes 15+HL:16         CVAL: challenge C1
 * bytes 15+HL+DHVLEN:16+HL  DHV: the controller's DH value g^x mod p (absent when DHVLEN is 0)
 * </pre>
 *
 * <p>Total reading, flyweight and thread rules as {@link AuthMessage}.
 */
public final class DhchapChallenge extends AuthMessage {
    /** Bytes before the challenge value. */
    public static final int FIXED_LENGTH = 16;

    static final int OFF_HL = 6;
    static final int OFF_HASH_ID = 8;
    static final int OFF_DH_GROUP = 9;
    static final int OFF_DHVLEN = 10;
    static final int OFF_SEQNUM = 12;

    /** A flyweight over {@code message}'s remaining bytes. */
    public DhchapChallenge wrap(ByteBuffer message) {
        wrapBuffer(message);
        return this;
    }

    /** A flyweight over all of {@code message}. */
    public DhchapChallenge wrap(byte[] message) {
        return wrap(ByteBuffer.wrap(message));
    }

    /** The header, and the length exactly 16 + HL + DHVLEN. */
    @Override
    public AuthFailureReason check() {
        AuthFailureReason header = checkHeader(TYPE_DHCHAP, ID_CHALLENGE, FIXED_LENGTH);
        if (header != null) {
            return header;
        }
        return length() == FIXED_LENGTH + hashLength() + dhValueLength() ? null : AuthFailureReason.INCORRECT_PAYLOAD;
    }

    /** Byte 6: HL. */
    public int hashLength() {
        return u8(OFF_HL);
    }

    /** Byte 8: HashID. */
    public int hashId() {
        return u8(OFF_HASH_ID);
    }

    /** Byte 9: DHgID. */
    public int dhGroupId() {
        return u8(OFF_DH_GROUP);
    }

    /** Bytes 11:10: DHVLEN. */
    public int dhValueLength() {
        return u16(OFF_DHVLEN);
    }

    /** Bytes 15:12: SEQNUM (S1), as an unsigned 32-bit bit pattern. */
    public int sequenceNumber() {
        return u32(OFF_SEQNUM);
    }

    /** CVAL: challenge C1, HL bytes. */
    public byte[] challenge() {
        return bytes(FIXED_LENGTH, hashLength());
    }

    /** DHV: the controller's DH value, DHVLEN bytes (empty without one). */
    public byte[] dhValue() {
        return bytes(FIXED_LENGTH + hashLength(), dhValueLength());
    }

    /** A Challenge for transaction {@code transactionId}; {@code dhValue} is empty for the NULL group. */
    public static byte[] encode(int transactionId, DhchapHash hash, DhchapDhGroup group, int sequenceNumber,
            byte[] challenge, byte[] dhValue) {
        if (challenge.length != hash.length() || dhValue.length != group.valueLength()) {
            throw new IllegalArgumentException("challenge or DH value of the wrong length");
        }
        ByteBuffer out = newMessage(FIXED_LENGTH + challenge.length + dhValue.length);
        putHeader(out, TYPE_DHCHAP, ID_CHALLENGE, transactionId);
        out.put(OFF_HL, (byte) hash.length()).put(OFF_HASH_ID, (byte) hash.id()).put(OFF_DH_GROUP, (byte) group.id());
        out.putShort(OFF_DHVLEN, (short) dhValue.length).putInt(OFF_SEQNUM, sequenceNumber);
        out.put(FIXED_LENGTH, challenge).put(FIXED_LENGTH + challenge.length, dhValue);
        return out.array();
    }
}
