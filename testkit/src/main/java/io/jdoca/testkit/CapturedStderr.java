package io.jdoca.testkit;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.IntSupplier;
import java.util.stream.Collectors;

/**
 * Runs an in-process app entry point with {@code System.err} captured, for the "bad flag is one
 * line and a non-zero exit" tests. SLF4J's first-use notice (the test classpath has no provider) is
 * not the app's output and is dropped. Not thread-safe: swaps the process-wide stream.
 */
public record CapturedStderr(int exitCode, String text) {
    public static CapturedStderr run(IntSupplier app) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream old = System.err;
        int rc;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            rc = app.getAsInt();
        } finally {
            System.setErr(old);
        }
        String text = err.toString(StandardCharsets.UTF_8).lines()
                .filter(l -> !l.startsWith("SLF4J")).collect(Collectors.joining("\n"));
        return new CapturedStderr(rc, text);
    }
}
