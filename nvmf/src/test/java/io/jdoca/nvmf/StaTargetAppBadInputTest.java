package io.jdoca.nvmf;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.testkit.Await;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * Every bad configuration value or flag: exit 1 and one line on stderr naming the field or flag,
 * no stack trace, nothing left running (fails on main: stack traces, OutOfMemoryError, a bad NQN
 * accepted, "Range [0, -1) out of bounds" for --listen foo).
 */
class StaTargetAppBadInputTest {
    @TempDir
    Path dir;

    record Run(int rc, String err) {
    }

    Run run(String json, String... flags) {
        Path cfg = dir.resolve("t.json");
        try {
            Files.writeString(cfg, json.replace("$DIR", dir.toString()));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        List<String> args = new ArrayList<>(List.of("-j", cfg.toString()));
        args.addAll(List.of(flags));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream old = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int rc;
        try {
            rc = new CommandLine(new StaTargetApp()).execute(args.toArray(String[]::new));
        } finally {
            System.setErr(old);
        }
        return new Run(rc, err.toString(StandardCharsets.UTF_8));
    }

    static final String NS = "{\"subsystems\":[{\"nqn\":\"nqn.2024-01.io.jdoca:t\",\"namespaces\":[%s]}]}";

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "size_mb -5           | {\"backend\":\"memory\",\"size_mb\":-5}                     | "
                + "subsystems[0].namespaces[0].size_mb",
        "block_size 1000      | {\"backend\":\"memory\",\"size_mb\":4,\"block_size\":1000}  | "
                + "subsystems[0].namespaces[0].block_size",
        "duplicate nsid       | {\"nsid\":1,\"backend\":\"null\",\"size_mb\":4},{\"nsid\":1,\"backend\":\"null\","
                + "\"size_mb\":4} | subsystems[0].namespaces[1].nsid",
        "file in missing dir  | {\"backend\":\"file\",\"path\":\"$DIR/no/such/x.img\",\"size_mb\":4} | "
                + "subsystems[0].namespaces[0].path: directory",
        "size_mb 1e9          | {\"backend\":\"memory\",\"size_mb\":1e9}                    | "
                + "subsystems[0].namespaces[0].size_mb",
        "size_mb 10^9         | {\"backend\":\"memory\",\"size_mb\":1000000000}             | size_mb: 1000000000 MiB "
                + "of RAM namespaces is more than",
        "size_mb huge         | {\"backend\":\"memory\",\"size_mb\":99999999999999999}      | "
                + "subsystems[0].namespaces[0].size_mb",
        "unknown backend      | {\"backend\":\"tape\",\"size_mb\":4}                        | "
                + "subsystems[0].namespaces[0].backend",
        "bad uuid             | {\"backend\":\"null\",\"size_mb\":4,\"uuid\":\"x\"}          | "
                + "subsystems[0].namespaces[0].uuid",
        "unknown key          | {\"backend\":\"null\",\"size_mb\":4,\"colour\":1}            | "
                + "subsystems[0].namespaces[0].colour",
    })
    void badNamespace(String name, String ns, String field) {
        expectOneLine(run(NS.formatted(ns)), field);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "max_io_size 1000     | {\"max_io_size\":1000}                                     | max_io_size",
        "io_threads 0         | {\"io_threads\":0}                                         | io_threads",
        "nqn not-an-nqn       | {\"subsystems\":[{\"nqn\":\"not-an-nqn\"}]}                | subsystems[0].nqn",
        "discovery nqn        | {\"subsystems\":[{\"nqn\":\"nqn.2014-08.org.nvmexpress.discovery\"}]} | "
                + "subsystems[0].nqn",
        "nqn twice            | {\"subsystems\":[{\"nqn\":\"nqn.2024-01.io.jdoca:a\"},"
                + "{\"nqn\":\"nqn.2024-01.io.jdoca:a\"}]} | subsystems[1].nqn",
        "host not an nqn      | {\"subsystems\":[{\"nqn\":\"nqn.2024-01.io.jdoca:a\",\"hosts\":[\"h\"]}]} | "
                + "subsystems[0].hosts[0]",
        "serial too long      | {\"subsystems\":[{\"nqn\":\"nqn.2024-01.io.jdoca:a\","
                + "\"serial_number\":\"012345678901234567890\"}]} | subsystems[0].serial_number",
        "listener address     | {\"listeners\":[{\"address\":\"foo\",\"port\":4420}]}       | listeners[0].address",
        "listener port        | {\"listeners\":[{\"address\":\"127.0.0.1\",\"port\":70000}]} | listeners[0].port",
        "listener no port     | {\"listeners\":[{\"address\":\"127.0.0.1\"}]}               | listeners[0]",
        "sub listener address | {\"subsystems\":[{\"nqn\":\"nqn.2024-01.io.jdoca:a\",\"listeners\":[{\"address\":\"x\","
                + "\"port\":1}]}]} | subsystems[0].listeners[0].address",
        "unknown top key      | {\"io_thread\":2}                                          | io_thread",
        "not json             | {\"io_threads\":                                           | not valid JSON",
        "rpc socket dir       | {\"rpc_socket\":\"$DIR/no/such/r.sock\"}                   | rpc_socket: directory",
    })
    void badConfig(String name, String json, String field) {
        expectOneLine(run(json), field);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "--listen foo         | --listen      | foo",
        "--listen no port     | --listen      | 127.0.0.1:",
        "--listen bad port    | --listen      | 127.0.0.1:x",
        "--listen port range  | --listen      | 127.0.0.1:65536",
        "--listen bad address | --listen      | localhost:4420",
        "--io-threads 0       | --io-threads  | 0",
        "--rpc-socket empty   | --rpc-socket  | ' '",
        "-m CPU out of range  | -m            | 0x100000000",
        "-m not a mask        | -m            | 0xg",
        "--metrics-port range | --metrics-port | 70000",
        "--metrics-address    | --metrics-address | localhost",
    })
    void badFlag(String name, String flag, String value) {
        expectOneLine(run("{}", flag, value), flag);
    }

    @Test
    void missingJsonFile() {
        Run r = runArgs("-j", dir.resolve("absent.json").toString());
        expectOneLine(r, "--json");
    }

    /** Issue 16: a metrics port that is taken is one line, and the target does not stay up. */
    @Test
    void takenMetricsPort() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Run r = run("{}", "--metrics-port", String.valueOf(taken.getLocalPort()));
            expectOneLine(r, "--metrics-port " + taken.getLocalPort() + ": cannot listen on 127.0.0.1");
        }
        Await.until(Duration.ofSeconds(20), () -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.isAlive() && (t.getName().startsWith("sta-io") || t.getName().equals("sta-main"))),
                "target threads to end");
    }

    /** Issue 16: -c with SPDK's config form: a bad entry is one line naming it, nothing is left running. */
    @Test
    void badSpdkConfig() throws Exception {
        Path c = dir.resolve("spdk.json");
        Files.writeString(c, "{\"subsystems\":[{\"subsystem\":\"bdev\",\"config\":[{\"method\":\"bdev_malloc_create\","
                + "\"params\":{\"name\":\"M\",\"num_blocks\":16,\"block_size\":1000}}]}]}");
        expectOneLine(runArgs("-c", c.toString()), "-c " + c
                + ": subsystems[0].config[0] (bdev_malloc_create): block_size");
        expectOneLine(runArgs("-c", dir.resolve("absent.json").toString()), "no such file");
        Files.writeString(c, "{\"bdev\": 1}");
        expectOneLine(runArgs("-c", c.toString()), "not SPDK's config form");
    }

    Run runArgs(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream old = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            return new Run(new CommandLine(new StaTargetApp()).execute(args), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(old);
        }
    }

    static void expectOneLine(Run r, String field) {
        assertThat(r.rc()).as(r.err()).isEqualTo(1);
        List<String> lines = r.err().lines().filter(l -> !l.isBlank()).toList();
        assertThat(lines).as(r.err()).hasSize(1);
        assertThat(lines.get(0)).startsWith("sta-target: ").contains(field).doesNotContain("Exception")
                .doesNotContain("\tat ");
    }

    /** A configuration that fails halfway (second listener cannot bind) leaves no listener, file or thread behind. */
    @Test
    void failureHalfwayLeavesNothingBehind() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path img = dir.resolve("new.img");
        Run r = run("""
                {"listeners":[{"address":"127.0.0.1","port":%d},{"address":"127.0.0.1","port":%d}],
                 "subsystems":[{"nqn":"nqn.2024-01.io.jdoca:h",
                                "namespaces":[{"backend":"file","path":"%s","size_mb":1}]}]}
                """.formatted(port, port, img));
        expectOneLine(r, "cannot listen on 127.0.0.1:" + port);
        assertThat(img).doesNotExist();
        Await.until(Duration.ofSeconds(20), () -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.isAlive() && (t.getName().startsWith("sta-listen") || t.getName().startsWith("sta-io")
                        || t.getName().equals("sta-main"))), "target threads to end");
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertThat(s.getLocalPort()).as("the first listener was closed").isEqualTo(port);
        }
    }
}
