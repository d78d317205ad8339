package io.jdoca.systemtests.sta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * SPDK's own, unmodified {@code rpc.py} (../shared/spdk-rpc) run against one JSON-RPC socket: what the SPDK interop
 * tests share. {@link #locate} finds it or skips the test with the reason; {@link #ok} and {@link #fails} run one
 * call and check its exit status; {@link #json} reads its output as JSON; {@link #result} the {@code result} of the
 * raw response a verbose instance logs.
 *
 * <p>Threads: one test thread.
 */
final class SpdkRpcPy {
    private static final Duration T = Duration.ofSeconds(120);
    private static final ObjectMapper M = new ObjectMapper();

    private final Path rpcPy;
    private final Path sock;
    private final boolean verbose;

    /** rpc.py on {@code sock}; {@code verbose} ({@code -v}) makes it log the raw response ({@link #result}). */
    SpdkRpcPy(Path rpcPy, Path sock, boolean verbose) {
        this.rpcPy = rpcPy;
        this.sock = sock;
        this.verbose = verbose;
    }

    /** The rpc.py under ../shared; the test is skipped, with the reason, without ../shared, rpc.py or python3. */
    static Path locate() {
        Path shared = JavaProcess.sharedDir();
        assumeTrue(shared != null, "SKIPPED: ../shared (SPDK's rpc.py) is absent on this clone");
        Path rpcPy = shared.resolve("spdk-rpc/scripts/rpc.py");
        assumeTrue(Files.isRegularFile(rpcPy), "SKIPPED: " + rpcPy + " not found");
        assumeTrue(python3(), "SKIPPED: python3 is not installed");
        return rpcPy;
    }

    /** Runs one call; checks its exit status (0, or any non-zero when {@code want} is not 0); returns its output. */
    String run(int want, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("python3", rpcPy.toString(), "-s", sock.toString(), "-t", "60"));
        if (verbose) {
            cmd.add("-v");
        }
        cmd.addAll(List.of(args));
        try (JavaProcess p = JavaProcess.startCommand("rpc.py", cmd)) {
            int code = p.awaitExit(T);
            if (want == 0) {
                assertThat(code).as("%s:\n%s", cmd, p.output()).isZero();
            } else {
                assertThat(code).as("%s:\n%s", cmd, p.output()).isNotZero();
            }
            return p.output();
        }
    }

    String ok(String... args) throws Exception {
        return run(0, args);
    }

    String fails(String... args) throws Exception {
        return run(1, args);
    }

    /** The call's output read as JSON (rpc.py prints the result). */
    JsonNode json(String... args) throws Exception {
        return M.readTree(ok(args));
    }

    /** The {@code result} of the response a verbose rpc.py logged ("response:" and the JSON). */
    JsonNode result(String... args) throws Exception {
        assertThat(verbose).as("result() needs a verbose rpc.py").isTrue();
        String out = ok(args);
        int at = out.lastIndexOf("response:");
        assertThat(at).as(out).isNotNegative();
        try (JsonParser p = M.createParser(out.substring(out.indexOf('{', at)))) {
            JsonNode resp = M.readTree(p);
            assertThat(resp.has("result")).as(out).isTrue();
            return resp.get("result");
        }
    }

    private static boolean python3() {
        try {
            Process p = new ProcessBuilder("python3", "--version").redirectErrorStream(true).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
