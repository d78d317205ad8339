package io.jdoca.argp;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Stack;
import picocli.CommandLine.IParameterPreprocessor;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/**
 * All of DOCA argp's general flags as a picocli mixin: {@link DocaFlags}' {@code -h}, {@code -v},
 * {@code --sdk-log-level}, plus {@code -j/--json <path>}, which reads more flags from a JSON file
 * (format and rules: {@link ArgpJson}). Flags given on the command line win over the file, wherever
 * {@code -j} stands; required options may come from the file alone. Use it with
 * {@code @Mixin DocaArgpFlags argp;} (instead of {@code mixinStandardHelpOptions}).
 *
 * <p>How: {@code -j}'s preprocessor reads and checks the file at once (every error names the file
 * and key), then leaves a marker after the last command-line option. When picocli reaches the marker
 * every command-line flag has been matched, so the file's values are pushed back as ordinary
 * {@code --name=value} tokens for exactly the options the command line did not set. picocli then
 * converts and validates them as if typed.
 *
 * <p>Thread rules: as {@link DocaFlags}; one parse at a time per command object.
 */
public class DocaArgpFlags extends DocaFlags {
    @Option(names = {"-j", "--json"}, paramLabel = "<path>", preprocessor = JsonPreprocessor.class,
            description = "Parse command line flags from an input json file (keys: long flag names; "
                    + "flags on the command line win).")
    Path json;

    /** The {@code -j} file given (the last one if several), or null. */
    public Path json() {
        return json;
    }

    /** {@code -j}'s preprocessor: one instance per command spec, so its state is per command object. */
    static final class JsonPreprocessor implements IParameterPreprocessor {
        /** Cannot come from a real command line: argv strings cannot hold NUL. */
        static final String MARKER = "\u0000jdoca-argp-json-apply";

        /** The parse these entries belong to (picocli uses one argument stack per parse). */
        private Stack<String> parse;
        private boolean markerPushed;
        private final Map<OptionSpec, ArgpJson.Entry> pending = new LinkedHashMap<>();

        @Override
        public boolean preprocess(Stack<String> args, CommandSpec spec, ArgSpec argSpec, Map<String, Object> info) {
            if (parse != args) { // a new parse: forget what an earlier (perhaps failed) one left
                parse = args;
                markerPushed = false;
                pending.clear();
            }
            OptionSpec self = (OptionSpec) argSpec;
            if (args.isEmpty()) {
                throw new MissingParameterException(spec.commandLine(), argSpec,
                        "Missing required parameter for option '" + self.longestName() + "' ("
                                + self.paramLabel() + ")");
            }
            String value = args.pop();
            if (value.equals(MARKER)) {
                applyPending(args);
                return true;
            }
            Path file;
            try {
                file = Path.of(value);
            } catch (InvalidPathException e) {
                throw new ArgpJsonException(spec.commandLine(),
                        "-j " + value + ": not a file name (" + e.getReason() + ")");
            }
            self.setValue(file);
            for (ArgpJson.Entry e : ArgpJson.read(file, spec, self)) {
                pending.put(e.option(), e); // a later -j file overrides an earlier one key by key
            }
            if (!markerPushed) {
                pushMarker(args, self.longestName());
                markerPushed = true;
            }
            if ("".equals(info.get("separator"))) {
                // "-jFILE" came from a short-option cluster: picocli goes on with the cluster when the
                // stack did not shrink, popping the next token as more of it. An empty token ends it.
                args.push("");
            }
            return true;
        }

        /** Puts "--json MARKER" after the last option token: before "--" if there is one, else at the end. */
        private static void pushMarker(Stack<String> args, String name) {
            int at = 0; // index 0 is the bottom of the stack: processed last
            for (int i = args.size() - 1; i >= 0; i--) {
                if (args.get(i).equals("--")) {
                    at = i + 1;
                    break;
                }
            }
            args.insertElementAt(MARKER, at);
            args.insertElementAt(name, at + 1);
        }

        private void applyPending(Stack<String> args) {
            List<String> tokens = new ArrayList<>();
            for (ArgpJson.Entry e : pending.values()) {
                if (e.option().originalStringValues().isEmpty()) { // not on the command line: the file's value
                    tokens.addAll(e.tokens());
                }
            }
            pending.clear();
            for (int i = tokens.size() - 1; i >= 0; i--) {
                args.push(tokens.get(i));
            }
        }
    }
}
