package io.jdoca.core.metrics;

import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * One scrape's metric families, built from values the data path already keeps, as Prometheus client
 * snapshots ({@link io.prometheus.metrics.model.registry.MultiCollector#collect()} returns
 * {@link #snapshots()}): counters and gauges read at scrape time, and latency histograms converted from
 * the HdrHistograms the data path records into ({@link #histogram}). The client library checks the
 * names and writes every exposition format; counter names are given without {@code _total}, which the
 * format adds.
 *
 * <p>Control path (a scrape, on a metrics server thread); one instance per scrape, not thread-safe.
 */
public final class MetricFamilies {
    /**
     * Upper bounds, in seconds, of the latency histograms: 1 µs to 10 s, about three per decade, the same
     * for every app, so {@code histogram_quantile} can aggregate across targets and apps.
     */
    public static final double[] LATENCY_BUCKETS_SECONDS = {
        1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2,
        0.1, 0.25, 0.5, 1, 2.5, 5, 10, Double.POSITIVE_INFINITY,
    };

    private enum Type { COUNTER, GAUGE, HISTOGRAM }

    private record Family(Type type, String help, List<Object> points) {
    }

    private final Map<String, Family> families = new LinkedHashMap<>();

    private Family family(String name, Type type, String help) {
        Family f = families.computeIfAbsent(name, n -> new Family(type, help, new ArrayList<>()));
        if (f.type != type) {
            throw new IllegalArgumentException(name + " is a " + f.type + ", not a " + type);
        }
        return f;
    }

    /** Declares counter {@code name} (no {@code _total}) even when it gets no sample this scrape. */
    public MetricFamilies counter(String name, String help) {
        family(name, Type.COUNTER, help);
        return this;
    }

    /** A counter sample: {@code labels} are name/value pairs. */
    public MetricFamilies counter(String name, String help, double value, String... labels) {
        family(name, Type.COUNTER, help).points.add(CounterSnapshot.CounterDataPointSnapshot.builder()
                .value(Math.max(0, value)).labels(Labels.of(labels)).build());
        return this;
    }

    /** Declares gauge {@code name} even when it gets no sample this scrape. */
    public MetricFamilies gauge(String name, String help) {
        family(name, Type.GAUGE, help);
        return this;
    }

    /** A gauge sample: {@code labels} are name/value pairs. */
    public MetricFamilies gauge(String name, String help, double value, String... labels) {
        family(name, Type.GAUGE, help).points.add(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                .value(value).labels(Labels.of(labels)).build());
        return this;
    }

    /** Declares histogram {@code name} even when it gets no sample this scrape. */
    public MetricFamilies histogram(String name, String help) {
        family(name, Type.HISTOGRAM, help);
        return this;
    }

    /**
     * A histogram sample in seconds from an HdrHistogram of nanoseconds, in {@link #LATENCY_BUCKETS_SECONDS}:
     * each recorded value counts in the first bucket whose bound it does not exceed (HdrHistogram keeps
     * values to its precision, so a value within that precision of a bound may land on either side).
     */
    public MetricFamilies histogram(String name, String help, AbstractHistogram nanos, String... labels) {
        double[] bounds = LATENCY_BUCKETS_SECONDS;
        long[] counts = new long[bounds.length];
        double sum = 0;
        for (HistogramIterationValue v : nanos.recordedValues()) {
            long n = v.getCountAtValueIteratedTo();
            double seconds = v.getValueIteratedTo() / 1e9;
            int i = Arrays.binarySearch(bounds, seconds);
            counts[i >= 0 ? i : -i - 1] += n;
            sum += nanos.medianEquivalentValue(v.getValueIteratedTo()) / 1e9 * n;
        }
        family(name, Type.HISTOGRAM, help).points.add(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                .classicHistogramBuckets(ClassicHistogramBuckets.of(bounds, counts)).sum(sum)
                .labels(Labels.of(labels)).build());
        return this;
    }

    /** The families, in the order they were first named. */
    public MetricSnapshots snapshots() {
        List<MetricSnapshot> out = new ArrayList<>(families.size());
        for (Map.Entry<String, Family> e : families.entrySet()) {
            Family f = e.getValue();
            switch (f.type) {
                case COUNTER -> {
                    CounterSnapshot.Builder b = CounterSnapshot.builder().name(e.getKey()).help(f.help);
                    f.points.forEach(p -> b.dataPoint((CounterSnapshot.CounterDataPointSnapshot) p));
                    out.add(b.build());
                }
                case GAUGE -> {
                    GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(e.getKey()).help(f.help);
                    f.points.forEach(p -> b.dataPoint((GaugeSnapshot.GaugeDataPointSnapshot) p));
                    out.add(b.build());
                }
                case HISTOGRAM -> {
                    HistogramSnapshot.Builder b = HistogramSnapshot.builder().name(e.getKey()).help(f.help);
                    f.points.forEach(p -> b.dataPoint((HistogramSnapshot.HistogramDataPointSnapshot) p));
                    out.add(b.build());
                }
                default -> throw new IllegalStateException(f.type.name());
            }
        }
        return new MetricSnapshots(out);
    }
}
