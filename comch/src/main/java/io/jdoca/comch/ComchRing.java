package io.jdoca.comch;

import io.jdoca.core.ring.ShmRingLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The single-producer single-consumer message ring of one consumer, in a shared-memory file the
 * consumer creates and its peer maps: core's shared-memory ring layout ({@link ShmRingLayout}: magic,
 * geometry, the produced and consumed counters on their own cache lines, slots at 320) of kind
 * {@link #MAGIC}, with Comch's fields:
 *
 * <pre>
 *   off  field
 *   192  u64 claim: token of the one producer allowed to write (CAS)      (ShmRingLayout.OFF_KIND)
 *   slot: u32 len @0, u32 imm len @4, imm[32] @8, data @40
 * </pre>
 * Producer: check space, copy, publish with release. Consumer: read the produced counter with acquire,
 * copy out, publish consumed with release. Allocation-free; one thread per side.
 */
final class ComchRing {
    /** 'JDCR': a Comch consumer ring. */
    static final int MAGIC = 0x5243444A;
    static final long OFF_CLAIM = ShmRingLayout.OFF_KIND;
    static final long SLOT_LEN = 0;
    static final long SLOT_IMM_LEN = 4;
    static final long SLOT_IMM = 8;
    static final long SLOT_DATA = 40;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    final MemorySegment seg;
    final int slots;
    final int mask;
    final int stride;
    final int maxMsg;

    ComchRing(MemorySegment seg, int slots, int stride, int maxMsg) {
        this.seg = seg;
        this.slots = slots;
        this.mask = slots - 1;
        this.stride = stride;
        this.maxMsg = maxMsg;
    }

    static int strideFor(int maxMsg) {
        return (int) ((SLOT_DATA + maxMsg + 63) & ~63L);
    }

    static long bytesFor(int slots, int stride) {
        return ShmRingLayout.regionSize(slots, stride);
    }

    /** Formats a fresh ring (consumer side, before announcing it). */
    void format() {
        ShmRingLayout.format(seg, MAGIC, slots, stride);
    }

    /** True if a mapped ring's header agrees with the announced geometry. */
    boolean headerMatches() {
        return ShmRingLayout.matches(seg, MAGIC, slots, stride);
    }

    /** Messages published (the produced counter, acquire). */
    long headAcquire() {
        return ShmRingLayout.produced(seg);
    }

    /** Messages consumed (acquire). */
    long tailAcquire() {
        return ShmRingLayout.consumed(seg);
    }

    /** Claims the ring for producer {@code token}; true if it is (now) ours. */
    boolean claim(long token) {
        long cur = (long) LONG.getAcquire(seg, OFF_CLAIM);
        if (cur == token) {
            return true;
        }
        return cur == 0 && LONG.compareAndSet(seg, OFF_CLAIM, 0L, token);
    }

    void release(long token) {
        LONG.compareAndSet(seg, OFF_CLAIM, token, 0L);
    }

    // ------------------------------------------------------------------ producer side

    /** Space for one more message? (producer's local head passed in.) */
    boolean hasSpace(long head) {
        return head - tailAcquire() < slots;
    }

    /** Copies a message into slot {@code head} and publishes it. Caller checked space and sizes. */
    void publish(long head, MemorySegment src, long srcOff, int len, MemorySegment imm, int immLen) {
        long slot = ShmRingLayout.slot(head, mask, stride);
        seg.set(ValueLayout.JAVA_INT, slot + SLOT_LEN, len);
        seg.set(ValueLayout.JAVA_INT, slot + SLOT_IMM_LEN, immLen);
        if (immLen > 0) {
            MemorySegment.copy(imm, 0, seg, slot + SLOT_IMM, immLen);
        }
        if (len > 0) {
            MemorySegment.copy(src, srcOff, seg, slot + SLOT_DATA, len);
        }
        ShmRingLayout.publish(seg, head + 1);
    }

    // ------------------------------------------------------------------ consumer side

    long slotOffset(long tail) {
        return ShmRingLayout.slot(tail, mask, stride);
    }

    int slotLen(long tail) {
        return seg.get(ValueLayout.JAVA_INT, slotOffset(tail) + SLOT_LEN);
    }

    int slotImmLen(long tail) {
        return seg.get(ValueLayout.JAVA_INT, slotOffset(tail) + SLOT_IMM_LEN);
    }

    void consumed(long tail) {
        ShmRingLayout.consume(seg, tail + 1);
    }
}
