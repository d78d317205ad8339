package io.jdoca.nvmf.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.perf.NvmeTcpHost;
import io.jdoca.nvmf.tgt.NvmfSubsystem;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.testkit.Await;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** The JSON-RPC management methods, through {@link RpcServer#handle} and over the socket with sta-rpc. */
class RpcServerTest {
    static final ObjectMapper M = new ObjectMapper();
    static final String SUB = "nqn.2024-01.io.jdoca:rpc";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-0000000000a1";

    @TempDir
    Path dir;

    static JsonNode call(RpcServer s, String json) throws Exception {
        return M.readTree(s.handle(json));
    }

    static JsonNode req(RpcServer s, String method, String params) throws Exception {
        return call(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + method + "\"" + (params == null
                ? "" : ",\"params\":" + params) + "}");
    }

    static NvmfTarget target() throws Exception {
        NvmfTarget t = new NvmfTarget(TargetConfig.parse("{\"io_threads\":1}"));
        t.start();
        return t;
    }

    @Test
    void managementMethods() throws Exception {
        try (NvmfTarget t = target()) {
            Path sock = dir.resolve("rpc.sock");
            RpcServer s = new RpcServer(t, sock);
            s.start();
            try {
                assertTrue(req(s, "rpc_get_methods", null).get("result").toString().contains("nvmf_subsystem_add_ns"));
                JsonNode r = req(s, "nvmf_create_subsystem", "{\"nqn\":\"" + SUB + "\",\"allow_any_host\":false}");
                assertEquals(true, r.get("result").asBoolean(), r.toString());
                r = req(s, "nvmf_subsystem_add_ns", "{\"nqn\":\"" + SUB
                        + "\",\"namespace\":{\"backend\":\"memory\",\"size_mb\":4,\"block_size\":512}}");
                assertEquals(1, r.get("result").asInt(), r.toString());
                r = req(s, "nvmf_subsystem_add_host", "{\"nqn\":\"" + SUB + "\",\"host\":\"" + HOST + "\"}");
                assertEquals(true, r.get("result").asBoolean(), r.toString());
                r = req(s, "nvmf_subsystem_add_listener", "{\"nqn\":\"" + SUB
                        + "\",\"listen_address\":{\"trtype\":\"tcp\",\"traddr\":\"127.0.0.1\",\"trsvcid\":\"0\"}}");
                assertEquals(true, r.get("result").asBoolean(), r.toString());
                r = req(s, "nvmf_get_subsystems", null);
                JsonNode sub = null;
                for (JsonNode n : r.get("result")) {
                    if (n.get("nqn").asText().equals(SUB)) {
                        sub = n;
                    }
                }
                assertTrue(r.get("result").toString().contains(NvmfSubsystem.DISCOVERY_NQN), r.toString());
                // SPDK's shape: hosts [{nqn}], listen_addresses [{trtype, adrfam, traddr, trsvcid}], namespaces [{nsid,
                // bdev_name, name, uuid}]
                assertEquals(HOST, sub.get("hosts").get(0).get("nqn").asText(), sub.toString());
                assertEquals("TCP", sub.get("listen_addresses").get(0).get("trtype").asText());
                assertEquals("IPv4", sub.get("listen_addresses").get(0).get("adrfam").asText());
                assertTrue(sub.get("listen_addresses").get(0).get("trsvcid").isTextual());
                assertEquals(512, sub.get("namespaces").get(0).get("block_size").asInt());
                assertTrue(sub.get("namespaces").get(0).has("bdev_name") && sub.get("namespaces").get(0).has("uuid"));
                assertEquals(false, sub.get("allow_any_host").asBoolean());
                assertEquals(1, req(s, "nvmf_get_subsystems", "{\"nqn\":\"" + SUB + "\"}").get("result").size());
                r = req(s, "nvmf_subsystem_remove_ns", "{\"nqn\":\"" + SUB + "\",\"nsid\":1}");
                assertEquals(true, r.get("result").asBoolean(), r.toString());
                r = req(s, "nvmf_subsystem_remove_host", "{\"nqn\":\"" + SUB + "\",\"host\":\"" + HOST + "\"}");
                assertEquals(true, r.get("result").asBoolean());
                r = req(s, "nvmf_get_stats", null);
                assertTrue(r.get("result").toString().contains("\"scope\":\"engine\""), r.toString());
                r = req(s, "nvmf_delete_subsystem", "{\"nqn\":\"" + SUB + "\"}");
                assertEquals(true, r.get("result").asBoolean(), r.toString());
                assertTrue(t.listeners().isEmpty(), "the listener opened for the deleted subsystem is closed");

                // Over the socket with the sta-rpc client.
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                PrintStream old = System.out;
                System.setOut(new PrintStream(out, true));
                int rc;
                try {
                    rc = new CommandLine(new StaRpcApp()).execute("-s", sock.toString(), "nvmf_create_subsystem",
                            "nqn=nqn.2024-01.io.jdoca:cli", "allow_any_host=true", "serial_number=\"123\"");
                } finally {
                    System.setOut(old);
                }
                assertEquals(0, rc);
                assertEquals("true", out.toString().trim());
                assertTrue(t.subsystem("nqn.2024-01.io.jdoca:cli").allowAnyHost());
                assertEquals("123", t.subsystem("nqn.2024-01.io.jdoca:cli").serial());
            } finally {
                s.close();
            }
        }
    }

    /** Each wrong request gets its JSON-RPC code and a message naming the field (fails on main: -32700/-32603/true). */
    @ParameterizedTest(name = "{0} {1} -> {2} {3}")
    @CsvSource(delimiter = '|', value = {
        "nope                      | {}                                                        | -32601 | nope",
        "nvmf_delete_subsystem     | {}                                                        | -32602 | nqn: missing",
        "nvmf_delete_subsystem     | {\"nqn\":5}                                               | -32602 | nqn: must be "
                + "a string",
        "nvmf_delete_subsystem     | {\"nqn\":\"x\"}                                           | -32602 | no subsystem",
        "nvmf_delete_subsystem     | []                                                        | -32602 | params: must "
                + "be a JSON object",
        "nvmf_create_subsystem     | {\"nqn\":\"bad\"}                                         | -32602 | nqn: \"bad\" "
                + "is not an NQN",
        "nvmf_create_subsystem     | {\"nqn\":\"nqn.2024-13.io.x:a\"}                          | -32602 | nqn:",
        "nvmf_create_subsystem     | {\"nqn\":\"nqn.2024-01.io.jdoca:e\",\"colour\":1}          | -32602 | colour: "
                + "unknown parameter",
        "nvmf_create_subsystem     | {\"nqn\":\"nqn.2024-01.io.jdoca:e\",\"allow_any_host\":1}  | -32602 | "
                + "allow_any_host: must be true or false",
        "nvmf_create_subsystem     | {\"nqn\":\"nqn.2024-01.io.jdoca:e\",\"serial_number\":\"012345678901234567890\"} "
                + "| -32602 | serial_number:",
        "nvmf_create_subsystem     | {\"nqn\":\"nqn.2024-01.io.jdoca:e\",\"ana_reporting\":1} | -32602 | "
                + "ana_reporting: must be true or false",
        "nvmf_create_subsystem     | {\"nqn\":\"nqn.2024-01.io.jdoca:e\",\"min_cntlid\":9,\"max_cntlid\":8} | -32602 | "
                + "max_cntlid: 8 is out of range 9..65519",
        "nvmf_create_subsystem     | {\"nqn\":\"nqn.2024-01.io.jdoca:e\",\"max_cntlid\":65520} | -32602 | "
                + "max_cntlid:",
        "nvmf_subsystem_listener_set_ana_state | {\"nqn\":\"nqn.2024-01.io.jdoca:base\",\"ana_state\":\"optimized\","
                + "\"listen_address\":{\"trtype\":\"tcp\",\"traddr\":\"127.0.0.1\",\"trsvcid\":\"9\"}} | -32602 | "
                + "ana_state: nqn.2024-01.io.jdoca:base does not report ANA",
        "nvmf_subsystem_listener_set_ana_state | {\"nqn\":\"nqn.2024-01.io.jdoca:base\",\"ana_state\":\"sleepy\","
                + "\"listen_address\":{\"trtype\":\"tcp\",\"traddr\":\"127.0.0.1\",\"trsvcid\":\"9\"}} | -32602 | "
                + "ana_state: \"sleepy\" is not an ANA state",
        "nvmf_subsystem_listener_set_ana_state | {\"nqn\":\"nqn.2024-01.io.jdoca:base\",\"ana_state\":\"optimized\","
                + "\"anagrpid\":0,\"listen_address\":{\"traddr\":\"127.0.0.1\",\"trsvcid\":\"9\"}} | -32602 | "
                + "anagrpid:",
        "nvmf_create_subsystem     | {\"nqn\":\"nqn.2024-01.io.jdoca:e\",\"tgt_name\":\"t\"}   | -32602 | tgt_name:",
        "nvmf_subsystem_remove_ns  | {\"nqn\":\"nqn.2024-01.io.jdoca:base\",\"nsid\":7}         | -32602 | nsid: no "
                + "namespace 7",
        "nvmf_subsystem_remove_ns  | {\"nqn\":\"nqn.2024-01.io.jdoca:base\",\"nsid\":\"1\"}     | -32602 | nsid: must "
                + "be an integer",
        "nvmf_subsystem_add_ns     | {\"nqn\":\"nqn.2024-01.io.jdoca:base\",\"namespace\":{\"backend\":\"memory\","
                + "\"size_mb\":-5}}  | -32602 | namespace.size_mb",
        "nvmf_subsystem_add_ns     | {\"nqn\":\"nqn.2024-01.io.jdoca:base\",\"namespace\":{\"backend\":\"memory\","
                + "\"size_mb\":4,\"block_size\":1000}} | -32602 | namespace.block_size",
        "nvmf_subsystem_add_ns     | {\"nqn\":\"nqn.2024-01.io.jdoca:base\",\"namespace\":{\"backend\":\"memory\","
                + "\"size_mb\":1000000000}} | -32602 | namespace.size_mb",
        "nvmf_subsystem_add_ns     | {\"nqn\":\"nqn.2024-01.io.jdoca:base\",\"namespace\":{\"backend\":\"memory\","
                + "\"size_mb\":4,\"nsid\":1}} | -32602 | namespace.nsid: namespace 1 already exists",
        "nvmf_subsystem_add_ns     | {\"nqn\":\"nqn.2024-01.io.jdoca:base\",\"namespace\":{\"backend\":\"file\","
                + "\"path\":\"/nonexistent-dir/x.img\",\"size_mb\":1}} | -32602 | namespace.path: directory "
                        + "/nonexistent-dir does not exist",
        "nvmf_subsystem_add_ns     | {\"nqn\":\"nqn.2024-01.io.jdoca:base\",\"namespace\":{\"bdev_name\":\"Malloc0\"}} "
                + "| -32602 | namespace.bdev_name",
        "nvmf_subsystem_add_host   | {\"nqn\":\"nqn.2024-01.io.jdoca:base\",\"host\":\"h1\"}    | -32602 | host: "
                + "\"h1\" is not an NQN",
        "nvmf_subsystem_add_listener | {\"nqn\":\"nqn.2024-01.io.jdoca:base\",\"listen_address\":{\"traddr\":\"foo\","
                + "\"trsvcid\":\"4420\"}} | -32602 | listen_address.traddr",
        "nvmf_subsystem_add_listener | {\"nqn\":\"nqn.2024-01.io.jdoca:base\","
                + "\"listen_address\":{\"traddr\":\"127.0.0.1\",\"trsvcid\":\"x\"}} | -32602 | listen_address.trsvcid",
        "nvmf_subsystem_add_listener | {\"nqn\":\"nqn.2024-01.io.jdoca:base\",\"listen_address\":{\"trtype\":\"fc\","
                + "\"traddr\":\"127.0.0.1\",\"trsvcid\":\"1\"}} | -32602 | listen_address.trtype",
        "nvmf_subsystem_add_listener | {\"nqn\":\"nqn.2024-01.io.jdoca:base\",\"listen_address\":{\"trtype\":\"rdma\","
                + "\"traddr\":\"::1\",\"trsvcid\":\"1\"}} | -32602 | listen_address.traddr",
        "nvmf_subsystem_add_listener | {\"nqn\":\"nqn.2024-01.io.jdoca:base\"}                 | -32602 | "
                + "listen_address: missing",
    })
    void wrongRequestsGetTheirCodeAndNameTheField(String method, String params, int code,
            String text) throws Exception {
        try (NvmfTarget t = new NvmfTarget(TargetConfig.parse("""
                {"subsystems":[{"nqn":"nqn.2024-01.io.jdoca:base",
                                "namespaces":[{"nsid":1,"backend":"null","size_mb":1}]}]}"""))) {
            t.start();
            RpcServer s = new RpcServer(t, dir.resolve("unused.sock"));
            JsonNode r = req(s, method, params);
            assertEquals(code, r.path("error").path("code").asInt(), r.toString());
            assertTrue(r.get("error").get("message").asText().contains(text), r.toString());
            assertEquals(List.of("nqn.2014-08.org.nvmexpress.discovery", "nqn.2024-01.io.jdoca:base"),
                    t.subsystems().stream().map(NvmfSubsystem::nqn).toList(), "nothing half-created");
            assertEquals(1, t.subsystem("nqn.2024-01.io.jdoca:base").sta().namespaces().size());
            assertTrue(t.listeners().isEmpty());
        }
    }

    @Test
    void malformedAndInvalidRequests() throws Exception {
        try (NvmfTarget t = target()) {
            RpcServer s = new RpcServer(t, dir.resolve("unused.sock"));
            assertEquals(-32700, call(s, "{not json").get("error").get("code").asInt());
            assertEquals(-32600, call(s, "[1,2]").get("error").get("code").asInt());
            assertEquals(-32600, call(s, "{\"jsonrpc\":\"2.0\",\"id\":1}").get("error").get("code").asInt());
            assertEquals(-32600, call(s,
                    "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"rpc_get_methods\"}").get("error").get("code").asInt());
            assertNull(s.handle(M.readTree("{\"jsonrpc\":\"2.0\",\"method\":\"rpc_get_methods\"}")),
                    "a notification gets no response");
        }
    }

    /** rpc.py's framing: pretty-printed, several lines, no trailing newline (fails on main: Parse error on "{"). */
    @Test
    void prettyPrintedRequestsWithoutNewlineAndBackToBack() throws Exception {
        try (NvmfTarget t = target()) {
            Path sock = dir.resolve("f.sock");
            RpcServer s = new RpcServer(t, sock);
            s.start();
            try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                ch.connect(UnixDomainSocketAddress.of(sock));
                String one = "{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"nvmf_create_subsystem\",\n  \"id\": 1,\n  "
                        + "\"params\": {\n"
                        + "    \"nqn\": \"" + SUB + "\"\n  }\n}";
                String two = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"rpc_get_methods\"}  \n\t{\"jsonrpc\":\"2.0\","
                        + "\"id\":3,\"method\":\"nope\"}";
                ch.write(ByteBuffer.wrap((one + two).getBytes(StandardCharsets.UTF_8)));
                var it = M.readerFor(JsonNode.class).<JsonNode>readValues(Channels.newInputStream(ch));
                JsonNode r1 = it.next();
                assertEquals(1, r1.get("id").asInt(), r1.toString());
                assertTrue(r1.get("result").asBoolean(), r1.toString());
                assertEquals(2, it.next().get("id").asInt());
                assertEquals(-32601, it.next().get("error").get("code").asInt());
            } finally {
                s.close();
            }
            assertTrue(t.subsystem(SUB) != null);
        }
    }

    /** A client that leaves mid-request gets nothing executed (fails on main: the half-read line was executed). */
    @Test
    void halfARequestThenDisconnectExecutesNothing() throws Exception {
        try (NvmfTarget t = target()) {
            Path sock = dir.resolve("h.sock");
            RpcServer s = new RpcServer(t, sock);
            s.start();
            try {
                try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                    ch.connect(UnixDomainSocketAddress.of(sock));
                    ch.write(ByteBuffer.wrap(("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"nvmf_create_subsystem\","
                            + "\"params\":{\"nqn\":\""
                            + SUB + "\"}\n").getBytes(StandardCharsets.UTF_8)));
                }
                // A later complete request on a new connection is served in order after the first was dropped.
                try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                    ch.connect(UnixDomainSocketAddress.of(sock));
                    ch.write(ByteBuffer.wrap(("{\"jsonrpc\":\"2.0\",\"id\":9,"
                            + "\"method\":\"rpc_get_methods\"}").getBytes(StandardCharsets.UTF_8)));
                    assertEquals(9, M.readerFor(JsonNode.class).<JsonNode>readValues(Channels.newInputStream(ch)).next()
                            .get("id").asInt());
                }
                Await.until(Duration.ofSeconds(10), () -> Thread.getAllStackTraces().keySet().stream()
                        .noneMatch(th -> th.getName().equals("sta-rpc-client") && th.isAlive()),
                                "rpc client threads to end");
                assertNull(t.subsystem(SUB), "the cut request was not executed");
            } finally {
                s.close();
            }
        }
    }

    /** Socket ownership (fails on main: the second server deleted and took over the first one's socket). */
    @Test
    void socketIsPrivateAndCannotBeStolen() throws Exception {
        try (NvmfTarget t = target()) {
            Path sock = dir.resolve("own.sock");
            RpcServer first = new RpcServer(t, sock);
            first.start();
            try {
                assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(sock,
                        LinkOption.NOFOLLOW_LINKS)));
                RpcServer second = new RpcServer(t, sock);
                ConfigException e = assertThrows(ConfigException.class, second::bind);
                assertTrue(e.getMessage().startsWith("rpc_socket: ")
                        && e.getMessage().contains("in use by a running server"), e.getMessage());
                second.close();
                assertTrue(Files.exists(sock, LinkOption.NOFOLLOW_LINKS),
                        "the refused server did not delete the socket");
                assertTrue(RpcServer.answers(sock), "the first server still answers");
                try (var st = Files.list(dir)) {
                    assertEquals(List.of(sock), st.toList(), "no private bind directory left behind");
                }
            } finally {
                first.close();
            }
            assertFalse(Files.exists(sock, LinkOption.NOFOLLOW_LINKS), "the owner removes its socket");
        }
    }

    @Test
    void staleSocketIsReplacedButNotAFileOrASocketNowSomeoneElses() throws Exception {
        try (NvmfTarget t = target()) {
            Path sock = dir.resolve("stale.sock");
            RpcServer dead = new RpcServer(t, sock);
            dead.bind();
            Path aside = dir.resolve("aside.sock");
            Files.createLink(aside, sock); // keep the inode so close() cannot remove the path...
            dead.close();
            Files.move(aside, sock); // ...then put the dead socket back: a stale file nobody answers on
            assertFalse(RpcServer.answers(sock));
            RpcServer fresh = new RpcServer(t, sock);
            fresh.start();
            assertTrue(RpcServer.answers(sock), "the stale socket was replaced");
            // A socket file that is no longer ours (replaced under us) is left alone on close.
            Files.delete(sock);
            Files.writeString(sock, "not ours");
            fresh.close();
            assertEquals("not ours", Files.readString(sock));
            ConfigException e = assertThrows(ConfigException.class, () -> new RpcServer(t, sock).bind());
            assertTrue(e.getMessage().contains("not a socket"), e.getMessage());
            assertEquals("not ours", Files.readString(sock));
        }
    }

    /**
     * Listeners are per subsystem (fails on main: an RPC-created subsystem was reachable on every
     * listener, and a config subsystem on another subsystem's listener).
     */
    @Test
    void subsystemsAreReachableOnlyOnTheirListeners() throws Exception {
        try (NvmfTarget t = new NvmfTarget(TargetConfig.parse(
                "{\"io_threads\":1,\"listeners\":[{\"address\":\"127.0.0.1\",\"port\":0}],"
                + "\"subsystems\":[{\"nqn\":\"nqn.2024-01.io.jdoca:open\",\"allow_any_host\":true}]}"))) {
            t.start();
            int general = (Integer) t.listeners().get(0).get("port");
            RpcServer s = new RpcServer(t, dir.resolve("r.sock"));
            String only = "nqn.2024-01.io.jdoca:only";
            assertTrue(req(s, "nvmf_create_subsystem", "{\"nqn\":\"" + only
                    + "\",\"allow_any_host\":true}").get("result").asBoolean());
            assertEquals(NvmeStatus.CONNECT_INVALID_PARAMETERS, connect(general, only),
                    "no listener yet: reachable nowhere");
            JsonNode r = req(s, "nvmf_subsystem_add_listener", "{\"nqn\":\"" + only
                    + "\",\"listen_address\":{\"traddr\":\"127.0.0.1\",\"trsvcid\":\"0\"}}");
            assertTrue(r.get("result").asBoolean(), r.toString());
            int own = req(s, "nvmf_get_subsystems", "{\"nqn\":\"" + only + "\"}").get("result").get(0)
                    .get("listen_addresses").get(0).get("trsvcid").asInt();
            assertTrue(own > 0 && own != general);
            assertEquals(NvmeStatus.CONNECT_INVALID_PARAMETERS, connect(general, only));
            assertEquals(0, connect(own, only));
            assertEquals(0, connect(general, "nqn.2024-01.io.jdoca:open"),
                    "the JSON's subsystem on the top-level listener");
            assertEquals(NvmeStatus.CONNECT_INVALID_PARAMETERS, connect(own, "nqn.2024-01.io.jdoca:open"),
                    "another subsystem's listener is not this one's");
            // nvmf_get_subsystems lists each subsystem's own listeners only.
            for (JsonNode n : req(s, "nvmf_get_subsystems", null).get("result")) {
                List<Integer> ports = new ArrayList<>();
                n.get("listen_addresses").forEach(a -> ports.add(a.get("trsvcid").asInt()));
                switch (n.get("nqn").asText()) {
                    case "nqn.2024-01.io.jdoca:open" -> assertEquals(List.of(general), ports);
                    case "nqn.2024-01.io.jdoca:only" -> assertEquals(List.of(own), ports);
                    default -> assertEquals(List.of(), ports);
                }
            }
            // The discovery log: only the port the host came in on, only subsystems with that listener.
            assertEquals(List.of("nqn.2024-01.io.jdoca:open@" + general), discovery(general));
            assertEquals(List.of(only + "@" + own), discovery(own));
            // A subsystem that does not allow the host is not listed.
            assertTrue(req(s, "nvmf_create_subsystem",
                    "{\"nqn\":\"nqn.2024-01.io.jdoca:closed\"}").get("result").asBoolean());
            assertTrue(req(s, "nvmf_subsystem_add_listener",
                    "{\"nqn\":\"nqn.2024-01.io.jdoca:closed\",\"listen_address\":"
                    + "{\"traddr\":\"127.0.0.1\",\"trsvcid\":\"" + own + "\"}}").get("result").asBoolean());
            assertEquals(List.of(only + "@" + own), discovery(own));
        }
    }

    static int connect(int port, String nqn) throws Exception {
        try (NvmeTcpHost h = new NvmeTcpHost("127.0.0.1", port, false, false, 8, 8192)) {
            h.initialize();
            return h.connect(0, 31, nqn, HOST, 0xffff, 0)[0];
        }
    }

    /** "subnqn@port" of every discovery log entry read through a discovery controller on {@code port}. */
    static List<String> discovery(int port) throws Exception {
        try (NvmeTcpHost h = new NvmeTcpHost("127.0.0.1", port, false, false, 8, 8192)) {
            h.initialize();
            assertEquals(0, h.connect(0, 31, NvmfSubsystem.DISCOVERY_NQN, HOST, 0xffff, 0)[0]);
            assertEquals(0, h.propertySet(0x14, 1)[0]);
            byte[] hdr = new byte[1024];
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0, ((1024 / 4 - 1) << 16) | 0x70, 0, hdr));
            long n = ByteBuffer.wrap(hdr).order(ByteOrder.LITTLE_ENDIAN).getLong(8);
            List<String> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                byte[] e = new byte[1024];
                assertEquals(0, h.getLogPage(0x70, 1024L * (i + 1), e));
                String svc = new String(e, 32, 32, StandardCharsets.US_ASCII).trim();
                String nqn = new String(e, 256, 256, StandardCharsets.UTF_8).replace("\0", "").trim();
                out.add(nqn + "@" + svc);
            }
            return out;
        }
    }

    @Test
    void exampleConfigLoadsAndUnknownKeysAreRejected() throws Exception {
        Path ex = Path.of(System.getProperty("user.dir")).resolve("../examples/sta-target.json").normalize();
        TargetConfig c = TargetConfig.load(ex).validate();
        assertEquals("nqn.2024-01.io.jdoca:demo", c.subsystems().get(0).nqn());
        assertEquals(256, c.subsystems().get(0).namespaces().get(0).sizeMb());
        assertEquals(4096, c.subsystems().get(0).namespaces().get(0).blockSize());
        assertEquals(4420, c.listeners().get(0).port());
        assertEquals("127.0.0.1", c.listeners().get(0).address());
        assertTrue(c.subsystems().get(0).allowAnyHost());
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"io_thread\": 2}");
        assertTrue(assertThrows(ConfigException.class, () ->
                TargetConfig.load(bad)).getMessage().startsWith("io_thread: "));
    }
}
