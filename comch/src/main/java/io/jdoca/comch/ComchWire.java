package io.jdoca.comch;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * jdoca's own framing on the rendezvous socket (DOCA's Comch wire is not public): u32 BE length of
 * what follows, u8 kind, payload. Control path only.
 *
 * <pre>
 *   HELLO             client → server, first: u8 purpose (0 connect, 1 probe), its {@link ComchIdentity}
 *   ACCEPT            server → client: connection admitted; the server's {@link ComchIdentity}
 *   REJECT            server → client: string reason (the server already has a client)
 *   IDENTITY          server → prober: the server's {@link ComchIdentity}, then the server closes
 *   MSG               either way: one control message
 *   CONSUMER_NEW      either way: u32 id, u32 slots, u32 slot stride, u32 max msg, u64 ring bytes,
 *                     u64 cap0, u64 cap1 (the ring's capability), string ring region id ({@code <pid>-<seq>},
 *                     a region of the user's private shared-memory directory; never a path)
 *   CONSUMER_EXPIRED  either way: u32 id
 *   BYE               either way: orderly disconnect
 * </pre>
 */
final class ComchWire {
    /** Grant id of consumer {@code id}'s ring in its region's grant table (non-zero). */
    static long ringGrant(int id) {
        return 0x434F4D4300000000L | Integer.toUnsignedLong(id);
    }

    static final byte ACCEPT = 1;
    static final byte REJECT = 2;
    static final byte MSG = 3;
    static final byte CONSUMER_NEW = 4;
    static final byte CONSUMER_EXPIRED = 5;
    static final byte BYE = 6;
    static final byte HELLO = 7;
    static final byte IDENTITY = 8;
    /** HELLO purposes. */
    static final byte PURPOSE_CONNECT = 0;
    static final byte PURPOSE_PROBE = 1;

    /** Largest frame accepted (a consumer announcement with a long path; messages ≤ MAX_MSG_SIZE). */
    static final int MAX_FRAME = 64 * 1024;

    private ComchWire() {
    }

    static ByteBuffer frame(byte kind, int payloadLen) {
        ByteBuffer b = ByteBuffer.allocate(5 + payloadLen);
        b.putInt(1 + payloadLen).put(kind);
        return b;
    }

    static ByteBuffer consumerNew(int id, int slots, int stride, int maxMsg, long ringBytes, long cap0, long cap1,
            String region) {
        byte[] p = region.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = frame(CONSUMER_NEW, 4 * 4 + 8 + 16 + 4 + p.length);
        b.putInt(id).putInt(slots).putInt(stride).putInt(maxMsg).putLong(ringBytes).putLong(cap0).putLong(cap1)
                .putInt(p.length).put(p);
        return b.flip();
    }

    static ByteBuffer consumerExpired(int id) {
        return frame(CONSUMER_EXPIRED, 4).putInt(id).flip();
    }

    static ByteBuffer simple(byte kind) {
        return frame(kind, 0).flip();
    }

    static ByteBuffer hello(byte purpose, ComchIdentity self) {
        ByteBuffer b = frame(HELLO, 1 + self.encodedSize()).put(purpose);
        self.encode(b);
        return b.flip();
    }

    /** ACCEPT or IDENTITY with the server's identity. */
    static ByteBuffer withIdentity(byte kind, ComchIdentity self) {
        ByteBuffer b = frame(kind, self.encodedSize());
        self.encode(b);
        return b.flip();
    }

    static ByteBuffer reject(String reason) {
        byte[] r = reason.getBytes(StandardCharsets.UTF_8);
        return frame(REJECT, 4 + r.length).putInt(r.length).put(r).flip();
    }
}
