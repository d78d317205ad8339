package io.jdoca.nvmf.auth;

import java.nio.ByteBuffer;

/**
 * DH-HMAC-CHAP_Reply, host to controller (NVMe Base 2.0 §8.13.5.4; Base 2.1 Figure 743 "DH-HMAC-CHAP_Reply
 * message format"; Linux {@code struct nvmf_auth_dhchap_reply_data}):
 *
 * <pre>
 * bytes 5:0                  common header, AUTH_Type 01h, AUTH_Id 02h
 * byte  6                    HL: hash length
 * byte  7                    reserved
 * byte  8                    CVALID: 01h when CVAL carries a challenge C2 (bidirectional), 00h otherwise
 * byte  9                    reserved
 * bytes 11:10                DHVLEN: bytes of the DH value, 0 without one
 * bytes 15:12                SEQNUM: sequence number S2 (0 when no C2 is carried)
 * bytes 15+HL:16             RVAL: response R1
 * bytes 15+2*HL:16+HL        CVAL: challenge C2 if CVALID is 01h, cleared to 0h otherwise (always present)
 * bytes 15+2*HL+DHVLEN:16+2*HL  DHV: the host's DH value g^y mod p (absent when DHVLEN is 0)
 * </pre>
 *
 * <p>Total reading, flyweight and thread rules as {@link AuthMessage}.
 */
public final class DhchapReply extends AuthMessage {
    /** Bytes before the response value. */
    public static final int FIXED_LENGTH = 16;

    static final int OFF_HL = 6;
    static final int OFF_CVALID = 8;
    static final int OFF_DHVLEN = 10;
    static final int OFF_SEQNUM = 12;

    /** A flyweight over {@code message}'s remaining bytes. */
    public DhchapReply wrap(ByteBuffer message) {
        wrapBuffer(message);
        return this;
    }

    /** A flyweight over all of {@code message}. */
    public DhchapReply wrap(byte[] message) {
        return wrap(ByteBuffer.wrap(message));
    }

    /**
     * The header, the length exactly 16 + 2 x HL + DHVLEN (as SPDK; Linux only checks it fits), and CVALID 00h
     * or 01h (the others are reserved). HL against the selected hash is the controller's check.
     */
    @Override
    public AuthFailureReason check() {
        AuthFailureReason header = checkHeader(TYPE_DHCHAP, ID_REPLY, FIXED_LENGTH);
        if (header != null) {
            return header;
        }
        if (length() != FIXED_LENGTH + 2 * hashLength() + dhValueLength()) {
            return AuthFailureReason.INCORRECT_PAYLOAD;
        }
        return challengeValidByte() > 1 ? AuthFailureReason.INCORRECT_PAYLOAD : null;
    }

    /** Byte 6: HL. */
    public int hashLength() {
        return u8(OFF_HL);
    }

    /** Byte 8, raw: CVALID. */
    public int challengeValidByte() {
        return u8(OFF_CVALID);
    }

    /** CVALID is 01h: the host asks for bidirectional authentication with challenge C2. */
    public boolean challengeValid() {
        return challengeValidByte() == 1;
    }

    /** Bytes 11:10: DHVLEN. */
    public int dhValueLength() {
        return u16(OFF_DHVLEN);
    }

    /** Bytes 15:12: SEQNUM (S2), as an unsigned 32-bit bit pattern. */
    public int sequenceNumber() {
        return u32(OFF_SEQNUM);
    }

    /** RVAL: response R1, HL bytes. */
    public byte[] response() {
        return bytes(FIXED_LENGTH, hashLength());
    }

    /** CVAL: challenge C2, HL bytes (zeros unless {@link #challengeValid()}). */
    public byte[] challenge() {
        return bytes(FIXED_LENGTH + hashLength(), hashLength());
    }

    /** DHV: the host's DH value, DHVLEN bytes (empty without one). */
    public byte[] dhValue() {
        return bytes(FIXED_LENGTH + 2 * hashLength(), dhValueLength());
    }

    /**
     * A Reply (what a host sends): {@code challenge} {@code null} for unidirectional authentication (CVALID 00h,
     * SEQNUM 0, CVAL zeros), {@code dhValue} empty for the NULL group.
     */
    public static byte[] encode(int transactionId, byte[] response, byte[] challenge, int sequenceNumber,
            byte[] dhValue) {
        int hl = response.length;
        if (challenge != null && challenge.length != hl) {
            throw new IllegalArgumentException("challenge and response of different lengths");
        }
        ByteBuffer out = newMessage(FIXED_LENGTH + 2 * hl + dhValue.length);
        putHeader(out, TYPE_DHCHAP, ID_REPLY, transactionId);
        out.put(OFF_HL, (byte) hl).put(OFF_CVALID, (byte) (challenge == null ? 0 : 1));
        out.putShort(OFF_DHVLEN, (short) dhValue.length).putInt(OFF_SEQNUM, challenge == null ? 0 : sequenceNumber);
        out.put(FIXED_LENGTH, response);
        if (challenge != null) {
            out.put(FIXED_LENGTH + hl, challenge);
        }
        out.put(FIXED_LENGTH + 2 * hl, dhValue);
        return out.array();
    }
}
