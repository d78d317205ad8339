package io.jdoca.storage.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Flyweight over the 64-byte IO message of DOCA 3.3 ({@code storage_common/io_message.hpp},
 * reference §2), big-endian:
 *
 * <pre>
 *   off size field
 *    0   4   type (0 = result, 1 = read, 2 = write)
 *    4   4   padding (3.0/3.1 had correlation_id here; 3.2+ do not)
 *    8   8   user_data (the requester's correlation key)
 *   16   4   result (doca_error_t)
 *   20   4   io_size
 *   24   8   requester_offset (into the requester's exported mmap)
 *   32   8   storage_offset (into the target's memory)
 *   40  24   unused, pads to one cache line
 * </pre>
 * A responder rewrites the request in place: type = result, result = code, every other field echoed.
 *
 * <p>{@link #wrap} re-points the flyweight without allocating. Not thread-safe.
 */
public final class IoMessage {
    /** Size of one IO message (reference §2: {@code alignas(64)}). */
    public static final int SIZE = 64;
    /** reference §2: u32 type @0. */
    public static final long OFF_TYPE = 0;
    /** reference §2: u64 user_data @8. */
    public static final long OFF_USER_DATA = 8;
    /** reference §2: u32 result @16. */
    public static final long OFF_RESULT = 16;
    /** reference §2: u32 io_size @20. */
    public static final long OFF_IO_SIZE = 20;
    /** reference §2: u64 requester_offset @24. */
    public static final long OFF_REQUESTER_OFFSET = 24;
    /** reference §2: u64 storage_offset @32. */
    public static final long OFF_STORAGE_OFFSET = 32;

    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private MemorySegment seg;
    private long base;

    /** Points this flyweight at the 64 bytes at {@code offset} of {@code segment}; returns this. */
    public IoMessage wrap(MemorySegment segment, long offset) {
        this.seg = segment;
        this.base = offset;
        return this;
    }

    public MemorySegment segment() {
        return seg;
    }

    public long offset() {
        return base;
    }

    /** The raw u32 type (may be a value no {@link IoMessageType} has, from a bad peer). */
    public int typeCode() {
        return seg.get(U32, base + OFF_TYPE);
    }

    public IoMessage typeCode(int v) {
        seg.set(U32, base + OFF_TYPE, v);
        return this;
    }

    public IoMessage type(IoMessageType t) {
        return typeCode(t.code());
    }

    public long userData() {
        return seg.get(U64, base + OFF_USER_DATA);
    }

    public IoMessage userData(long v) {
        seg.set(U64, base + OFF_USER_DATA, v);
        return this;
    }

    public int result() {
        return seg.get(U32, base + OFF_RESULT);
    }

    public IoMessage result(int v) {
        seg.set(U32, base + OFF_RESULT, v);
        return this;
    }

    /** io_size as an unsigned value. */
    public long ioSize() {
        return Integer.toUnsignedLong(seg.get(U32, base + OFF_IO_SIZE));
    }

    public IoMessage ioSize(int v) {
        seg.set(U32, base + OFF_IO_SIZE, v);
        return this;
    }

    public long requesterOffset() {
        return seg.get(U64, base + OFF_REQUESTER_OFFSET);
    }

    public IoMessage requesterOffset(long v) {
        seg.set(U64, base + OFF_REQUESTER_OFFSET, v);
        return this;
    }

    public long storageOffset() {
        return seg.get(U64, base + OFF_STORAGE_OFFSET);
    }

    public IoMessage storageOffset(long v) {
        seg.set(U64, base + OFF_STORAGE_OFFSET, v);
        return this;
    }

    /** Zeroes all 64 bytes (padding included, so nothing stale leaks onto the wire). */
    public IoMessage clear() {
        seg.asSlice(base, SIZE).fill((byte) 0);
        return this;
    }

    /** Fills a request in one call. */
    public IoMessage setRequest(IoMessageType type, long userData, int ioSize, long requesterOffset,
            long storageOffset) {
        typeCode(type.code());
        seg.set(U32, base + 4, 0);
        userData(userData);
        result(0);
        ioSize(ioSize);
        requesterOffset(requesterOffset);
        storageOffset(storageOffset);
        return this;
    }

    /** Turns a request into its response in place (reference §2 "Responders reuse the buffer"). */
    public IoMessage setResponse(int resultCode) {
        typeCode(IoMessageType.RESULT.code());
        result(resultCode);
        return this;
    }

    @Override
    public String toString() {
        return "IoMessage{type=" + typeCode() + ", user_data=" + userData() + ", result=" + result() + ", io_size="
                + ioSize() + ", requester_offset=" + requesterOffset() + ", storage_offset=" + storageOffset() + "}";
    }
}
