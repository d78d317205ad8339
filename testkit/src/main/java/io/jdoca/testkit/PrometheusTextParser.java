package io.jdoca.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict parser of Prometheus text exposition format 0.0.4 for tests of the metrics endpoints
 * (sta-target, storage apps): fails the test on any rule the text breaks. Stateless; any thread.
 */
public final class PrometheusTextParser {
    private PrometheusTextParser() {
    }

    private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern SAMPLE = Pattern.compile(
            "([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{((?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\",?)*)\\})? "
                    + "(NaN|[+-]Inf|[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?)( -?\\d+)?");
    private static final Pattern LABEL = Pattern.compile(
            "([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\\\n]|\\\\[\\\\\"n])*)\"");

    /**
     * Parses exposition text by the format's rules (names, label syntax and escapes, values, one
     * TYPE per family before its samples, families contiguous, no duplicate series, summaries with
     * quantile labels); returns "name{sorted labels}" → value. Fails the test on any violation.
     */
    public static Map<String, Double> parse(String text) {
        assertTrue(text.endsWith("\n"), "text ends with a newline");
        Map<String, Double> out = new HashMap<>();
        Map<String, String> types = new HashMap<>();
        Set<String> closed = new HashSet<>();
        String current = null;
        int n = 0;
        for (String line : text.split("\n", -1)) {
            n++;
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("#")) {
                String[] f = line.split(" ", 4);
                if (f.length >= 3 && (f[1].equals("HELP") || f[1].equals("TYPE"))) {
                    assertTrue(NAME.matcher(f[2]).matches(), "line " + n + ": bad metric name " + line);
                    if (f[1].equals("TYPE")) {
                        assertTrue(Set.of("counter", "gauge", "histogram", "summary", "untyped").contains(f[3]),
                                "line " + n + ": " + line);
                        if (types.put(f[2], f[3]) != null) {
                            fail("line " + n + ": second TYPE for " + f[2]);
                        }
                        assertTrue(!closed.contains(f[2]), "line " + n + ": TYPE after samples of " + f[2]);
                    }
                }
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            assertTrue(m.matches(), "line " + n + " is not a sample: " + line);
            String name = m.group(1);
            String family = types.containsKey(name) ? name : name.replaceFirst("_(sum|count|bucket)$", "");
            assertTrue(types.containsKey(family), "line " + n + ": no TYPE for " + name);
            if (!family.equals(current)) {
                assertTrue(closed.add(family), "line " + n + ": samples of " + family + " are not contiguous");
                current = family;
            }
            Map<String, String> labels = new java.util.TreeMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    assertTrue(labels.put(l.group(1), l.group(2)) == null, "line " + n + ": label twice " + line);
                }
            }
            if (types.get(family).equals("summary") && name.equals(family)) {
                assertTrue(labels.containsKey("quantile"), "line " + n + ": summary sample without quantile");
            }
            String key = name + labels;
            String v = m.group(4);
            double d = v.equals("NaN") ? Double.NaN : v.endsWith("Inf") ? (v.startsWith("-") ? Double.NEGATIVE_INFINITY
                    : Double.POSITIVE_INFINITY) : Double.parseDouble(v);
            assertTrue(out.put(key, d) == null, "line " + n + ": duplicate series " + key);
        }
        return out;
    }

    /** The sum of every series whose key starts with {@code prefix}. */
    public static double sum(Map<String, Double> m, String prefix) {
        return m.entrySet().stream().filter(e -> e.getKey().startsWith(prefix)).mapToDouble(Map.Entry::getValue).sum();
    }
}
