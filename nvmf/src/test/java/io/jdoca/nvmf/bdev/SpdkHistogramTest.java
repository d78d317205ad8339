package io.jdoca.nvmf.bdev;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * Issue 30: bdev_get_histogram's buckets are SPDK's ({@code include/spdk/histogram_data.h}):
 * ranges and indices computed as {@code spdk_histogram_data_tally} computes them, out-of-range
 * values clamped to the first and last bucket.
 */
class SpdkHistogramTest {
    @Test
    void bucketsFollowSpdksTally() {
        SpdkHistogram l = new SpdkHistogram(7, 1_000, 120_000_000_000L);
        // clz(1000) = 54, so range (64 - 7) - 54 = 3; clz(119999999999) = 27: range 30.
        assertThat(l.minRange()).isEqualTo(3);
        assertThat(l.maxRange()).isEqualTo(30);
        assertThat(l.buckets()).isEqualTo(28 * 128);
        // 1000 in range 3: index (1000 >> 2) & 127 = 122, bucket 0 * 128 + 122.
        assertThat(l.bucket(1000)).isEqualTo(122);
        // 50 us = 50000: clz 48, range 9, index (50000 >> 8) & 127 = 67; (9 - 3) * 128 + 67.
        assertThat(l.bucket(50_000)).isEqualTo(6 * 128 + 67);
        assertThat(l.bucket(10)).as("below min: first bucket").isZero();
        assertThat(l.bucket(Long.MAX_VALUE)).as("above max: last bucket").isEqualTo(l.buckets() - 1);
    }

    @Test
    void countsKeepEveryRecordedValue() {
        SpdkHistogram l = new SpdkHistogram(7, 1_000, 120_000_000_000L);
        Histogram h = new Histogram(60_000_000_000L, 2);
        h.recordValueWithCount(50_000, 3);
        h.recordValueWithCount(2_000_000, 4);
        long[] c = l.counts(h);
        assertThat(Arrays.stream(c).sum()).isEqualTo(7);
        assertThat(c[l.bucket(h.medianEquivalentValue(50_000))]).isEqualTo(3);
        assertThat(l.encode(h)).hasSize(4 * ((l.buckets() * 8 + 2) / 3));
    }
}
