package io.jdoca.nvmf.perf;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/**
 * Runs {@code nvme-perf} in-process with its standard output and error captured, for tests of its flags
 * and of the connections it makes. Serialized (it swaps {@link System#out} and {@link System#err}).
 */
public final class PerfRun {
    private PerfRun() {
    }

    /** Exit code, standard output, standard error (without the test class path's SLF4J notice). */
    public record Out(int rc, String out, String err) {
    }

    /** {@code nvme-perf args...}. */
    public static synchronized Out run(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int rc;
        try {
            rc = new CommandLine(new NvmePerfApp()).execute(args);
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
        // (the test class path has no SLF4J provider: drop its notice)
        String e = err.toString(StandardCharsets.UTF_8).lines().filter(l -> !l.startsWith("SLF4J"))
                .reduce("", (a, b) -> a + b + "\n");
        return new Out(rc, out.toString(StandardCharsets.UTF_8), e);
    }
}
