package io.jdoca.bench;

/**
 * One benchmark figure as written to {@code bench-results/<suite>.json}: the measured value, the
 * baseline measured in the same run (name and value), and value / baseline, unless {@code ratioRule}
 * (null for most figures) says how this ratio was formed instead (e.g. baseline / value for a latency
 * compared with perftest, so that above 1 always means jdoca is faster). A baseline that could not be
 * measured carries {@code note}, why (never an empty baseline without a word). A figure that is the median of
 * several rounds carries {@code rounds}, each round's value (null otherwise), so its spread is shown. Immutable.
 */
public record BenchResult(String name, String unit, double value, String baseline, Double baselineValue, Double ratio,
        String ratioRule, String note, double[] rounds) {
    /** A figure without rounds. */
    public BenchResult(String name, String unit, double value, String baseline, Double baselineValue, Double ratio,
            String ratioRule, String note) {
        this(name, unit, value, baseline, baselineValue, ratio, ratioRule, note, null);
    }

    /** A figure without a note. */
    public BenchResult(String name, String unit, double value, String baseline, Double baselineValue, Double ratio,
            String ratioRule) {
        this(name, unit, value, baseline, baselineValue, ratio, ratioRule, null, null);
    }

    /** A figure whose ratio is value / baseline (the default rule). */
    public BenchResult(String name, String unit, double value, String baseline, Double baselineValue, Double ratio) {
        this(name, unit, value, baseline, baselineValue, ratio, null, null, null);
    }

    /** This figure with {@code why} its baseline is missing. */
    public BenchResult withNote(String why) {
        return new BenchResult(name, unit, value, baseline, baselineValue, ratio, ratioRule, why, rounds);
    }

    /** This figure with each round's value (in the figure's unit), of which {@link #value} is the median. */
    public BenchResult withRounds(double... perRound) {
        return new BenchResult(name, unit, value, baseline, baselineValue, ratio, ratioRule, note, perRound.clone());
    }

    /** A figure with a same-run baseline; ratio = value / baseline (for latencies, below 1 is better). */
    public static BenchResult of(String name, String unit, double value, String baseline, double baselineValue) {
        return new BenchResult(name, unit, value, baseline, baselineValue, baselineValue == 0 ? null
                : value / baselineValue);
    }

    /** A figure with no baseline (e.g. bytes allocated per op). */
    public static BenchResult plain(String name, String unit, double value) {
        return new BenchResult(name, unit, value, null, null, null);
    }
}
