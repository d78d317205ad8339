package io.jdoca.storage.wire;

import io.jdoca.core.DocaError;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Encodes and decodes control frames exactly as DOCA 3.3's {@code storage_common/control_channel.cpp}
 * and {@code buffer_utils.hpp} do (reference §1): a u32 big-endian {@code wire_size} (the body length,
 * not counting itself), then the body: u32 message_type, u32 message_id, u32 correlation_id, payload.
 * Strings and blobs are a u32 BE length and raw bytes without terminator. All integers big-endian.
 *
 * <p>Stateless; any thread. Control path (allocates).
 */
public final class ControlCodec {
    /** Size of the {@code wire_size} prefix (reference §1 "Frame"). */
    public static final int FRAME_HEADER_SIZE = 4;
    /** Body offset of u32 message_type (reference §1 "Body"). */
    public static final int OFF_TYPE = 0;
    /** Body offset of u32 message_id (reference §1 "Body"). */
    public static final int OFF_MESSAGE_ID = 4;
    /** Body offset of u32 correlation_id (reference §1 "Body"). */
    public static final int OFF_CORRELATION_ID = 8;
    /** Body offset of the payload (reference §1 "Body"). */
    public static final int OFF_PAYLOAD = 12;
    /** Body size without payload. */
    public static final int BODY_HEADER_SIZE = 12;
    /**
     * Largest body jdoca accepts. DOCA has no limit; one is needed so a corrupt length cannot make a
     * receiver buffer gigabytes. Export blobs are a few hundred bytes.
     */
    public static final int MAX_BODY_SIZE = 1 << 20;

    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private ControlCodec() {
    }

    /** The whole frame: wire_size prefix plus body. */
    public static byte[] encode(ControlMessage m) {
        int payloadSize = payloadSize(m.payload());
        int body = BODY_HEADER_SIZE + payloadSize;
        byte[] out = new byte[FRAME_HEADER_SIZE + body];
        MemorySegment s = MemorySegment.ofArray(out);
        s.set(U32, 0, body);
        MemorySegment b = s.asSlice(FRAME_HEADER_SIZE);
        b.set(U32, OFF_TYPE, m.type().code());
        b.set(U32, OFF_MESSAGE_ID, m.messageId());
        b.set(U32, OFF_CORRELATION_ID, m.correlationId());
        writePayload(b, OFF_PAYLOAD, m.payload());
        return out;
    }

    private static int payloadSize(ControlPayload p) {
        return switch (p) {
            case ControlPayload.Empty e -> 0;
            case ControlPayload.ErrorResponse e -> 4 + 4 + e.message().getBytes(StandardCharsets.UTF_8).length;
            case ControlPayload.StorageInfo i -> 8 + 4;
            case ControlPayload.InitStorage i -> 4 + 4 + 4 + i.mmapExport().length;
            case ControlPayload.RdmaConnection r -> 4 + 4 + 4 + r.connectionDetails().length;
        };
    }

    private static void writePayload(MemorySegment b, long off, ControlPayload p) {
        switch (p) {
            case ControlPayload.Empty e -> {
            }
            case ControlPayload.ErrorResponse e -> {
                // error_response: u32 doca_error_t, string message (reference §1 table, type 0)
                b.set(U32, off, e.errorCode());
                writeBlob(b, off + 4, e.message().getBytes(StandardCharsets.UTF_8));
            }
            case ControlPayload.StorageInfo i -> {
                // query_storage_response: u64 total_size, u32 block_size (reference §1 table, type 2)
                b.set(U64, off, i.totalSize());
                b.set(U32, off + 8, i.blockSize());
            }
            case ControlPayload.InitStorage i -> {
                // init_storage_request: u32 transaction_count, u32 core_count, blob (reference §1 table, type 3)
                b.set(U32, off, i.transactionCount());
                b.set(U32, off + 4, i.coreCount());
                writeBlob(b, off + 8, i.mmapExport());
            }
            case ControlPayload.RdmaConnection r -> {
                // create_rdma_connection_*: u32 context_idx, u32 role, blob (reference §1 table, types 5/6)
                b.set(U32, off, r.contextIdx());
                b.set(U32, off + 4, r.role().code());
                writeBlob(b, off + 8, r.connectionDetails());
            }
        }
    }

    private static void writeBlob(MemorySegment b, long off, byte[] bytes) {
        b.set(U32, off, bytes.length);
        MemorySegment.copy(bytes, 0, b, ValueLayout.JAVA_BYTE, off + 4, bytes.length);
    }

    /**
     * Decodes one body ({@code len} bytes at {@code off}, without the wire_size prefix). Throws
     * {@link ControlProtocolException} (never anything else) for an unknown type, a short or
     * over-long payload, or a string/blob length that runs past the body.
     */
    public static ControlMessage decodeBody(byte[] buf, int off, int len) {
        if (buf == null || off < 0 || len < 0 || off > buf.length - len) {
            throw new ControlProtocolException(DocaError.INVALID_VALUE, "body range outside the buffer", false, 0, 0,
                    false);
        }
        if (len < BODY_HEADER_SIZE) {
            throw new ControlProtocolException(DocaError.INVALID_VALUE,
                    "control message body of " + len + " bytes is shorter than its 12-byte header", false, 0, 0, false);
        }
        MemorySegment b = MemorySegment.ofArray(buf).asSlice(off, len);
        int typeCode = b.get(U32, OFF_TYPE);
        int messageId = b.get(U32, OFF_MESSAGE_ID);
        int correlationId = b.get(U32, OFF_CORRELATION_ID);
        ControlMessageType type = ControlMessageType.fromCode(typeCode);
        if (type == null) {
            throw new ControlProtocolException(DocaError.INVALID_VALUE,
                    "unknown control message type " + Integer.toUnsignedString(typeCode), true, messageId,
                            correlationId, false);
        }
        Reader r = new Reader(b, OFF_PAYLOAD, type, messageId, correlationId);
        ControlPayload p = switch (type) {
            case ERROR_RESPONSE -> new ControlPayload.ErrorResponse(r.u32(), new String(r.blob(),
                    StandardCharsets.UTF_8));
            case QUERY_STORAGE_RESPONSE -> new ControlPayload.StorageInfo(r.u64(), r.u32());
            case INIT_STORAGE_REQUEST -> new ControlPayload.InitStorage(r.u32(), r.u32(), r.blob());
            case CREATE_RDMA_CONNECTION_REQUEST, CREATE_RDMA_CONNECTION_RESPONSE -> {
                int idx = r.u32();
                int roleCode = r.u32();
                ConnectionRole role = ConnectionRole.fromCode(roleCode);
                if (role == null) {
                    throw r.bad("unknown connection role " + Integer.toUnsignedString(roleCode));
                }
                yield new ControlPayload.RdmaConnection(idx, role, r.blob());
            }
            default -> ControlPayload.Empty.INSTANCE;
        };
        if (r.pos != len) {
            throw r.bad((len - r.pos) + " unexpected trailing bytes");
        }
        return new ControlMessage(type, messageId, correlationId, p);
    }

    /** Reads the body header fields if at least 12 bytes are present; for error replies to undecodable frames. */
    static int peekU32(byte[] buf, int off) {
        return MemorySegment.ofArray(buf).get(U32, off);
    }

    private static final class Reader {
        final MemorySegment b;
        final ControlMessageType type;
        final int messageId;
        final int correlationId;
        long pos;

        Reader(MemorySegment b, long pos, ControlMessageType type, int messageId, int correlationId) {
            this.b = b;
            this.pos = pos;
            this.type = type;
            this.messageId = messageId;
            this.correlationId = correlationId;
        }

        void need(long n) {
            if (n > b.byteSize() - pos) {
                throw bad("truncated payload: needs " + n + " more bytes at offset " + pos + ", body has "
                        + b.byteSize());
            }
        }

        int u32() {
            need(4);
            int v = b.get(U32, pos);
            pos += 4;
            return v;
        }

        long u64() {
            need(8);
            long v = b.get(U64, pos);
            pos += 8;
            return v;
        }

        byte[] blob() {
            long n = Integer.toUnsignedLong(u32());
            need(n);
            byte[] out = new byte[(int) n];
            MemorySegment.copy(b, ValueLayout.JAVA_BYTE, pos, out, 0, (int) n);
            pos += n;
            return out;
        }

        ControlProtocolException bad(String why) {
            return new ControlProtocolException(DocaError.INVALID_VALUE, "malformed " + type.wireName() + ": " + why,
                    true,
                    messageId, correlationId, false);
        }
    }
}
