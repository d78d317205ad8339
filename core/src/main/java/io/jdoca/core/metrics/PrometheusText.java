package io.jdoca.core.metrics;

import java.util.Locale;

/**
 * Builds Prometheus text exposition format 0.0.4: {@code # HELP}/{@code # TYPE} lines per family,
 * then its samples, with label values and HELP text escaped as the format requires. Callers emit a
 * family's samples right after its {@link #family} line (the format wants families contiguous).
 *
 * <p>Control path (a scrape); one instance per scrape, not thread-safe.
 */
public final class PrometheusText {
    /** The Content-Type of the format. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final StringBuilder b = new StringBuilder(4096);

    /** Starts family {@code name} of {@code type} (counter, gauge, summary, ...). */
    public PrometheusText family(String name, String type, String help) {
        b.append("# HELP ").append(name).append(' ').append(help.replace("\\", "\\\\").replace("\n", "\\n")).append('\n');
        b.append("# TYPE ").append(name).append(' ').append(type).append('\n');
        return this;
    }

    /** One sample; {@code labels} are name/value pairs. NaN is written as {@code NaN}. */
    public PrometheusText sample(String name, double v, String... labels) {
        b.append(name);
        if (labels.length > 0) {
            b.append('{');
            for (int i = 0; i < labels.length; i += 2) {
                b.append(i == 0 ? "" : ",").append(labels[i]).append("=\"")
                        .append(labels[i + 1].replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")).append('"');
            }
            b.append('}');
        }
        b.append(' ');
        if (Double.isNaN(v)) {
            b.append("NaN");
        } else if (Double.isInfinite(v)) {
            b.append(v > 0 ? "+Inf" : "-Inf");
        } else if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            b.append((long) v);
        } else {
            b.append(String.format(Locale.ROOT, "%.6f", v));
        }
        b.append('\n');
        return this;
    }

    @Override
    public String toString() {
        return b.toString();
    }
}
