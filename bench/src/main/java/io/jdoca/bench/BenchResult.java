package io.jdoca.bench;

/**
 * One benchmark figure as written to {@code bench-results/<suite>.json}: the measured value, the
 * baseline measured in the same run (name and value), and value / baseline.
 */
public record BenchResult(String name, String unit, double value, String baseline, Double baselineValue, Double ratio) {
    /** A figure with a same-run baseline; ratio = value / baseline (for latencies, below 1 is better). */
    public static BenchResult of(String name, String unit, double value, String baseline, double baselineValue) {
        return new BenchResult(name, unit, value, baseline, baselineValue, baselineValue == 0 ? null : value / baselineValue);
    }


    /** A figure with no baseline (e.g. bytes allocated per op). */
    public static BenchResult plain(String name, String unit, double value) {
        return new BenchResult(name, unit, value, null, null, null);
    }
}
