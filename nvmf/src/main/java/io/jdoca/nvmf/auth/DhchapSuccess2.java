package io.jdoca.nvmf.auth;

import java.nio.ByteBuffer;

/**
 * DH-HMAC-CHAP_Success2, host to controller: the host has authenticated the controller, ending a bidirectional
 * transaction (NVMe Base 2.0 §8.13.5.6; Base 2.1 Figure 745 "DH-HMAC-CHAP_Success2 message format"; Linux
 * {@code struct nvmf_auth_dhchap_success2_data}):
 *
 * <pre>
 * bytes 5:0   common header, AUTH_Type 01h, AUTH_Id 04h
 * bytes 15:6  reserved
 * </pre>
 *
 * <p>Total reading, flyweight and thread rules as {@link AuthMessage}.
 */
public final class DhchapSuccess2 extends AuthMessage {
    /** The message's length. */
    public static final int LENGTH = 16;

    /** A flyweight over {@code message}'s remaining bytes. */
    public DhchapSuccess2 wrap(ByteBuffer message) {
        wrapBuffer(message);
        return this;
    }

    /** A flyweight over all of {@code message}. */
    public DhchapSuccess2 wrap(byte[] message) {
        return wrap(ByteBuffer.wrap(message));
    }

    /** The header and the length exactly 16 (as SPDK). */
    @Override
    public AuthFailureReason check() {
        AuthFailureReason header = checkHeader(TYPE_DHCHAP, ID_SUCCESS2, LENGTH);
        if (header != null) {
            return header;
        }
        return length() == LENGTH ? null : AuthFailureReason.INCORRECT_PAYLOAD;
    }

    /** A Success2 (what a host sends). */
    public static byte[] encode(int transactionId) {
        ByteBuffer out = newMessage(LENGTH);
        putHeader(out, TYPE_DHCHAP, ID_SUCCESS2, transactionId);
        return out.array();
    }
}
