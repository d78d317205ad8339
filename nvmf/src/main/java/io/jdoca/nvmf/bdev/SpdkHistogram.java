package io.jdoca.nvmf.bdev;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Base64;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * A latency histogram in SPDK's {@code spdk_histogram_data} layout ({@code include/spdk/histogram_data.h}),
 * what {@code bdev_get_histogram} sends base64-encoded and SPDK's {@code scripts/histogram.py}
 * reads: ranges {@code min_range..max_range}, each of {@code 2^granularity} buckets of 64-bit
 * counts (host order, little-endian here); a value's range is {@code (64 - granularity) - clz(v)}
 * (0 below), its index within the range the bits below the range's leading one. jdoca records
 * latencies in HdrHistograms (2 significant digits) and re-buckets each recorded value into this
 * layout when asked, so the counts are SPDK's to that precision.
 *
 * <p>Immutable configuration; {@link #encode} allocates (control path only), any thread.
 */
public record SpdkHistogram(int granularity, long minTicks, long maxTicks) {
    /** SPDK's defaults ({@code lib/bdev/bdev_rpc.c}): granularity 7, 1 us .. 120 s. */
    public static final int DEFAULT_GRANULARITY = 7;
    public static final long DEFAULT_MIN_NSEC = 1_000L;
    public static final long DEFAULT_MAX_NSEC = 120_000_000_000L;

    public int minRange() {
        return range(minTicks);
    }

    public int maxRange() {
        return range(maxTicks - 1);
    }

    /** {@code __spdk_histogram_data_get_bucket_range}. */
    int range(long v) {
        int clz = v > 0 ? Long.numberOfLeadingZeros(v) : 64;
        int lsb = 64 - granularity;
        return clz <= lsb ? lsb - clz : 0;
    }

    /** {@code spdk_histogram_data_tally}'s bucket for {@code v}: its position in the bucket array. */
    int bucket(long v) {
        int range = range(v);
        int index;
        if (range < minRange()) {
            range = minRange();
            index = 0;
        } else if (range > maxRange()) {
            range = maxRange();
            index = (1 << granularity) - 1;
        } else {
            int shift = range == 0 ? 0 : range - 1;
            index = (int) ((v >>> shift) & ((1L << granularity) - 1));
        }
        return ((range - minRange()) << granularity) + index;
    }

    /** Number of buckets ({@code SPDK_HISTOGRAM_NUM_BUCKETS}). */
    public int buckets() {
        return (maxRange() - minRange() + 1) << granularity;
    }

    /** The bucket counts of {@code h} (values in ticks), SPDK's layout. */
    public long[] counts(Histogram h) {
        long[] b = new long[buckets()];
        for (HistogramIterationValue v : h.recordedValues()) {
            long value = h.medianEquivalentValue(v.getValueIteratedTo());
            b[bucket(value)] += v.getCountAtValueIteratedTo();
        }
        return b;
    }

    /** {@link #counts} as {@code bdev_get_histogram}'s base64 string. */
    public String encode(Histogram h) {
        long[] counts = counts(h);
        ByteBuffer buf = ByteBuffer.allocate(counts.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long c : counts) {
            buf.putLong(c);
        }
        return Base64.getEncoder().encodeToString(buf.array());
    }
}
