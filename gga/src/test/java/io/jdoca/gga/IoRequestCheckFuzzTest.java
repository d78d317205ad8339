package io.jdoca.gga;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.DocaError;
import io.jdoca.storage.wire.IoMessage;
import io.jdoca.storage.wire.IoMessageType;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * Fuzzing of the checks on IO messages from the initiator and the targets (outside input): any 64
 * bytes either pass with every later offset in range, or are refused with INVALID_VALUE; no
 * exception either way.
 */
class IoRequestCheckFuzzTest {
    private static final GgaLayout L = new GgaLayout(2048);
    private static final long CAPACITY = 1024L * 4096;
    private static final long HOST = 1024L * 4096;

    @Property(tries = 20_000)
    void anyRequestIsEitherSafeOrRefused(@ForAll @Size(64) byte[] raw, @ForAll boolean biased) {
        MemorySegment s = MemorySegment.ofArray(raw);
        IoMessage m = new IoMessage().wrap(s, 0);
        if (biased) {
            // Steer a share of inputs near the boundaries so the accepting branch is exercised too.
            m.typeCode(1 + (raw[0] & 1)).ioSize(4096 * (1 + (raw[1] & 3))).storageOffset(4096L * (raw[2] & 0x3FF))
                    .requesterOffset(4096L * (raw[3] & 0x3FF) + (raw[4] & 1));
        }
        int r = IoRequestCheck.request(m, 64, L, CAPACITY, HOST);
        if (r > 0) {
            long io = m.ioSize();
            assertThat(io).isEqualTo((long) r * L.blockSize());
            assertThat(r).isBetween(1, GgaLayout.MAX_BLOCKS_PER_IO);
            assertThat(m.storageOffset()).isNotNegative();
            assertThat(m.storageOffset() % L.blockSize()).isZero();
            assertThat(m.storageOffset() + io).isLessThanOrEqualTo(CAPACITY);
            assertThat(m.requesterOffset()).isNotNegative();
            assertThat(m.requesterOffset() + io).isLessThanOrEqualTo(HOST);
            assertThat(m.typeCode()).isIn(IoMessageType.READ.code(), IoMessageType.WRITE.code());
        } else {
            assertThat(r).isEqualTo(-DocaError.INVALID_VALUE.code());
        }
    }

    @Test
    void shortMessagesAndBadIndicesAreRefused() {
        Random rnd = new Random(5);
        IoMessage m = new IoMessage();
        int accepted = 0;
        for (int i = 0; i < 100_000; i++) {
            byte[] raw = new byte[64];
            rnd.nextBytes(raw);
            m.wrap(MemorySegment.ofArray(raw), 0);
            long len = rnd.nextInt(80);
            int idx = IoRequestCheck.responseIndex(m, len, 64);
            if (len < 64) {
                assertThat(idx).isEqualTo(-1);
            }
            assertThat(idx).isBetween(-1, 63);
            m.userData(rnd.nextInt(70));
            int j = IoRequestCheck.responseIndex(m, 64, 64);
            assertThat(j).isEqualTo(m.userData() < 64 ? (int) m.userData() : -1);
            accepted += j >= 0 ? 1 : 0;
            int res = IoRequestCheck.responseResult(m);
            assertThat(res).isEqualTo(m.typeCode() == 0 ? m.result() : DocaError.IO_FAILED.code());
            assertThat(IoRequestCheck.request(m, len, L, CAPACITY,
                    HOST)).isLessThanOrEqualTo(GgaLayout.MAX_BLOCKS_PER_IO);
        }
        assertThat(accepted).isPositive();
    }
}
