package io.jdoca.storage.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.lang.foreign.MemorySegment;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** Any field values survive the flyweight, land big-endian at the reference offsets, and never touch other bytes. */
class IoMessagePropertiesTest {
    @Property(tries = 1000)
    void fieldsRoundTripBigEndianAtTheirOffsets(@ForAll int type, @ForAll long userData, @ForAll int result,
            @ForAll int ioSize, @ForAll long requesterOffset, @ForAll long storageOffset,
            @ForAll @IntRange(min = 0, max = 3) int slot, @ForAll byte fill) {
        byte[] raw = new byte[4 * 64];
        java.util.Arrays.fill(raw, fill);
        IoMessage m = new IoMessage().wrap(MemorySegment.ofArray(raw), slot * 64L);
        m.typeCode(type).userData(userData).result(result).ioSize(ioSize).requesterOffset(requesterOffset)
                .storageOffset(storageOffset);
        assertThat(m.typeCode()).isEqualTo(type);
        assertThat(m.userData()).isEqualTo(userData);
        assertThat(m.result()).isEqualTo(result);
        assertThat(m.ioSize()).isEqualTo(Integer.toUnsignedLong(ioSize));
        assertThat(m.requesterOffset()).isEqualTo(requesterOffset);
        assertThat(m.storageOffset()).isEqualTo(storageOffset);
        ByteBuffer bb = ByteBuffer.wrap(raw).order(ByteOrder.BIG_ENDIAN);
        int base = slot * 64;
        assertThat(bb.getInt(base)).isEqualTo(type);
        assertThat(bb.getLong(base + 8)).isEqualTo(userData);
        assertThat(bb.getInt(base + 16)).isEqualTo(result);
        assertThat(bb.getInt(base + 20)).isEqualTo(ioSize);
        assertThat(bb.getLong(base + 24)).isEqualTo(requesterOffset);
        assertThat(bb.getLong(base + 32)).isEqualTo(storageOffset);
        for (int i = 0; i < raw.length; i++) {
            boolean inFields = i >= base && (i < base + 4 || (i >= base + 8 && i < base + 40));
            if (!inFields) {
                assertThat(raw[i]).as("byte %d untouched", i).isEqualTo(fill);
            }
        }
    }
}
