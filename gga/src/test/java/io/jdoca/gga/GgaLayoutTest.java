package io.jdoca.gga;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** Reference §5 arithmetic: halves, chunk of 2.5 B, target offsets, 255-block limit. */
class GgaLayoutTest {
    @Test
    void sizesFollowTheReference() {
        GgaLayout l = new GgaLayout(2048);
        assertThat(l.blockSize()).isEqualTo(4096);
        assertThat(l.halfSize()).isEqualTo(2048);
        assertThat(l.chunkSize()).isEqualTo(10240); // 2.5 × B
        assertThat(l.data1Offset()).isZero();
        assertThat(l.data2Offset()).isEqualTo(2048);
        assertThat(l.parityOffset()).isEqualTo(4096);
        assertThat(l.streamScratchSize()).isEqualTo(6144); // 1.5 × B
        assertThat(GgaLayout.reportedCapacity(1 << 20)).isEqualTo(2 << 20);
    }

    @Test
    void targetOffsetIsBlockNumberTimesHalf() {
        GgaLayout l = new GgaLayout(2048);
        assertThat(l.targetOffset(0, 0)).isZero();
        assertThat(l.targetOffset(4096, 0)).isEqualTo(2048);
        assertThat(l.targetOffset(40960, 3)).isEqualTo(10 * 2048 + 3 * 2048);
    }

    @Property
    void targetOffsetFormula(@ForAll @IntRange(min = 1, max = 1024) int half64, @ForAll @LongRange(min = 0,
            max = 1L << 30) long blk,
            @ForAll @IntRange(min = 0, max = 254) int idx) {
        GgaLayout l = new GgaLayout(half64 * 64);
        long b = l.halfSize();
        long storage = blk * l.blockSize();
        assertThat(l.targetOffset(storage, idx)).isEqualTo((storage / (2 * b)) * b + idx * b);
    }

    @Test
    void blocksPerIoAreWholeAndAtMost255() {
        GgaLayout l = new GgaLayout(64);
        assertThat(l.blocksInIo(128)).isEqualTo(1);
        assertThat(l.blocksInIo(255 * 128)).isEqualTo(255);
        assertThat(l.blocksInIo(256 * 128)).isEqualTo(-DocaError.INVALID_VALUE.code());
        assertThat(l.blocksInIo(0)).isEqualTo(-DocaError.INVALID_VALUE.code());
        assertThat(l.blocksInIo(100)).isEqualTo(-DocaError.INVALID_VALUE.code());
    }

    @Test
    void rangesAndBadSizes() {
        GgaLayout l = new GgaLayout(64);
        assertThat(l.inRange(0, 128, 1024)).isTrue();
        assertThat(l.inRange(896, 128, 1024)).isTrue();
        assertThat(l.inRange(1024, 128, 1024)).isFalse();
        assertThat(l.inRange(64, 128, 1024)).isFalse(); // not block aligned
        assertThat(l.inRange(-128, 128, 1024)).isFalse();
        assertThat(l.inRange(Long.MAX_VALUE - 64, 128, 1024)).isFalse();
        assertThatThrownBy(() -> new GgaLayout(100)).isInstanceOf(DocaException.class);
        assertThatThrownBy(() -> new GgaLayout(0)).isInstanceOf(DocaException.class);
    }
}
