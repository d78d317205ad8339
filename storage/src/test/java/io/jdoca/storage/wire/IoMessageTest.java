package io.jdoca.storage.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.testkit.AllocationMeter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The 64-byte IO message against a hand-built vector (reference §2, DOCA 3.3 layout). */
class IoMessageTest {
    @Test
    void layoutMatchesReferenceVector() {
        String expected = ""
                + "00000002" + "00000000"            // type = write @0, padding @4
                + "1122334455667788"                  // user_data @8
                + "00000011"                          // result = IO_FAILED (17) @16
                + "00001000"                          // io_size = 4096 @20
                + "0000000000002000"                  // requester_offset @24
                + "000000000000a000"                  // storage_offset @32
                + "00".repeat(24);                    // unused @40..63
        MemorySegment s = MemorySegment.ofArray(new byte[64]);
        IoMessage m = new IoMessage().wrap(s, 0);
        m.setRequest(IoMessageType.WRITE, 0x1122334455667788L, 4096, 0x2000, 0xA000).result(17);
        assertThat(HexFormat.of().formatHex(s.toArray(ValueLayout.JAVA_BYTE))).isEqualTo(expected);

        IoMessage r = new IoMessage().wrap(MemorySegment.ofArray(HexFormat.of().parseHex(expected)), 0);
        assertThat(IoMessageType.fromCode(r.typeCode())).isEqualTo(IoMessageType.WRITE);
        assertThat(r.userData()).isEqualTo(0x1122334455667788L);
        assertThat(r.result()).isEqualTo(17);
        assertThat(r.ioSize()).isEqualTo(4096);
        assertThat(r.requesterOffset()).isEqualTo(0x2000);
        assertThat(r.storageOffset()).isEqualTo(0xA000);
        assertThat(IoMessage.SIZE).isEqualTo(64);
    }

    @Test
    void responseRewritesInPlaceAndEchoesTheRest() {
        MemorySegment s = MemorySegment.ofArray(new byte[128]);
        IoMessage m = new IoMessage().wrap(s, 64);
        m.setRequest(IoMessageType.READ, 42, 512, 1024, 2048);
        m.setResponse(0);
        assertThat(m.typeCode()).isEqualTo(IoMessageType.RESULT.code());
        assertThat(m.userData()).isEqualTo(42);
        assertThat(m.ioSize()).isEqualTo(512);
        assertThat(m.requesterOffset()).isEqualTo(1024);
        assertThat(m.storageOffset()).isEqualTo(2048);
        assertThat(s.asSlice(0, 64).toArray(ValueLayout.JAVA_BYTE)).containsOnly(0);
    }

    @Test
    void flyweightIsAllocationFree() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(64 * 16, 64);
            IoMessage m = new IoMessage();
            long[] i = {0};
            long[] sink = {0};
            AllocationMeter.Result r = AllocationMeter.steadyState(50_000, 200_000, () -> {
                m.wrap(s, (i[0]++ & 15) * 64).setRequest(IoMessageType.READ, i[0], 4096, i[0] * 4096, i[0]);
                m.setResponse(0);
                sink[0] += m.userData() + m.storageOffset();
            });
            assertThat(r.bytesPerOp()).isLessThan(1.0);
            assertThat(sink[0]).isPositive();
        }
    }
}
