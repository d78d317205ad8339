package io.jdoca.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Compiles a small C program with the system's C compiler and runs it, for the tests that check
 * the project's FFM bindings (struct layouts, syscall numbers, flag values) against the installed
 * headers: the program prints what the headers say, the test compares it with the Java constants.
 *
 * <p>No compiler on {@code PATH} (cc, gcc, clang) skips the calling test with a message naming
 * {@code what} (a JUnit assumption); a program that does not compile or exits non-zero fails it
 * with the compiler's or the program's output. Test threads only; stateless.
 */
public final class CProgram {
    private CProgram() {
    }

    /** The first of cc, gcc, clang on {@code PATH}, or null. */
    public static String compiler() {
        for (String cc : List.of("cc", "gcc", "clang")) {
            for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
                if (!d.isEmpty() && Files.isExecutable(Path.of(d, cc))) {
                    return Path.of(d, cc).toString();
                }
            }
        }
        return null;
    }

    /**
     * Writes {@code source} to {@code dir}, compiles it (with {@code ccFlags}), runs it and returns
     * what it printed (stdout and stderr), stripped. {@code what} names the check in the skip
     * message, e.g. "linux/io_uring.h".
     */
    public static String run(Path dir, String what, String source, String... ccFlags)
            throws IOException, InterruptedException {
        String cc = compiler();
        assumeTrue(cc != null, "skipped: no C compiler (cc, gcc, clang) on PATH to read " + what);
        Path src = dir.resolve("probe.c");
        Path exe = dir.resolve("probe");
        Files.writeString(src, source);
        List<String> cmd = new ArrayList<>(List.of(cc));
        cmd.addAll(List.of(ccFlags));
        cmd.addAll(List.of("-o", exe.toString(), src.toString()));
        Result compiled = exec(cmd);
        assertThat(compiled.rc()).as("compiling the probe of %s:%n%s%n%s", what, compiled.out(), source).isZero();
        Result ran = exec(List.of(exe.toString()));
        assertThat(ran.rc()).as("running the probe of %s:%n%s", what, ran.out()).isZero();
        return ran.out().strip();
    }

    /** A finished command: its exit status (-1 if it timed out) and its output (stdout and stderr). */
    public record Result(int rc, String out) {
    }

    /** Runs {@code cmd} for at most 60 s and returns its status and output. */
    public static Result exec(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return new Result(-1, "timed out: " + cmd);
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
