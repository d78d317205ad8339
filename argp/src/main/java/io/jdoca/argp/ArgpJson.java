package io.jdoca.argp;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * DOCA argp's {@code -j/--json} flag file, turned into command-line tokens for a picocli command.
 *
 * <p>The file is one JSON object. Its keys are the command's long flag names, with or without the
 * leading dashes ({@code "device"}, {@code "--listen-port"}, {@code "log-level"}); DOCA's sectioned
 * layout, {@code {"doca_general_flags": {...}, "doca_program_flags": {...}}}, is read too. Values:
 * a string for a text flag, a number for a numeric one, {@code true}/{@code false} for a switch
 * ({@code true} = given, {@code false} = not given), an array for a repeatable flag (each element
 * is one repetition: {@code "cpu": [0, 1]} is {@code --cpu 0 --cpu 1}). Anything else (an unknown
 * key, a value of the wrong type, a key given twice, an unreadable file, malformed JSON) is an
 * {@link ArgpJsonException} whose one-line message names the file and the key.
 *
 * <p>Stateless; thread-safe.
 */
public final class ArgpJson {
    /** The sections of DOCA's own JSON files whose keys are flags. */
    static final Set<String> SECTIONS = Set.of("doca_general_flags", "doca_program_flags");

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private ArgpJson() {
    }

    /**
     * One flag from the file: the option, the key as written, and the tokens that stand for it
     * ({@code --name=value} per value; {@code --name} for a switch; none for {@code false}).
     */
    public record Entry(OptionSpec option, String key, List<String> tokens) {
    }

    /**
     * Reads {@code file} against {@code spec}'s options, in file order. {@code self} (the
     * {@code -j} option, may be null) cannot be named in the file.
     *
     * @throws ArgpJsonException on any problem with the file, naming the file and the key
     */
    public static List<Entry> read(Path file, CommandSpec spec, OptionSpec self) {
        JsonNode root;
        try {
            root = MAPPER.readTree(Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            throw fail(spec, file, null, "cannot read: no such file");
        } catch (AccessDeniedException e) {
            throw fail(spec, file, null, "cannot read: permission denied");
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            throw fail(spec, file, null, "malformed JSON" + (loc == null ? "" : " at line " + loc.getLineNr()
                    + ", column " + loc.getColumnNr()) + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw fail(spec, file, null, "cannot read: " + e.getMessage());
        }
        if (root == null || root.isMissingNode()) {
            throw fail(spec, file, null, "malformed JSON: the file is empty");
        }
        if (!root.isObject()) {
            throw fail(spec, file, null, "the top level must be a JSON object of flag names, not " + kind(root));
        }
        List<Entry> out = new ArrayList<>();
        Map<OptionSpec, String> seen = new HashMap<>();
        for (Map.Entry<String, JsonNode> f : root.properties()) {
            if (SECTIONS.contains(f.getKey()) && f.getValue().isObject()) {
                for (Map.Entry<String, JsonNode> g : f.getValue().properties()) {
                    add(out, seen, spec, self, file, g.getKey(), g.getValue());
                }
            } else {
                add(out, seen, spec, self, file, f.getKey(), f.getValue());
            }
        }
        return out;
    }

    private static void add(List<Entry> out, Map<OptionSpec, String> seen, CommandSpec spec, OptionSpec self,
            Path file, String key, JsonNode value) {
        String name = key.startsWith("--") ? key.substring(2) : key.startsWith("-") ? key.substring(1) : key;
        OptionSpec o = name.isEmpty() ? null : longOption(spec, "--" + name);
        if (o == null) {
            throw fail(spec, file, key,
                    "unknown flag for " + appName(spec) + " (keys are its long flag names, see --help)");
        }
        if (o == self) {
            throw fail(spec, file, key, "a flag file cannot name another flag file");
        }
        String before = seen.putIfAbsent(o, key);
        if (before != null) {
            throw fail(spec, file, key, "flag " + o.longestName() + " given twice (also as \"" + before + "\")");
        }
        out.add(new Entry(o, key, tokens(spec, file, key, o, value)));
    }

    private static OptionSpec longOption(CommandSpec spec, String longName) {
        for (OptionSpec o : spec.options()) {
            for (String n : o.names()) {
                if (n.equals(longName)) {
                    return o;
                }
            }
        }
        return null;
    }

    private static List<String> tokens(CommandSpec spec, Path file, String key, OptionSpec o, JsonNode value) {
        String flag = o.longestName();
        if (o.arity().max() == 0) { // a switch
            if (!value.isBoolean()) {
                throw fail(spec, file, key, "expects true or false, got " + kind(value));
            }
            return value.booleanValue() ? List.of(flag) : List.of();
        }
        List<String> tokens = new ArrayList<>();
        if (value.isArray()) {
            if (!o.isMultiValue()) {
                throw fail(spec, file, key, "flag " + flag + " takes one value, not an array");
            }
            for (JsonNode v : value) {
                tokens.add(flag + "=" + text(spec, file, key, o, v));
            }
        } else {
            tokens.add(flag + "=" + text(spec, file, key, o, value));
        }
        return tokens;
    }

    /** One value as the text picocli will convert, after checking its JSON type against the option's type. */
    private static String text(CommandSpec spec, Path file, String key, OptionSpec o, JsonNode v) {
        Class<?> t = o.isMultiValue() && o.auxiliaryTypes().length > 0 ? o.auxiliaryTypes()[0] : o.type();
        if (t == int.class || t == Integer.class || t == short.class || t == Short.class || t == byte.class
                || t == Byte.class) {
            if (!v.isIntegralNumber() || !v.canConvertToInt()) {
                throw fail(spec, file, key, "expects an integer, got " + kind(v));
            }
            return v.asText();
        }
        if (t == long.class || t == Long.class || t == BigInteger.class) {
            if (!v.isIntegralNumber() || (t != BigInteger.class && !v.canConvertToLong())) {
                throw fail(spec, file, key, "expects an integer, got " + kind(v));
            }
            return v.asText();
        }
        if (t == double.class || t == Double.class || t == float.class || t == Float.class || t == BigDecimal.class) {
            if (!v.isNumber()) {
                throw fail(spec, file, key, "expects a number, got " + kind(v));
            }
            return v.isBigDecimal() ? v.decimalValue().toPlainString() : v.asText();
        }
        if (t == boolean.class || t == Boolean.class) {
            if (!v.isBoolean()) {
                throw fail(spec, file, key, "expects true or false, got " + kind(v));
            }
            return v.asText();
        }
        if (!v.isTextual()) { // String, Path, enums, ...: DOCA's string flags take JSON strings
            throw fail(spec, file, key, "expects a string, got " + kind(v));
        }
        return v.textValue();
    }

    private static String kind(JsonNode v) {
        if (v.isTextual()) {
            String s = v.textValue();
            return "the string \"" + (s.length() > 40 ? s.substring(0, 40) + "..." : s) + "\"";
        }
        if (v.isNumber()) {
            return "the number " + v.asText();
        }
        if (v.isBoolean()) {
            return v.asText();
        }
        if (v.isArray()) {
            return "an array";
        }
        if (v.isObject()) {
            return "an object";
        }
        return "null";
    }

    private static String appName(CommandSpec spec) {
        return spec.name() == null || spec.name().startsWith("<") ? "this app" : spec.name();
    }

    private static ArgpJsonException fail(CommandSpec spec, Path file, String key, String problem) {
        String where = "-j " + file + (key == null ? "" : ": key \"" + key + "\"");
        return new ArgpJsonException(spec.commandLine(), where + ": " + problem);
    }
}
