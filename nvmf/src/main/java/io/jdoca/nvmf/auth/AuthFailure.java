package io.jdoca.nvmf.auth;

import java.nio.ByteBuffer;

/**
 * AUTH_Failure1 (controller to host) and AUTH_Failure2 (host to controller), which end a transaction (NVMe
 * Base 2.0 §8.13.4.2; Base 2.1 Figure 734 "AUTH_Failure1 and AUTH_Failure2 message format"; Linux {@code struct
 * nvmf_auth_dhchap_failure_data}):
 *
 * <pre>
 * bytes 5:0  common header, AUTH_Type 00h, AUTH_Id F1h (Failure1) or F0h (Failure2)
 * byte  6    reason code: 01h "Authentication failure" (Base 2.1 Figure 735)
 * byte  7    reason code explanation (Base 2.1 Figure 736, {@link AuthFailureReason})
 * </pre>
 *
 * <p>Total reading, flyweight and thread rules as {@link AuthMessage}.
 */
public final class AuthFailure extends AuthMessage {
    /** The message's length. */
    public static final int LENGTH = 8;

    static final int OFF_REASON = 6;
    static final int OFF_EXPLANATION = 7;

    /** A flyweight over {@code message}'s remaining bytes. */
    public AuthFailure wrap(ByteBuffer message) {
        wrapBuffer(message);
        return this;
    }

    /** A flyweight over all of {@code message}. */
    public AuthFailure wrap(byte[] message) {
        return wrap(ByteBuffer.wrap(message));
    }

    /**
     * As an AUTH_Failure2 (the one a controller receives): the header and the length exactly 8 (as SPDK). The
     * reason code and explanation are not checked: a reserved value still ends the transaction.
     */
    @Override
    public AuthFailureReason check() {
        return check(ID_FAILURE2);
    }

    /** As {@link #check()} for AUTH_Id {@code id} ({@link #ID_FAILURE1} or {@link #ID_FAILURE2}). */
    public AuthFailureReason check(int id) {
        AuthFailureReason header = checkHeader(TYPE_COMMON, id, LENGTH);
        if (header != null) {
            return header;
        }
        return length() == LENGTH ? null : AuthFailureReason.INCORRECT_PAYLOAD;
    }

    /** Byte 6: the reason code. */
    public int reasonCode() {
        return u8(OFF_REASON);
    }

    /** Byte 7: the reason code explanation, raw. */
    public int explanationCode() {
        return u8(OFF_EXPLANATION);
    }

    /** Byte 7 decoded, {@code null} for a reserved or vendor-specific value. */
    public AuthFailureReason explanation() {
        return AuthFailureReason.ofCode(explanationCode());
    }

    /** An AUTH_Failure1 (controller to host) with reason code 01h. */
    public static byte[] encodeFailure1(int transactionId, AuthFailureReason reason) {
        return encode(ID_FAILURE1, transactionId, reason);
    }

    /** An AUTH_Failure2 (host to controller) with reason code 01h. */
    public static byte[] encodeFailure2(int transactionId, AuthFailureReason reason) {
        return encode(ID_FAILURE2, transactionId, reason);
    }

    private static byte[] encode(int id, int transactionId, AuthFailureReason reason) {
        ByteBuffer out = newMessage(LENGTH);
        putHeader(out, TYPE_COMMON, id, transactionId);
        out.put(OFF_REASON, (byte) AuthFailureReason.REASON_CODE_FAILURE).put(OFF_EXPLANATION, (byte) reason.code());
        return out.array();
    }
}
