package io.jdoca.nvmf.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.tgt.NvmfTarget;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * sta-rpc's own checks and its error lines: a bad argument or a refused call is one line on stderr
 * and a non-zero exit (fails on main: {@code nqn=bad} printed {@code true}; removing a missing
 * namespace printed an ExecutionException).
 */
class StaRpcAppTest {
    @TempDir
    static Path dir;
    static NvmfTarget target;
    static RpcServer server;
    static Path sock;

    @BeforeAll
    static void up() throws Exception {
        target = new NvmfTarget(TargetConfig.parse("{\"subsystems\":[{\"nqn\":\"nqn.2024-01.io.jdoca:a\"}]}"));
        target.start();
        sock = dir.resolve("r.sock");
        server = new RpcServer(target, sock);
        server.start();
    }

    @AfterAll
    static void down() {
        server.close();
        target.close();
    }

    record Run(int rc, String out, String err) {
    }

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = System.out;
        PrintStream e = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int rc = new CommandLine(new StaRpcApp()).execute(args);
            return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(o);
            System.setErr(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "nqn=bad                 | nvmf_create_subsystem nqn=bad                              | 1 | error -32602: "
                + "Invalid parameters: nqn: \"bad\" is not an NQN",
        "missing namespace       | nvmf_subsystem_remove_ns nqn=nqn.2024-01.io.jdoca:a nsid=3 | 1 | error -32602: "
                + "Invalid parameters: nsid: no namespace 3",
        "no such subsystem       | nvmf_delete_subsystem nqn=nqn.2024-01.io.jdoca:zz          | 1 | error -32602",
        "not key=value           | nvmf_delete_subsystem nqn                                  | 1 | \"nqn\": expected "
                + "key=value",
        "key twice               | nvmf_delete_subsystem nqn=a nqn=b                          | 1 | nqn given twice",
        "bad key                 | nvmf_delete_subsystem 9x=1                                 | 1 | \"9x\" is not a "
                + "parameter name",
        "bad JSON value          | nvmf_delete_subsystem nqn={oops}                           | 1 | nqn: \"{oops}\" is "
                + "not valid JSON",
        "bad JSON object         | nvmf_delete_subsystem {oops                                | 1 | params: not a JSON "
                + "object",
        "bad method name         | nvmf-get                                                   | 1 | is not a method "
                + "name",
        "unknown method          | nvmf_get_everything                                        | 1 | error -32601",
    })
    void badCallsGiveOneLineAndNonZeroExit(String name, String args, int rc, String text) {
        List<String> a = new ArrayList<>(List.of("-s", sock.toString()));
        a.addAll(List.of(args.split(" ")));
        Run r = run(a.toArray(String[]::new));
        assertThat(r.rc()).as(r.err()).isEqualTo(rc);
        assertThat(r.out()).isEmpty();
        List<String> lines = r.err().lines().filter(l -> !l.isBlank()).toList();
        assertThat(lines).as(r.err()).hasSize(1);
        assertThat(lines.get(0)).startsWith("sta-rpc: ").contains(text).doesNotContain("Exception");
        assertThat(target.subsystems()).hasSize(2);
    }

    @Test
    void unreachableSocketIsExitTwo() {
        Run r = run("-s", dir.resolve("none.sock").toString(), "rpc_get_methods");
        assertThat(r.rc()).isEqualTo(2);
        assertThat(r.err().trim()).startsWith("sta-rpc: cannot reach ").doesNotContain("\n");
    }
}
