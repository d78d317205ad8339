package io.jdoca.comch;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The single-producer single-consumer message ring of one consumer, in a shared-memory file the
 * consumer creates and its peer maps. Native byte order (both ends on one host).
 *
 * <pre>
 *   off  field
 *     0  u64 head: messages published (producer writes, release)       own cache line
 *    64  u64 tail: messages consumed (consumer writes, release)          own cache line
 *   128  u64 claim: token of the one producer allowed to write (CAS)
 *   136  u32 slots (power of two), 140 u32 slot stride
 *   192  slots; each: u32 len @0, u32 imm len @4, imm[32] @8, data @40
 * </pre>
 * Producer: check space, copy, publish head with release. Consumer: read head with acquire, copy
 * out, publish tail with release. Allocation-free; one thread per side.
 */
final class ComchRing {
    static final long OFF_HEAD = 0;
    static final long OFF_TAIL = 64;
    static final long OFF_CLAIM = 128;
    static final long OFF_SLOTS_N = 136;
    static final long OFF_STRIDE = 140;
    static final long SLOTS_BASE = 192;
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
        return SLOTS_BASE + (long) slots * stride;
    }

    /** Formats a fresh ring (consumer side, before announcing it). */
    void format() {
        seg.asSlice(0, SLOTS_BASE).fill((byte) 0);
        seg.set(ValueLayout.JAVA_INT, OFF_SLOTS_N, slots);
        seg.set(ValueLayout.JAVA_INT, OFF_STRIDE, stride);
    }

    /** True if a mapped ring's header agrees with the announced geometry. */
    boolean headerMatches() {
        return seg.get(ValueLayout.JAVA_INT, OFF_SLOTS_N) == slots && seg.get(ValueLayout.JAVA_INT, OFF_STRIDE) == stride;
    }

    long headAcquire() {
        return (long) LONG.getAcquire(seg, OFF_HEAD);
    }

    long tailAcquire() {
        return (long) LONG.getAcquire(seg, OFF_TAIL);
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
        long slot = SLOTS_BASE + (head & mask) * (long) stride;
        seg.set(ValueLayout.JAVA_INT, slot + SLOT_LEN, len);
        seg.set(ValueLayout.JAVA_INT, slot + SLOT_IMM_LEN, immLen);
        if (immLen > 0) {
            MemorySegment.copy(imm, 0, seg, slot + SLOT_IMM, immLen);
        }
        if (len > 0) {
            MemorySegment.copy(src, srcOff, seg, slot + SLOT_DATA, len);
        }
        LONG.setRelease(seg, OFF_HEAD, head + 1);
    }

    // ------------------------------------------------------------------ consumer side

    long slotOffset(long tail) {
        return SLOTS_BASE + (tail & mask) * (long) stride;
    }

    int slotLen(long tail) {
        return seg.get(ValueLayout.JAVA_INT, slotOffset(tail) + SLOT_LEN);
    }

    int slotImmLen(long tail) {
        return seg.get(ValueLayout.JAVA_INT, slotOffset(tail) + SLOT_IMM_LEN);
    }

    void consumed(long tail) {
        LONG.setRelease(seg, OFF_TAIL, tail + 1);
    }
}
