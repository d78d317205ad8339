package io.jdoca.comch;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The consumer ring as a queue: any interleaving of publishes and consumes, with any message and
 * immediate sizes, delivers every message once, in order, intact, and never more than {@code slots}
 * are outstanding (the producer sees the ring full).
 */
class ComchRingPropertiesTest {
    @Property(tries = 200)
    void ringIsAFaithfulBoundedFifo(@ForAll @IntRange(min = 0, max = 4) int slotsLog2,
            @ForAll @Size(min = 1, max = 200) List<@IntRange(min = -1, max = 96) Integer> script) {
        int slots = 1 << slotsLog2;
        int maxMsg = 96;
        int stride = ComchRing.strideFor(maxMsg);
        try (SharedRegion r = SharedMemory.allocate(ComchRing.bytesFor(slots, stride))) {
            ComchRing ring = new ComchRing(r.segment(), slots, stride, maxMsg);
            ring.format();
            assertThat(ring.headerMatches()).isTrue();
            MemorySegment src = MemorySegment.ofArray(new byte[maxMsg]);
            MemorySegment imm = MemorySegment.ofArray(new byte[Comch.MAX_IMM_DATA_LEN]);
            ArrayDeque<byte[]> expected = new ArrayDeque<>();
            long head = 0;
            long tail = 0;
            int seq = 0;
            for (int step : script) {
                if (step >= 0) {
                    // publish a message of 'step' bytes whose content encodes its sequence number
                    boolean space = ring.hasSpace(head);
                    assertThat(space).isEqualTo(expected.size() < slots);
                    if (!space) {
                        continue;
                    }
                    byte[] m = new byte[step];
                    for (int i = 0; i < step; i++) {
                        m[i] = (byte) (seq * 31 + i);
                    }
                    MemorySegment.copy(m, 0, src, ValueLayout.JAVA_BYTE, 0, step);
                    int immLen = seq % (Comch.MAX_IMM_DATA_LEN + 1);
                    imm.fill((byte) seq);
                    ring.publish(head, src, 0, step, imm, immLen);
                    head++;
                    seq++;
                    expected.add(m);
                } else if (tail != ring.headAcquire()) {
                    byte[] want = expected.poll();
                    assertThat(ring.slotLen(tail)).isEqualTo(want.length);
                    byte[] got = new byte[want.length];
                    MemorySegment.copy(ring.seg, ValueLayout.JAVA_BYTE, ring.slotOffset(tail) + ComchRing.SLOT_DATA,
                            got, 0,
                            got.length);
                    assertThat(got).isEqualTo(want);
                    ring.consumed(tail);
                    tail++;
                } else {
                    assertThat(expected).isEmpty();
                }
            }
            assertThat(head - tail).isEqualTo(expected.size());
        }
    }

    @Property(tries = 50)
    void claimAdmitsOneProducer(@ForAll long a, @ForAll long b) {
        if (a == 0 || b == 0 || a == b) {
            return;
        }
        try (SharedRegion r = SharedMemory.allocate(ComchRing.bytesFor(1, ComchRing.strideFor(8)))) {
            ComchRing ring = new ComchRing(r.segment(), 1, ComchRing.strideFor(8), 8);
            ring.format();
            assertThat(ring.claim(a)).isTrue();
            assertThat(ring.claim(a)).isTrue();
            assertThat(ring.claim(b)).isFalse();
            ring.release(a);
            assertThat(ring.claim(b)).isTrue();
        }
    }
}
