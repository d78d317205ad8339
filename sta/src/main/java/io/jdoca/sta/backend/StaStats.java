package io.jdoca.sta.backend;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A snapshot of name/value counters ({@code doca_sta_stats}) of one object: an IO engine, a
 * namespace or a back-end queue. Control path (allocates).
 *
 * <p>Immutable; safe from any thread.
 *
 * @param scope  "engine", "namespace" or "be_queue"
 * @param name   the object's name
 * @param values counter name → value, in a stable order
 */
public record StaStats(String scope, String name, Map<String, Long> values) {
    public static StaStats of(String scope, String name, Object... kv) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], (Long) kv[i + 1]);
        }
        return new StaStats(scope, name, java.util.Collections.unmodifiableMap(m));
    }

    public long get(String counter) {
        Long v = values.get(counter);
        return v == null ? 0 : v;
    }
}
