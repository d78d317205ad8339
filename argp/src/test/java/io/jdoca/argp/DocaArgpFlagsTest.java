package io.jdoca.argp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

class DocaArgpFlagsTest {
    @TempDir
    Path dir;

    /** A DOCA-style app: required flags, a repeatable one, a switch and a few types. */
    @Command(name = "demo-app")
    static final class App implements Runnable {
        @Mixin
        DocaArgpFlags argp;

        @Option(names = {"-d", "--device"}, required = true)
        String device;

        @Option(names = "--cpu", required = true)
        List<Integer> cpus;

        @Option(names = "--listen-port")
        int listenPort;

        @Option(names = "--block-size", defaultValue = "4096")
        int blockSize;

        @Option(names = "--run-limit")
        long runLimit;

        @Option(names = "--ratio")
        double ratio;

        @Option(names = "--binary-content")
        Path content;

        @Option(names = "--verify")
        boolean verify;

        @Option(names = {"-l", "--log-level"}, defaultValue = "40")
        int logLevel;

        @Parameters(arity = "0..*")
        List<String> rest = new ArrayList<>();

        @Override
        public void run() {
        }
    }

    private Path json(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    private static App parse(String... args) {
        App app = new App();
        new CommandLine(app).parseArgs(args);
        return app;
    }

    @Test
    void everyFlagCanComeFromTheFileIncludingRequiredOnes() throws IOException {
        Path f = json("all.json", """
                {"device": "sw0", "cpu": [0, 1], "listen-port": 12345, "block-size": 512, "run-limit": 5000000000,
                 "ratio": 0.25, "binary-content": "/tmp/x.sbc", "verify": true, "log-level": 60, "sdk-log-level": 30}
                """);
        App app = parse("-j", f.toString());
        assertThat(app.device).isEqualTo("sw0");
        assertThat(app.cpus).containsExactly(0, 1);
        assertThat(app.listenPort).isEqualTo(12345);
        assertThat(app.blockSize).isEqualTo(512);
        assertThat(app.runLimit).isEqualTo(5_000_000_000L);
        assertThat(app.ratio).isEqualTo(0.25);
        assertThat(app.content).isEqualTo(Path.of("/tmp/x.sbc"));
        assertThat(app.verify).isTrue();
        assertThat(app.logLevel).isEqualTo(60);
        assertThat(app.argp.sdkLogLevel()).isEqualTo(30);
        assertThat(app.argp.json()).isEqualTo(f);
    }

    @Test
    void commandLineWinsWhereverMinusJStands() throws IOException {
        Path f = json("c.json", "{\"device\": \"file-dev\", \"cpu\": [0], \"listen-port\": 1, \"log-level\": 60}");
        for (String[] args : List.of(
                new String[] {"-d", "cli-dev", "--listen-port", "2", "-j", f.toString()},
                new String[] {"-j", f.toString(), "-d", "cli-dev", "--listen-port=2"},
                new String[] {"-dcli-dev", "-j", f.toString(), "--listen-port", "2"})) {
            App app = parse(args);
            assertThat(app.device).as(String.join(" ", args)).isEqualTo("cli-dev");
            assertThat(app.listenPort).as(String.join(" ", args)).isEqualTo(2);
            assertThat(app.cpus).containsExactly(0);
            assertThat(app.logLevel).isEqualTo(60);
        }
    }

    @Test
    void aRepeatableFlagOnTheCommandLineReplacesTheFilesArray() throws IOException {
        Path f = json("r.json", "{\"device\": \"sw0\", \"cpu\": [0, 1, 2]}");
        assertThat(parse("-j", f.toString(), "--cpu", "7").cpus).containsExactly(7);
        assertThat(parse("--cpu", "7", "--cpu", "8", "-j", f.toString()).cpus).containsExactly(7, 8);
        assertThat(parse("-j", f.toString()).cpus).containsExactly(0, 1, 2);
    }

    @Test
    void aScalarForARepeatableFlagIsOneRepetitionAndAnEmptyArrayIsNone() throws IOException {
        assertThat(parse("-j", json("s.json", "{\"device\": \"sw0\", \"cpu\": 3}").toString()).cpus).containsExactly(3);
        Path empty = json("e.json", "{\"device\": \"sw0\", \"cpu\": []}");
        assertThatThrownBy(() -> parse("-j", empty.toString()))
                .isInstanceOf(ParameterException.class).hasMessageContaining("--cpu");
        assertThat(parse("-j", empty.toString(), "--cpu", "1").cpus).containsExactly(1);
    }

    @Test
    void booleansTrueMeansGivenFalseMeansAbsent() throws IOException {
        Path on = json("on.json", "{\"device\": \"sw0\", \"cpu\": 0, \"verify\": true}");
        Path off = json("off.json", "{\"device\": \"sw0\", \"cpu\": 0, \"verify\": false}");
        assertThat(parse("-j", on.toString()).verify).isTrue();
        assertThat(parse("-j", off.toString()).verify).isFalse();
        assertThat(parse("-j", off.toString(), "--verify").verify).isTrue();
    }

    @Test
    void keysMayCarryDashesAndDocasSectionsAreRead() throws IOException {
        Path dashes = json("d.json", "{\"--device\": \"sw1\", \"-cpu\": 4, \"--log-level\": 70}");
        App a = parse("-j", dashes.toString());
        assertThat(a.device).isEqualTo("sw1");
        assertThat(a.cpus).containsExactly(4);
        assertThat(a.logLevel).isEqualTo(70);
        Path sections = json("s.json", """
                {"doca_general_flags": {"log-level": 50, "sdk-log-level": 20},
                 "doca_program_flags": {"device": "03:00.0", "cpu": [0, 1], "listen-port": 12345}}
                """);
        App b = parse("--json", sections.toString());
        assertThat(b.device).isEqualTo("03:00.0");
        assertThat(b.cpus).containsExactly(0, 1);
        assertThat(b.logLevel).isEqualTo(50);
        assertThat(b.argp.sdkLogLevel()).isEqualTo(20);
    }

    @Test
    void attachedFormsOfMinusJWork() throws IOException {
        Path f = json("a.json", "{\"device\": \"sw0\", \"cpu\": 0}");
        assertThat(parse("--json=" + f).device).isEqualTo("sw0");
        assertThat(parse("-j" + f).device).isEqualTo("sw0");
        assertThat(parse("-j" + f, "--listen-port", "9").listenPort).isEqualTo(9);
        assertThat(parse("-d", "x", "-j" + f).device).isEqualTo("x");
        Path g = json("g.json", "{\"listen-port\": 5}");
        App two = parse("-j" + f, "-j" + g);
        assertThat(two.device).isEqualTo("sw0");
        assertThat(two.listenPort).isEqualTo(5);
    }

    @Test
    void valuesStartingWithADashAreValues() throws IOException {
        Path f = json("l.json", "{\"device\": \"-x\", \"cpu\": [-1, 0], \"listen-port\": -1}");
        App app = parse("-j", f.toString());
        assertThat(app.device).isEqualTo("-x");
        assertThat(app.cpus).containsExactly(-1, 0);
        assertThat(app.listenPort).isEqualTo(-1);
    }

    @Test
    void tokensAfterDoubleDashStayPositional() throws IOException {
        Path f = json("p.json", "{\"device\": \"sw0\", \"cpu\": 0}");
        App app = parse("-j", f.toString(), "--", "--device", "x");
        assertThat(app.device).isEqualTo("sw0");
        assertThat(app.rest).containsExactly("--device", "x");
    }

    @Test
    void aLaterFileOverridesAnEarlierOneKeyByKey() throws IOException {
        Path a = json("a.json", "{\"device\": \"first\", \"cpu\": [0], \"listen-port\": 1}");
        Path b = json("b.json", "{\"device\": \"second\"}");
        App app = parse("-j", a.toString(), "-j", b.toString());
        assertThat(app.device).isEqualTo("second");
        assertThat(app.listenPort).isEqualTo(1);
        assertThat(app.argp.json()).isEqualTo(b);
    }

    @Test
    void aCommandObjectCanBeParsedAgainWithoutLeftovers() throws IOException {
        Path f = json("x.json", "{\"device\": \"sw0\", \"cpu\": [0, 1]}");
        App app = new App();
        CommandLine cl = new CommandLine(app);
        cl.parseArgs("-j", f.toString());
        assertThat(app.cpus).containsExactly(0, 1);
        cl.parseArgs("-d", "sw9", "--cpu", "5");
        assertThat(app.device).isEqualTo("sw9");
        assertThat(app.cpus).containsExactly(5);
        assertThat(app.argp.json()).isNull();
        assertThatThrownBy(() -> cl.parseArgs("--cpu", "5")).hasMessageContaining("--device");
    }

    @Test
    void requiredFlagsMissingFromBothAreReportedAsUsual() throws IOException {
        Path f = json("m.json", "{\"cpu\": 0}");
        assertThatThrownBy(() -> parse("-j", f.toString()))
                .isInstanceOf(CommandLine.MissingParameterException.class).hasMessageContaining("--device");
    }

    // ---- errors: one line, naming the file and (when there is one) the key

    private void assertJsonError(String text, String key, String... fragments) throws IOException {
        Path f = json("bad.json", text);
        assertThatThrownBy(() -> parse("-j", f.toString()))
                .isInstanceOf(ArgpJsonException.class)
                .satisfies(e -> {
                    assertThat(e.getMessage()).doesNotContain("\n").contains(f.toString());
                    if (key != null) {
                        assertThat(e.getMessage()).contains("key \"" + key + "\"");
                    }
                    assertThat(e.getMessage()).contains(fragments);
                });
    }

    @Test
    void unknownKeysAreRefused() throws IOException {
        assertJsonError("{\"device\": \"sw0\", \"cpu\": 0, \"listen-prot\": 1}", "listen-prot",
                "unknown flag for demo-app");
        assertJsonError("{\"d\": \"sw0\"}", "d", "unknown flag");
        assertJsonError("{\"\": 1}", "", "unknown flag");
        assertJsonError("{\"doca_dpdk_flags\": {}}", "doca_dpdk_flags", "unknown flag");
        assertJsonError("{\"doca_program_flags\": {\"nope\": 1}}", "nope", "unknown flag");
    }

    @Test
    void wrongTypesAreRefused() throws IOException {
        assertJsonError("{\"listen-port\": \"12345\"}", "listen-port", "expects an integer", "the string \"12345\"");
        assertJsonError("{\"listen-port\": 1.5}", "listen-port", "expects an integer");
        assertJsonError("{\"listen-port\": 4294967296}", "listen-port", "expects an integer");
        assertJsonError("{\"run-limit\": 1e30}", "run-limit", "expects an integer");
        assertJsonError("{\"ratio\": \"x\"}", "ratio", "expects a number");
        assertJsonError("{\"device\": 3}", "device", "expects a string", "the number 3");
        assertJsonError("{\"device\": null}", "device", "expects a string", "null");
        assertJsonError("{\"device\": {\"a\": 1}}", "device", "expects a string", "an object");
        assertJsonError("{\"device\": [\"a\", \"b\"]}", "device", "takes one value, not an array");
        assertJsonError("{\"verify\": \"yes\"}", "verify", "expects true or false");
        assertJsonError("{\"verify\": 1}", "verify", "expects true or false");
        assertJsonError("{\"cpu\": [0, \"1\"]}", "cpu", "expects an integer");
        assertJsonError("{\"cpu\": [[0]]}", "cpu", "expects an integer", "an array");
    }

    @Test
    void keysGivenTwiceAreRefused() throws IOException {
        assertJsonError("{\"device\": \"a\", \"--device\": \"b\"}", "--device", "given twice");
        assertJsonError("{\"device\": \"a\", \"doca_program_flags\": {\"device\": \"b\"}}", "device", "given twice");
        assertJsonError("{\"device\": \"a\", \"device\": \"b\"}", null, "malformed JSON", "Duplicate field 'device'");
    }

    @Test
    void badFilesAreRefused() throws IOException {
        assertJsonError("{\"device\": \"sw0\",", null, "malformed JSON at line 1");
        assertJsonError("{\"device\": \"sw0\"} {}", null, "malformed JSON");
        assertJsonError("", null, "the file is empty");
        assertJsonError("[\"--device\", \"sw0\"]", null, "must be a JSON object", "an array");
        assertJsonError("{\"json\": \"other.json\"}", "json", "cannot name another flag file");
        Path missing = dir.resolve("missing.json");
        assertThatThrownBy(() -> parse("-j", missing.toString()))
                .isInstanceOf(ArgpJsonException.class).hasMessage("-j " + missing + ": cannot read: no such file");
        assertThatThrownBy(() -> parse("-j", dir.toString()))
                .isInstanceOf(ArgpJsonException.class).hasMessageStartingWith("-j " + dir + ": cannot read");
        assertThatThrownBy(() -> parse("-j", "a\u0000b"))
                .isInstanceOf(ArgpJsonException.class).hasMessageContaining("not a file name");
        assertThatThrownBy(() -> parse("-d", "x", "--cpu", "0", "-j"))
                .isInstanceOf(CommandLine.MissingParameterException.class).hasMessageContaining("--json");
    }

    @Test
    void sdkLogLevelIsCheckedAtParseTime() throws IOException {
        assertThat(parse("-d", "x", "--cpu", "0", "--sdk-log-level", "60").argp.sdkLogLevel()).isEqualTo(60);
        assertThat(parse("-d", "x", "--cpu", "0").argp.sdkLogLevel()).isNull();
        assertThatThrownBy(() -> parse("-d", "x", "--cpu", "0", "--sdk-log-level", "80"))
                .isInstanceOf(ParameterException.class).hasMessageContaining("not one of DOCA's 10..70");
        Path f = json("lvl.json", "{\"device\": \"sw0\", \"cpu\": 0, \"sdk-log-level\": 5}");
        assertThatThrownBy(() -> parse("-j", f.toString()))
                .isInstanceOf(ParameterException.class).hasMessageContaining("--sdk-log-level");
    }

    @Test
    void theOneLineHandlerPrintsOneLineAndFailsWithExitCode2() throws IOException {
        Path f = json("h.json", "{\"device\": \"sw0\", \"cpu\": 0, \"bogus\": 1}");
        CommandLine cl = new CommandLine(new App());
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        cl.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        cl.setParameterExceptionHandler(ArgpJsonException.oneLine("jdoca ", cl.getParameterExceptionHandler()));
        assertThat(cl.execute("-j", f.toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .isEqualTo("jdoca demo-app: -j " + f + ": key \"bogus\": unknown flag for demo-app"
                        + " (keys are its long flag names, see --help)" + System.lineSeparator());
        // Other parse errors keep picocli's message and usage.
        err.reset();
        assertThat(cl.execute("--cpu", "0")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Missing required option", "Usage:");
    }

    @Test
    void helpAndVersionAreDocasFlags() {
        assertThat(new CommandLine(new App()).getUsageMessage()).contains("-h, --help", "-v, --version",
                "--sdk-log-level=<10..70>",
                "-j, --json=<path>", "Parse command line flags from an input json file");
        CommandLine cl = new CommandLine(new App());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        cl.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        assertThat(cl.execute("-v")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .isEqualTo(DocaFlags.versionLine() + System.lineSeparator())
                .startsWith("jdoca " + DocaFlags.jdocaVersion() + " (Java ");
        assertThat(DocaFlags.jdocaVersion()).isNotEqualTo("unknown").doesNotContain("${");
    }

    @Test
    void sdkLogLevelSetsTheLibraryLoggersOnly() {
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        Level before = root.getLevel();
        try {
            root.setLevel(Level.WARN); // what the app's -l 40 sets
            App app = parse("-d", "x", "--cpu", "0", "--sdk-log-level", "60");
            app.argp.applySdkLogLevel();
            assertThat(((Logger) LoggerFactory.getLogger("io.jdoca.rdma.Rdma")).getEffectiveLevel())
                    .isEqualTo(Level.DEBUG);
            assertThat(((Logger) LoggerFactory.getLogger("io.jdoca.sta.StaIo")).getEffectiveLevel())
                    .isEqualTo(Level.DEBUG);
            assertThat(((Logger) LoggerFactory.getLogger("io.jdoca.storage.targetrdma.TargetRdma")).getEffectiveLevel())
                    .isEqualTo(Level.WARN);
            assertThat(((Logger) LoggerFactory.getLogger("io.jdoca.nvmf.StaTargetApp")).getEffectiveLevel())
                    .isEqualTo(Level.WARN);
            parse("-d", "x", "--cpu", "0", "--sdk-log-level", "10").argp.applySdkLogLevel();
            assertThat(((Logger) LoggerFactory.getLogger("io.jdoca.ec")).getEffectiveLevel()).isEqualTo(Level.OFF);
        } finally {
            for (String n : DocaFlags.SDK_LOGGERS) {
                ((Logger) LoggerFactory.getLogger(n)).setLevel(null);
            }
            for (String n : DocaFlags.APP_LOGGERS_UNDER_SDK) {
                ((Logger) LoggerFactory.getLogger(n)).setLevel(null);
            }
            root.setLevel(before);
        }
    }

    @Test
    void readListsEntriesInFileOrderWithTheirTokens() throws IOException {
        Path f = json("t.json", "{\"verify\": false, \"cpu\": [1, 2], \"device\": \"sw0\"}");
        CommandLine cl = new CommandLine(new App());
        List<ArgpJson.Entry> entries = ArgpJson.read(f, cl.getCommandSpec(), null);
        assertThat(entries).extracting(ArgpJson.Entry::key).containsExactly("verify", "cpu", "device");
        assertThat(entries).extracting(ArgpJson.Entry::tokens)
                .containsExactly(List.of(), List.of("--cpu=1", "--cpu=2"), List.of("--device=sw0"));
    }
}
