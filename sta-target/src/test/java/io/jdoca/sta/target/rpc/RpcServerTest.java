package io.jdoca.sta.target.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jdoca.sta.target.config.TargetConfig;
import io.jdoca.sta.target.nvmf.NvmfTarget;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The JSON-RPC management methods, through {@link RpcServer#handle} and over the socket with sta-rpc. */
class RpcServerTest {
    static final ObjectMapper M = new ObjectMapper();

    @TempDir
    Path dir;

    static JsonNode call(RpcServer s, String json) throws Exception {
        return M.readTree(s.handle(json));
    }

    @Test
    void managementMethods() throws Exception {
        try (NvmfTarget t = new NvmfTarget(TargetConfig.parse("{\"io_threads\":1}"))) {
            t.start();
            Path sock = dir.resolve("rpc.sock");
            RpcServer s = new RpcServer(t, sock);
            s.start();
            try {
                assertTrue(call(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"rpc_get_methods\"}").get("result").toString()
                        .contains("nvmf_subsystem_add_ns"));
                JsonNode r = call(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"nvmf_create_subsystem\","
                        + "\"params\":{\"nqn\":\"nqn.2024-01.io.jdoca:rpc\",\"allow_any_host\":false}}");
                assertEquals(true, r.get("result").asBoolean(), r.toString());
                r = call(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"nvmf_subsystem_add_ns\",\"params\":{\"nqn\":"
                        + "\"nqn.2024-01.io.jdoca:rpc\",\"namespace\":{\"backend\":\"memory\",\"size_mb\":4,\"block_size\":512}}}");
                assertEquals(1, r.get("result").asInt(), r.toString());
                r = call(s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"nvmf_subsystem_add_host\",\"params\":{\"nqn\":"
                        + "\"nqn.2024-01.io.jdoca:rpc\",\"host\":\"nqn.h1\"}}");
                assertEquals(true, r.get("result").asBoolean());
                r = call(s, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"nvmf_subsystem_add_listener\",\"params\":"
                        + "{\"listen_address\":{\"traddr\":\"127.0.0.1\",\"trsvcid\":\"0\"}}}");
                assertTrue(r.get("result").asInt() > 0, r.toString());
                r = call(s, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"nvmf_get_subsystems\"}");
                String subs = r.get("result").toString();
                assertTrue(subs.contains("nqn.2014-08.org.nvmexpress.discovery"), subs);
                assertTrue(subs.contains("\"nqn.h1\"") && subs.contains("\"block_size\":512"), subs);
                r = call(s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"nvmf_subsystem_remove_ns\",\"params\":{\"nqn\":"
                        + "\"nqn.2024-01.io.jdoca:rpc\",\"nsid\":1}}");
                assertEquals(true, r.get("result").asBoolean(), r.toString());
                r = call(s, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"nvmf_subsystem_remove_host\",\"params\":{\"nqn\":"
                        + "\"nqn.2024-01.io.jdoca:rpc\",\"host\":\"nqn.h1\"}}");
                assertEquals(true, r.get("result").asBoolean());
                r = call(s, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"nvmf_get_stats\"}");
                assertTrue(r.get("result").toString().contains("\"scope\":\"engine\""), r.toString());
                r = call(s, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"nvmf_delete_subsystem\",\"params\":{\"nqn\":\"nqn.2024-01.io.jdoca:rpc\"}}");
                assertEquals(true, r.get("result").asBoolean(), r.toString());
                // errors
                assertEquals(-32601, call(s, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"nope\"}").get("error").get("code").asInt());
                assertEquals(-32700, call(s, "{not json").get("error").get("code").asInt());
                assertEquals(-32602, call(s, "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"nvmf_delete_subsystem\"}").get("error").get("code").asInt());
                JsonNode missing = call(s, "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"nvmf_delete_subsystem\",\"params\":{\"nqn\":\"x\"}}");
                assertTrue(missing.get("error").get("message").asText().contains("no subsystem"));

                // Over the socket with the sta-rpc client.
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                PrintStream old = System.out;
                System.setOut(new PrintStream(out, true));
                int rc;
                try {
                    rc = new CommandLine(new StaRpcApp()).execute("-s", sock.toString(), "nvmf_create_subsystem",
                            "nqn=nqn.2024-01.io.jdoca:cli", "allow_any_host=true");
                } finally {
                    System.setOut(old);
                }
                assertEquals(0, rc);
                assertEquals("true", out.toString().trim());
                assertTrue(t.subsystem("nqn.2024-01.io.jdoca:cli").allowAnyHost());
            } finally {
                s.close();
            }
        }
    }

    @Test
    void subsystemRestrictedToItsListener() throws Exception {
        try (NvmfTarget t = new NvmfTarget(TargetConfig.parse(
                "{\"io_threads\":1,\"listeners\":[{\"address\":\"127.0.0.1\",\"port\":0}],"
                + "\"subsystems\":[{\"nqn\":\"nqn.open\",\"allow_any_host\":true},"
                + "{\"nqn\":\"nqn.only\",\"allow_any_host\":true}]}"))) {
            t.start();
            int general = (Integer) t.listeners().get(0).get("port");
            RpcServer s = new RpcServer(t, dir.resolve("r.sock"));
            JsonNode r = call(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"nvmf_subsystem_add_listener\",\"params\":"
                    + "{\"nqn\":\"nqn.only\",\"listen_address\":{\"traddr\":\"127.0.0.1\",\"trsvcid\":\"0\"}}}");
            int own = r.get("result").asInt();
            assertTrue(own > 0 && own != general, r.toString());
            try (io.jdoca.sta.target.perf.NvmeTcpHost h = new io.jdoca.sta.target.perf.NvmeTcpHost("127.0.0.1", general, false, false, 8, 8192)) {
                h.initialize();
                assertEquals(io.jdoca.sta.nvme.NvmeStatus.CONNECT_INVALID_PARAMETERS, h.connect(0, 31, "nqn.only", "nqn.h", 0xffff, 0)[0]);
            }
            try (io.jdoca.sta.target.perf.NvmeTcpHost h = new io.jdoca.sta.target.perf.NvmeTcpHost("127.0.0.1", own, false, false, 8, 8192)) {
                h.initialize();
                assertEquals(0, h.connect(0, 31, "nqn.only", "nqn.h", 0xffff, 0)[0]);
            }
            try (io.jdoca.sta.target.perf.NvmeTcpHost h = new io.jdoca.sta.target.perf.NvmeTcpHost("127.0.0.1", own, false, false, 8, 8192)) {
                h.initialize();
                assertEquals(0, h.connect(0, 31, "nqn.open", "nqn.h", 0xffff, 0)[0], "unrestricted: every listener");
            }
            String subs = call(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"nvmf_get_subsystems\"}").get("result").toString();
            assertTrue(subs.contains("\"nqn.only\""), subs);
        }
    }

    @Test
    void exampleConfigLoadsAndUnknownKeysAreRejected() throws Exception {
        Path ex = Path.of(System.getProperty("user.dir")).resolve("../examples/sta-target.json").normalize();
        TargetConfig c = TargetConfig.load(ex);
        assertEquals("nqn.2024-01.io.jdoca:demo", c.subsystems().get(0).nqn());
        assertEquals(256, c.subsystems().get(0).namespaces().get(0).sizeMb());
        assertEquals(4096, c.subsystems().get(0).namespaces().get(0).blockSize());
        assertEquals(4420, c.listeners().get(0).port());
        assertEquals("127.0.0.1", c.listeners().get(0).address());
        assertTrue(c.subsystems().get(0).allowAnyHost());
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"io_thread\": 2}");
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(Exception.class, () -> TargetConfig.load(bad))
                .getMessage().contains("io_thread"));
    }
}
