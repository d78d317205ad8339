package io.jdoca.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.jdoca.argp.HelpVersionFlags;
import io.jdoca.core.config.CoreProperties;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ./jdoca bench <suite>}: runs a suite, prints a table, writes {@code bench-results/<suite>.json}. */
@Command(name = "bench",
        description = {"Runs a benchmark suite, prints a table and writes bench-results/<suite>.json.",
            "Suites: core, rdma, ec, compress, storage, nvmf. Each figure is compared with a baseline",
            "measured in the same run (memcpy, raw socket, ISA-L, ...) and the ratio is reported."})
public final class BenchCommand implements Callable<Integer> {
    /** -h/--help and -v/--version (the one version line of every app). */
    @Mixin
    HelpVersionFlags helpVersion;

    public static final List<String> SUITES = List.of("core", "rdma", "ec", "compress", "storage", "nvmf");

    @Parameters(index = "0", description = "suite: ${COMPLETION-CANDIDATES}, or jmh to run the JMH micro-benchmarks",
            completionCandidates = Names.class)
    String suite;

    /** With jmh: JMH's own arguments (e.g. CoreBenchmarks -prof gc), passed through in order. */
    @picocli.CommandLine.Unmatched
    List<String> unmatched = new ArrayList<>();

    @Option(names = "--quick", description = "short measurements (smoke run; figures are noisier)")
    boolean quick;

    @Option(names = {"-d", "--device"}, description = "run the suite on this device (rdma: an rdma-core device such as "
            + "rxe0, measured beside perftest's ib_write_bw / ib_read_lat; results in bench-results/rdma-verbs.json)")
    String device;

    @Option(names = {"-o", "--out"}, description = "output directory (default: bench-results under the repository)")
    Path out;

    static final class Names extends ArrayList<String> {
        private static final long serialVersionUID = 1L;

        Names() {
            super(SUITES);
        }
    }

    @Override
    public Integer call() throws Exception {
        if (suite.equals("jmh")) {
            org.openjdk.jmh.Main.main(unmatched.toArray(new String[0]));
            return 0;
        }
        if (!SUITES.contains(suite)) {
            System.err.println("bench: unknown suite '" + suite + "'; one of " + SUITES);
            return 2;
        }
        BenchSuite s = load(suite);
        if (s == null) {
            System.err.println("bench: suite '" + suite
                    + "' is not available in this build yet (see docs/FEATURES.md)");
            return 2;
        }
        String name = suite;
        List<BenchResult> results;
        if (device != null) {
            if (!(s instanceof BenchSuite.OnDevice d)) {
                System.err.println("bench: suite '" + suite + "' does not run on a device (-d); only rdma does");
                return 2;
            }
            name = d.resultName();
            System.err.println("bench " + suite + " on " + device + (quick ? " (quick)" : ""));
            try {
                results = d.run(quick, device);
            } catch (io.jdoca.core.DocaException | IllegalArgumentException e) {
                System.err.println("bench: " + e.getMessage());
                return 2;
            }
        } else {
            System.err.println("bench " + suite + ": " + s.description() + (quick ? " (quick)" : ""));
            results = s.run(quick);
        }
        Path dir = out != null ? out : Path.of(CoreProperties.HOME.asString()).resolve("bench-results");
        Path file = write(dir, name, results);
        System.out.print(table(results));
        System.out.println("wrote " + file);
        return 0;
    }

    static BenchSuite load(String name) throws ReflectiveOperationException {
        String cls = "io.jdoca.bench." + name + "." + Character.toUpperCase(name.charAt(0)) + name.substring(1)
                + "Suite";
        try {
            return (BenchSuite) Class.forName(cls).getDeclaredConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    /**
     * Writes the JSON array {@code [{"name","unit","value","baseline","baseline_value","ratio"}]}, plus
     * {@code "ratio_rule"} on a figure whose ratio is not value / baseline and {@code "baseline_note"} on one
     * whose baseline could not be measured (why).
     */
    public static Path write(Path dir, String suite, List<BenchResult> results) throws java.io.IOException {
        Files.createDirectories(dir);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (BenchResult r : results) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", r.name());
            m.put("unit", r.unit());
            m.put("value", round(r.value()));
            m.put("baseline", r.baseline());
            m.put("baseline_value", r.baselineValue() == null ? null : round(r.baselineValue()));
            m.put("ratio", r.ratio() == null ? null : round(r.ratio()));
            if (r.ratioRule() != null) {
                m.put("ratio_rule", r.ratioRule());
            }
            if (r.note() != null) {
                m.put("baseline_note", r.note());
            }
            if (r.rounds() != null) {
                List<Double> v = new ArrayList<>();
                for (double x : r.rounds()) {
                    v.add(round(x));
                }
                m.put("rounds", v);
                // The spread at a glance (issue 35): value is the rounds' median.
                Spread sp = Spread.of(r);
                m.put("median", round(r.value()));
                m.put("min", round(sp.min()));
                m.put("max", round(sp.max()));
                m.put("spread", round(sp.ratio()));
            }
            rows.add(m);
        }
        Path f = dir.resolve(suite + ".json");
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(f.toFile(), rows);
        return f;
    }

    /**
     * The rounds of a median figure: their least and greatest value and (max − min) / median, issue 35's measure of
     * a workload's steadiness (NaN for a median of 0).
     */
    record Spread(double min, double max, double ratio) {
        static Spread of(BenchResult r) {
            double lo = Double.MAX_VALUE;
            double hi = -Double.MAX_VALUE;
            for (double x : r.rounds()) {
                lo = Math.min(lo, x);
                hi = Math.max(hi, x);
            }
            return new Spread(lo, hi, r.value() == 0 ? Double.NaN : (hi - lo) / Math.abs(r.value()));
        }
    }

    private static double round(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return v;
        }
        double a = Math.abs(v);
        double scale = a >= 100 ? 10 : a >= 1 ? 1000 : 1_000_000;
        return Math.round(v * scale) / scale;
    }

    /** A fixed-width table of results. */
    public static String table(List<BenchResult> results) {
        int w = "name".length();
        for (BenchResult r : results) {
            w = Math.max(w, r.name().length());
        }
        StringBuilder sb = new StringBuilder();
        String fmt = "%-" + w + "s  %12s  %-10s  %-28s  %12s  %7s%n";
        sb.append(String.format(Locale.ROOT, fmt, "name", "value", "unit", "baseline", "baseline", "ratio"));
        for (BenchResult r : results) {
            sb.append(String.format(Locale.ROOT, fmt, r.name(), num(r.value()), r.unit(),
                    r.baseline() == null ? "-" : r.baseline(), r.baselineValue() == null ? r.baseline() == null ? "-"
                            : "n/a"
                            : num(r.baselineValue()),
                    r.ratio() == null ? r.baseline() == null ? "-" : "n/a" : String.format(Locale.ROOT, "%.2f",
                            r.ratio())));
        }
        // Figures whose ratio is not value / baseline say how it was formed, once per rule, under the table.
        List<String> rules = new ArrayList<>();
        for (BenchResult r : results) {
            if (r.ratioRule() != null && !rules.contains(r.ratioRule())) {
                rules.add(r.ratioRule());
            }
        }
        for (String rule : rules) {
            StringBuilder names = new StringBuilder();
            for (BenchResult r : results) {
                if (rule.equals(r.ratioRule())) {
                    names.append(names.isEmpty() ? "" : ", ").append(r.name());
                }
            }
            sb.append("ratio = ").append(rule).append(": ").append(names).append(System.lineSeparator());
        }
        for (BenchResult r : results) {
            if (r.note() != null) {
                sb.append("no baseline for ").append(r.name()).append(": ").append(r.note())
                        .append(System.lineSeparator());
            }
        }
        // The spread over rounds of every median figure: a run whose rounds disagree says so here.
        for (BenchResult r : results) {
            if (r.rounds() != null && r.rounds().length > 1) {
                StringBuilder each = new StringBuilder();
                for (double x : r.rounds()) {
                    each.append(each.isEmpty() ? "" : " ").append(num(x));
                }
                Spread sp = Spread.of(r);
                sb.append(String.format(Locale.ROOT, "rounds of %s: %s (min %s, max %s, spread %.0f %%)%n", r.name(),
                        each, num(sp.min()), num(sp.max()), 100 * sp.ratio()));
            }
        }
        return sb.toString();
    }

    private static String num(double v) {
        return Math.abs(v) >= 100 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.3f", v);
    }
}
