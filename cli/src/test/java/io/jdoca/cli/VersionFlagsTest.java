package io.jdoca.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.argp.DocaFlags;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Issue 30: every app answers its version flag with the same one line ({@link DocaFlags#versionLine()}),
 * the launcher too: {@code -v} and {@code --version}, except where the tool an app mirrors gives
 * {@code -v} another meaning (rping's -v/-V, spdk_nvme_perf's -v full help and -V VMD): there
 * {@code --version} only. Fails on the commit before: demo -V, bench --version, nvme-perf --version and
 * sta-rpc --version printed nothing; the DOCA apps printed three lines naming themselves.
 */
class VersionFlagsTest {
    /** Apps whose -v belongs to the tool they mirror. */
    private static final Set<String> LONG_ONLY = Set.of("rdma-rping", "nvme-perf");

    record Out(int rc, String out, String err) {
    }

    private static Out run(String... args) {
        CommandLine cl = Main.commandLine();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        cl.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        cl.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        int rc = cl.execute(args);
        return new Out(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void everyAppPrintsTheSameOneVersionLine() {
        String line = DocaFlags.versionLine() + System.lineSeparator();
        assertThat(DocaFlags.versionLine()).matches("jdoca \\d+\\.\\d+\\.\\d+\\S* \\(Java \\S+, .+\\)");
        List<List<String>> asked = new ArrayList<>();
        asked.add(List.of("--version"));
        asked.add(List.of("-v"));
        for (Map.Entry<String, Object> app : Main.apps().entrySet()) {
            asked.add(List.of(app.getKey(), "--version"));
            if (!LONG_ONLY.contains(app.getKey())) {
                asked.add(List.of(app.getKey(), "-v"));
            }
        }
        for (List<String> args : asked) {
            Out o = run(args.toArray(String[]::new));
            assertThat(o.rc()).as(String.join(" ", args)).isZero();
            assertThat(o.out()).as(String.join(" ", args)).isEqualTo(line);
            assertThat(o.err()).as(String.join(" ", args)).isEmpty();
        }
        assertThat(asked).hasSizeGreaterThan(2 * 12);
    }

    @Test
    void dashCapitalVIsNotASecondVersionFlag() {
        for (String app : List.of("demo", "bench", "devices", "dma-copy", "sta-rpc", "sta-target")) {
            Out o = run(app, "-V");
            assertThat(o.rc()).as(app + " -V").isNotZero();
            assertThat(o.out()).as(app + " -V").doesNotContain("jdoca " + DocaFlags.jdocaVersion());
        }
    }
}
