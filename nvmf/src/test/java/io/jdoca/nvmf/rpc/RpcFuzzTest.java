package io.jdoca.nvmf.rpc;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.tgt.NvmfTarget;
import java.nio.file.Path;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Fuzzes the JSON-RPC request parser and dispatch (outside input from the management socket):
 * arbitrary text and well-formed requests with random methods and parameter values always get
 * one JSON-RPC response (result or error), never an exception, and the target keeps running.
 */
class RpcFuzzTest {
    static final ObjectMapper M = new ObjectMapper();
    static NvmfTarget target;
    static RpcServer rpc;

    @BeforeContainer
    static void up() throws Exception {
        target = new NvmfTarget(TargetConfig.parse("{\"subsystems\":[{\"nqn\":\"nqn.rpcfuzz\","
                + "\"allow_any_host\":true}]}"));
        target.start();
        rpc = new RpcServer(target, Path.of(System.getProperty("java.io.tmpdir"), "jdoca-rpcfuzz-"
                + ProcessHandle.current().pid()));
    }

    @AfterContainer
    static void down() {
        target.close();
    }

    private static void answered(String req) throws Exception {
        JsonNode r = M.readTree(rpc.handle(req));
        assertTrue(r.has("result") ^ r.has("error"), r.toString());
        assertTrue("2.0".equals(r.path("jsonrpc").asText()), r.toString());
    }

    @Property(tries = 300)
    void arbitraryText(@ForAll String line) throws Exception {
        answered(line);
    }

    @Provide
    Arbitrary<String> values() {
        return Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(40).map(s -> M.valueToTree(s).toString()),
                Arbitraries.integers().map(String::valueOf), Arbitraries.of("true", "false", "null", "{}", "[]",
                        "{\"backend\":\"memory\",\"size_mb\":1}", "{\"traddr\":\"127.0.0.1\",\"trsvcid\":\"x\"}",
                        "\"nqn.rpcfuzz\"", "-1", "99999999999", "{\"backend\":\"file\",\"path\":\"/nonexistent/x\"}"));
    }

    @Property(tries = 300)
    void randomMethodsAndParams(@ForAll("methodNames") String method, @ForAll("keys") String k1,
            @ForAll("values") String v1,
                                @ForAll("keys") String k2, @ForAll("values") String v2) throws Exception {
        answered("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + method + "\",\"params\":{\"" + k1 + "\":" + v1 + ",\""
                + k2 + "\":" + v2 + "}}");
    }

    @Provide
    Arbitrary<String> methodNames() {
        // Not add_listener: binding real ports could disturb other processes on this machine.
        return Arbitraries.of(RpcServer.METHODS.stream().filter(m ->
                !m.equals("nvmf_subsystem_add_listener")).toArray(String[]::new));
    }

    @Provide
    Arbitrary<String> keys() {
        return Arbitraries.of("nqn", "nsid", "host", "namespace", "listen_address", "backend", "size_mb", "block_size",
                "serial_number", "allow_any_host", "path", "x");
    }
}
