package io.jdoca.nvmf.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Iterator;
import java.util.Set;

/**
 * A method's parameters (a JSON-RPC request's {@code params}, an entry of SPDK's JSON config): an
 * object with only the listed keys, read through typed getters whose errors name the field
 * ({@link ConfigException}: {@code "namespace.size_mb: must be an integer"}), so every RPC answers
 * a bad value the same way (JSON-RPC -32602).
 *
 * <p>Immutable view over a parsed tree; confined to the thread that parses the request.
 */
public final class JsonParams {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final JsonNode p;
    private final String prefix;
    private final String[] allowed;

    /**
     * The object {@code params} (null or JSON null: empty) whose keys must be among {@code allowed};
     * {@code prefix} names it in errors ("" at the top level, e.g. "namespace" inside).
     */
    public JsonParams(JsonNode params, String prefix, String... allowed) {
        this.prefix = prefix;
        this.allowed = allowed.clone();
        if (params == null || params.isNull()) {
            params = MAPPER.createObjectNode();
        }
        if (!params.isObject()) {
            throw new ConfigException(prefix.isEmpty() ? "params" : prefix, "must be a JSON object");
        }
        Set<String> ok = Set.of(allowed);
        for (Iterator<String> it = params.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!ok.contains(k)) {
                throw new ConfigException(name(k), "unknown parameter (known: " + String.join(", ", allowed) + ")");
            }
        }
        this.p = params;
    }

    /** The keys this object may have. */
    public String[] allowed() {
        return allowed.clone();
    }

    /** The field's name in errors: "prefix.key". */
    public String name(String k) {
        return prefix.isEmpty() ? k : prefix + "." + k;
    }

    public boolean has(String k) {
        return p.hasNonNull(k);
    }

    public JsonNode node(String k) {
        return p.get(k);
    }

    /** The whole object (for methods that keep what they were given, e.g. transport options). */
    public JsonNode tree() {
        return p;
    }

    public String str(String k, boolean required) {
        JsonNode v = p.get(k);
        if (v == null || v.isNull()) {
            if (required) {
                throw new ConfigException(name(k), "missing (required)");
            }
            return null;
        }
        if (!v.isTextual()) {
            throw new ConfigException(name(k), "must be a string");
        }
        return v.asText();
    }

    public Boolean bool(String k) {
        JsonNode v = p.get(k);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isBoolean()) {
            throw new ConfigException(name(k), "must be true or false");
        }
        return v.asBoolean();
    }

    public Long integer(String k, boolean required, long min, long max) {
        JsonNode v = p.get(k);
        if (v == null || v.isNull()) {
            if (required) {
                throw new ConfigException(name(k), "missing (required)");
            }
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw new ConfigException(name(k), "must be an integer");
        }
        long x = v.asLong();
        if (x < min || x > max) {
            throw new ConfigException(name(k), x + " is out of range " + min + ".." + max);
        }
        return x;
    }

    /** A parameter jdoca accepts only at SPDK's default value (the feature is not implemented). */
    public void onlyDefault(String k, Object dflt) {
        JsonNode v = p.get(k);
        if (v != null && !v.isNull() && !MAPPER.valueToTree(dflt).equals(v)) {
            throw new ConfigException(name(k), "only " + dflt + " is supported by jdoca");
        }
    }

    /** SPDK's tgt_name: jdoca has one NVMe-oF target. */
    public void noTarget() {
        if (has("tgt_name")) {
            throw new ConfigException("tgt_name", "jdoca runs one NVMe-oF target: omit tgt_name");
        }
    }

    /** A required NQN (checked: {@link Nqn#check}). */
    public String nqn(String k) {
        String v = str(k, true);
        Nqn.check(name(k), v);
        return v;
    }

    /** An optional UUID. */
    public java.util.UUID uuid(String k) {
        String s = str(k, false);
        if (s == null) {
            return null;
        }
        try {
            return java.util.UUID.fromString(s);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(name(k), "\"" + s + "\" is not a UUID");
        }
    }
}
