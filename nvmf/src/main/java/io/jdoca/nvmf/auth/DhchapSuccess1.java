package io.jdoca.nvmf.auth;

import java.nio.ByteBuffer;

/**
 * DH-HMAC-CHAP_Success1, controller to host: the host is authenticated, and for bidirectional authentication
 * the controller's response R2 (NVMe Base 2.0 §8.13.5.5; Base 2.1 Figure 744 "DH-HMAC-CHAP_Success1 message
 * format"; Linux {@code struct nvmf_auth_dhchap_success1_data}):
 *
 * <pre>
 * bytes 5:0       common header, AUTH_Type 01h, AUTH_Id 03h
 * byte  6         HL: hash length
 * byte  7         reserved
 * byte  8         RVALID: 01h when RVAL carries R2, 00h otherwise
 * bytes 15:9      reserved
 * bytes 15+HL:16  RVAL: response R2 if RVALID is 01h, cleared to 0h otherwise (always present)
 * </pre>
 *
 * <p>Total reading, flyweight and thread rules as {@link AuthMessage}.
 */
public final class DhchapSuccess1 extends AuthMessage {
    /** Bytes before the response value. */
    public static final int FIXED_LENGTH = 16;

    static final int OFF_HL = 6;
    static final int OFF_RVALID = 8;

    /** A flyweight over {@code message}'s remaining bytes. */
    public DhchapSuccess1 wrap(ByteBuffer message) {
        wrapBuffer(message);
        return this;
    }

    /** A flyweight over all of {@code message}. */
    public DhchapSuccess1 wrap(byte[] message) {
        return wrap(ByteBuffer.wrap(message));
    }

    /** The header, the length exactly 16 + HL, RVALID 00h or 01h. */
    @Override
    public AuthFailureReason check() {
        AuthFailureReason header = checkHeader(TYPE_DHCHAP, ID_SUCCESS1, FIXED_LENGTH);
        if (header != null) {
            return header;
        }
        if (length() != FIXED_LENGTH + hashLength()) {
            return AuthFailureReason.INCORRECT_PAYLOAD;
        }
        return u8(OFF_RVALID) > 1 ? AuthFailureReason.INCORRECT_PAYLOAD : null;
    }

    /** Byte 6: HL. */
    public int hashLength() {
        return u8(OFF_HL);
    }

    /** Byte 8 is 01h: RVAL carries R2. */
    public boolean responseValid() {
        return u8(OFF_RVALID) == 1;
    }

    /** RVAL: response R2, HL bytes (zeros unless {@link #responseValid()}). */
    public byte[] response() {
        return bytes(FIXED_LENGTH, hashLength());
    }

    /** A Success1 for a hash of length {@code hashLength}; {@code response} R2, or {@code null} without one. */
    public static byte[] encode(int transactionId, int hashLength, byte[] response) {
        if (response != null && response.length != hashLength) {
            throw new IllegalArgumentException("response of the wrong length");
        }
        ByteBuffer out = newMessage(FIXED_LENGTH + hashLength);
        putHeader(out, TYPE_DHCHAP, ID_SUCCESS1, transactionId);
        out.put(OFF_HL, (byte) hashLength);
        if (response != null) {
            out.put(OFF_RVALID, (byte) 1).put(FIXED_LENGTH, response);
        }
        return out.array();
    }
}
