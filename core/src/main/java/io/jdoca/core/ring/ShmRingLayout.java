package io.jdoca.core.ring;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The one layout of jdoca's shared-memory rings (the RDMA shm transport's inbound rings, Comch's consumer rings): a
 * file one side creates and formats and its peer maps; one producer and one consumer, each counter written by one
 * side only and on its own cache line, fixed-size slots after a 320-byte header. Both ends run on one host, so
 * values are in native byte order. What a slot holds, and the fields at {@link #OFF_KIND}, belong to the ring's kind
 * (the magic names it): see {@code io.jdoca.rdma.wire.ShmRingDescriptor} and {@code io.jdoca.comch.ComchRing}.
 *
 * <pre>
 *   off  size  field                                   writer
 *     0    4   magic: the ring's kind                  creator
 *     8    4   slot count (a power of two)             creator
 *    12    4   slot size in bytes (the stride)         creator
 *    64    8   produced: slots published               producer (release)
 *   128    8   consumed: slots consumed                consumer (release)
 *   192..319   the kind's own fields
 *   320        slot 0, slot 1, ...
 * </pre>
 * Counters are monotonically increasing slot numbers; slot {@code n} is at {@link #slot(long, int, int)}. Producer:
 * check space ({@code produced - consumed < slots}), fill the slot, {@link #publish}. Consumer: {@link #produced}
 * (acquire), read the slot, {@link #consume}.
 *
 * <p>Threads: static helpers; each counter is written by its one side only. Allocation-free.
 */
public final class ShmRingLayout {
    public static final long OFF_MAGIC = 0;
    public static final long OFF_SLOT_COUNT = 8;
    public static final long OFF_SLOT_SIZE = 12;
    public static final long OFF_PRODUCED = 64;
    public static final long OFF_CONSUMED = 128;
    /** Start of the 128 bytes a ring's kind uses for its own fields. */
    public static final long OFF_KIND = 192;
    public static final long SLOTS = 320;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private ShmRingLayout() {
    }

    /** Bytes of a ring of {@code slotCount} slots of {@code slotSize} bytes. */
    public static long regionSize(int slotCount, int slotSize) {
        return SLOTS + (long) slotCount * slotSize;
    }

    /** Offset of slot number {@code n} ({@code mask} = slot count - 1). */
    public static long slot(long n, int mask, int slotSize) {
        return SLOTS + (n & mask) * (long) slotSize;
    }

    /** Creator, before announcing the ring: zeroes the header and writes magic and geometry. */
    public static void format(MemorySegment ring, int magic, int slotCount, int slotSize) {
        ring.asSlice(0, SLOTS).fill((byte) 0);
        ring.set(ValueLayout.JAVA_INT, OFF_MAGIC, magic);
        ring.set(ValueLayout.JAVA_INT, OFF_SLOT_COUNT, slotCount);
        ring.set(ValueLayout.JAVA_INT, OFF_SLOT_SIZE, slotSize);
    }

    /** True if a mapped ring is of kind {@code magic} with the announced geometry. */
    public static boolean matches(MemorySegment ring, int magic, int slotCount, int slotSize) {
        return ring.byteSize() >= regionSize(slotCount, slotSize) && ring.get(ValueLayout.JAVA_INT, OFF_MAGIC) == magic
                && ring.get(ValueLayout.JAVA_INT, OFF_SLOT_COUNT) == slotCount
                && ring.get(ValueLayout.JAVA_INT, OFF_SLOT_SIZE) == slotSize;
    }

    /** Slots published so far (acquire: the slots below it are filled). */
    public static long produced(MemorySegment ring) {
        return (long) LONG.getAcquire(ring, OFF_PRODUCED);
    }

    /** Producer: slots below {@code produced} are filled (release). */
    public static void publish(MemorySegment ring, long produced) {
        LONG.setRelease(ring, OFF_PRODUCED, produced);
    }

    /** Slots consumed so far (acquire: the slots below it may be refilled). */
    public static long consumed(MemorySegment ring) {
        return (long) LONG.getAcquire(ring, OFF_CONSUMED);
    }

    /** Consumer: slots below {@code consumed} are done with (release). */
    public static void consume(MemorySegment ring, long consumed) {
        LONG.setRelease(ring, OFF_CONSUMED, consumed);
    }
}
