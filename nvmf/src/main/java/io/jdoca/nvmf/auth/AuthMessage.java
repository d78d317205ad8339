package io.jdoca.nvmf.auth;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A flyweight over one NVMe in-band authentication message, the data of an Authentication Send (host to
 * controller) or Authentication Receive (controller to host) command (NVMe Base 2.0 §8.13.4 and §8.13.5; Base
 * 2.1 §8.3.4.4 and §8.3.4.5). Every message starts with the common header, little-endian like the rest:
 *
 * <pre>
 * byte 0     AUTH_Type: 00h common messages (AUTH_Negotiate, AUTH_Failure1/2), 01h DH-HMAC-CHAP
 * byte 1     AUTH_Id:   00h Negotiate, 01h Challenge, 02h Reply, 03h Success1, 04h Success2,
 *                       F0h Failure2, F1h Failure1
 * bytes 3:2  reserved
 * bytes 5:4  T_ID, the transaction identifier the host chose in its AUTH_Negotiate
 * </pre>
 *
 * <p>Reading is total: every accessor answers for any length and any bytes, reading 0 past the end of the
 * message, and never throws or reads outside the wrapped bytes. {@link #check()} says whether the bytes are a
 * well-formed message of the subclass's kind (the controller checks the rest against its state).
 *
 * <p>A flyweight: {@code wrap} points it at other bytes without allocating message state; it reads the
 * wrapped buffer's bytes in place (position to limit when wrapped), so they must not change while in use. Not
 * thread-safe: one thread uses one instance at a time.
 */
public abstract sealed class AuthMessage
        permits AuthNegotiate, DhchapChallenge, DhchapReply, DhchapSuccess1, DhchapSuccess2, AuthFailure {
    /** AUTH_Type 00h: the common messages. */
    public static final int TYPE_COMMON = 0x00;
    /** AUTH_Type 01h: DH-HMAC-CHAP messages (also the AuthID of the DH-HMAC-CHAP protocol descriptor). */
    public static final int TYPE_DHCHAP = 0x01;
    /** AUTH_Id 00h, common: AUTH_Negotiate. */
    public static final int ID_NEGOTIATE = 0x00;
    /** AUTH_Id 01h, DH-HMAC-CHAP: DH-HMAC-CHAP_Challenge. */
    public static final int ID_CHALLENGE = 0x01;
    /** AUTH_Id 02h, DH-HMAC-CHAP: DH-HMAC-CHAP_Reply. */
    public static final int ID_REPLY = 0x02;
    /** AUTH_Id 03h, DH-HMAC-CHAP: DH-HMAC-CHAP_Success1. */
    public static final int ID_SUCCESS1 = 0x03;
    /** AUTH_Id 04h, DH-HMAC-CHAP: DH-HMAC-CHAP_Success2. */
    public static final int ID_SUCCESS2 = 0x04;
    /** AUTH_Id F0h, common: AUTH_Failure2 (host to controller). */
    public static final int ID_FAILURE2 = 0xf0;
    /** AUTH_Id F1h, common: AUTH_Failure1 (controller to host). */
    public static final int ID_FAILURE1 = 0xf1;
    /** Bytes of the common header. */
    public static final int HEADER_LENGTH = 6;
    /**
     * SECP of the Authentication Send/Receive commands carrying these messages: E9h, "NVMe" security
     * protocol; SPSP0 and SPSP1 are both 01h (Linux and SPDK refuse anything else with Invalid Field).
     */
    public static final int SECP_NVME = 0xe9;

    static final int OFF_TYPE = 0;
    static final int OFF_ID = 1;
    static final int OFF_TID = 4;

    /** Little-endian view of exactly the message's bytes (index 0 is byte 0 of the message). */
    private ByteBuffer buf = ByteBuffer.allocate(0);

    AuthMessage() {
    }

    /** Points this flyweight at the bytes from {@code message}'s position to its limit (not consumed). */
    AuthMessage wrapBuffer(ByteBuffer message) {
        buf = message.slice().order(ByteOrder.LITTLE_ENDIAN);
        return this;
    }

    /** The message's length in bytes (the command's TL or the data returned). */
    public final int length() {
        return buf.limit();
    }

    /** Byte 0: AUTH_Type (0 when the message is empty). */
    public final int authType() {
        return u8(OFF_TYPE);
    }

    /** Byte 1: AUTH_Id. */
    public final int authId() {
        return u8(OFF_ID);
    }

    /** Bytes 5:4: T_ID. */
    public final int transactionId() {
        return u16(OFF_TID);
    }

    /**
     * Whether these bytes are a well-formed message of this kind: {@code null} when they are, else the reason
     * code explanation the controller answers ({@link AuthFailureReason#INCORRECT_PROTOCOL_MESSAGE} for
     * another AUTH_Type/AUTH_Id, {@link AuthFailureReason#INCORRECT_PAYLOAD} for wrong lengths or values).
     */
    public abstract AuthFailureReason check();

    /** {@code null} when the header has this type and id and the message has at least {@code min} bytes. */
    final AuthFailureReason checkHeader(int type, int id, int min) {
        if (length() < HEADER_LENGTH) {
            return AuthFailureReason.INCORRECT_PAYLOAD;
        }
        if (authType() != type || authId() != id) {
            return AuthFailureReason.INCORRECT_PROTOCOL_MESSAGE;
        }
        return length() < min ? AuthFailureReason.INCORRECT_PAYLOAD : null;
    }

    /** The unsigned byte at {@code off}, 0 past the end. */
    final int u8(int off) {
        return off >= 0 && off < buf.limit() ? buf.get(off) & 0xff : 0;
    }

    /** The little-endian 16-bit value at {@code off}, bytes past the end read as 0. */
    final int u16(int off) {
        return u8(off) | u8(off + 1) << 8;
    }

    /** The little-endian 32-bit value at {@code off} as an int (bit pattern), bytes past the end read as 0. */
    final int u32(int off) {
        return u16(off) | u16(off + 2) << 16;
    }

    /** {@code len} bytes from {@code off} (a copy), zeros for any part past the end; empty for len <= 0. */
    final byte[] bytes(int off, int len) {
        byte[] out = new byte[Math.max(0, len)];
        int from = Math.max(0, off);
        int n = Math.min(out.length, buf.limit() - from);
        if (n > 0 && from == off) {
            buf.get(from, out, 0, n);
        }
        return out;
    }

    /** Writes the common header into {@code out}. */
    static void putHeader(ByteBuffer out, int type, int id, int tid) {
        out.put(OFF_TYPE, (byte) type).put(OFF_ID, (byte) id).putShort(OFF_TID, (short) tid);
    }

    /** A zeroed little-endian buffer of {@code len} bytes for an encoder. */
    static ByteBuffer newMessage(int len) {
        return ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN);
    }
}
