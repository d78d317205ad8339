package io.jdoca.sta.target.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jdoca.core.DocaException;
import io.jdoca.sta.StaStats;
import io.jdoca.sta.target.config.TargetConfig;
import io.jdoca.sta.target.nvmf.NvmfTarget;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JSON-RPC 2.0 management server on a Unix socket, in the spirit of SPDK's {@code rpc.py}: one
 * request per line, one response per line. Methods: {@code nvmf_get_subsystems},
 * {@code nvmf_create_subsystem}, {@code nvmf_delete_subsystem}, {@code nvmf_subsystem_add_ns},
 * {@code nvmf_subsystem_remove_ns}, {@code nvmf_subsystem_add_listener},
 * {@code nvmf_subsystem_add_host}, {@code nvmf_subsystem_remove_host}, {@code nvmf_get_stats},
 * {@code rpc_get_methods}.
 *
 * <p>One thread per client connection (control path).
 */
public final class RpcServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RpcServer.class);
    static final ObjectMapper MAPPER = new ObjectMapper();
    public static final List<String> METHODS = List.of("rpc_get_methods", "nvmf_get_subsystems", "nvmf_create_subsystem",
            "nvmf_delete_subsystem", "nvmf_subsystem_add_ns", "nvmf_subsystem_remove_ns", "nvmf_subsystem_add_listener",
            "nvmf_subsystem_add_host", "nvmf_subsystem_remove_host", "nvmf_get_stats");

    private final NvmfTarget target;
    private final Path path;
    private ServerSocketChannel server;
    private volatile boolean open;

    public RpcServer(NvmfTarget target, Path path) {
        this.target = target;
        this.path = path;
    }

    public void start() throws IOException {
        Files.deleteIfExists(path);
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(path));
        open = true;
        Thread t = new Thread(this::acceptLoop, "sta-rpc");
        t.setDaemon(true);
        t.start();
        LOG.info("JSON-RPC listening on {}", path);
    }

    private void acceptLoop() {
        while (open) {
            try {
                SocketChannel c = server.accept();
                Thread t = new Thread(() -> serve(c), "sta-rpc-client");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                if (open) {
                    LOG.warn("rpc accept: {}", e.getMessage());
                }
                return;
            }
        }
    }

    private void serve(SocketChannel c) {
        try (c; BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(c), StandardCharsets.UTF_8));
             OutputStream out = Channels.newOutputStream(c)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                String resp = handle(line);
                out.write((resp + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        } catch (IOException e) {
            LOG.debug("rpc client: {}", e.getMessage());
        }
    }

    /** Handles one JSON-RPC request line and returns the response line. */
    public String handle(String line) {
        JsonNode id = null;
        try {
            JsonNode req = MAPPER.readTree(line);
            id = req.get("id");
            String method = req.path("method").asText(null);
            if (method == null) {
                return error(id, -32600, "Invalid Request");
            }
            JsonNode params = req.has("params") ? req.get("params") : MAPPER.createObjectNode();
            Object result = call(method, params);
            ObjectNode r = MAPPER.createObjectNode();
            r.put("jsonrpc", "2.0");
            r.set("id", id);
            r.set("result", MAPPER.valueToTree(result));
            return MAPPER.writeValueAsString(r);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return error(id, -32700, "Parse error: " + e.getOriginalMessage());
        } catch (NoSuchMethodException e) {
            return error(id, -32601, "Method not found: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            return error(id, -32602, "Invalid params: " + e.getMessage());
        } catch (DocaException e) {
            return error(id, -32000 - e.error().code(), e.getMessage());
        } catch (Exception e) {
            return error(id, -32603, "Internal error: " + e);
        }
    }

    private static String error(JsonNode id, int code, String msg) {
        ObjectNode r = MAPPER.createObjectNode();
        r.put("jsonrpc", "2.0");
        r.set("id", id);
        ObjectNode e = r.putObject("error");
        e.put("code", code);
        e.put("message", msg);
        try {
            return MAPPER.writeValueAsString(r);
        } catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
            return "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32603,\"message\":\"internal\"}}";
        }
    }

    private static String req(JsonNode p, String name) {
        JsonNode v = p.get(name);
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException("missing " + name);
        }
        return v.asText();
    }

    private Object call(String method, JsonNode p) throws Exception {
        switch (method) {
            case "rpc_get_methods":
                return METHODS;
            case "nvmf_get_subsystems":
                return target.describeSubsystems();
            case "nvmf_create_subsystem": {
                TargetConfig.SubsystemConfig c = new TargetConfig.SubsystemConfig(req(p, "nqn"),
                        p.path("serial_number").asText(null), p.path("model_number").asText(null),
                        p.path("allow_any_host").asBoolean(false), null, null);
                target.createSubsystem(c);
                return true;
            }
            case "nvmf_delete_subsystem":
                target.deleteSubsystem(req(p, "nqn"));
                return true;
            case "nvmf_subsystem_add_ns": {
                JsonNode n = p.has("namespace") ? p.get("namespace") : p;
                TargetConfig.NamespaceConfig nc = TargetConfig.MAPPER.treeToValue(stripNqn(n), TargetConfig.NamespaceConfig.class);
                return target.addNamespace(req(p, "nqn"), nc);
            }
            case "nvmf_subsystem_remove_ns":
                target.removeNamespace(req(p, "nqn"), Integer.parseInt(req(p, "nsid"))).get(30, TimeUnit.SECONDS);
                return true;
            case "nvmf_subsystem_add_listener": {
                JsonNode a = p.has("listen_address") ? p.get("listen_address") : p;
                String addr = a.path("traddr").asText(a.path("address").asText("127.0.0.1"));
                if (!a.has("trsvcid") && !a.has("port")) {
                    throw new IllegalArgumentException("missing listen_address.trsvcid (port)");
                }
                int port;
                try {
                    port = a.has("trsvcid") ? Integer.parseInt(a.get("trsvcid").asText()) : a.get("port").asInt();
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("bad port: " + e.getMessage());
                }
                if (port < 0 || port > 65535) {
                    throw new IllegalArgumentException("port out of range: " + port);
                }
                if (p.hasNonNull("nqn")) {
                    return target.addSubsystemListener(p.get("nqn").asText(), addr, port);
                }
                return target.addListener(addr, port);
            }
            case "nvmf_subsystem_add_host":
                target.addHost(req(p, "nqn"), req(p, "host"));
                return true;
            case "nvmf_subsystem_remove_host":
                target.removeHost(req(p, "nqn"), req(p, "host"));
                return true;
            case "nvmf_get_stats": {
                List<Map<String, Object>> out = new ArrayList<>();
                for (StaStats s : target.stats()) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("scope", s.scope());
                    m.put("name", s.name());
                    m.putAll(s.values());
                    out.add(m);
                }
                return out;
            }
            default:
                throw new NoSuchMethodException(method);
        }
    }

    private static JsonNode stripNqn(JsonNode n) {
        if (n instanceof ObjectNode o && o.has("nqn")) {
            ObjectNode c = o.deepCopy();
            c.remove("nqn");
            return c;
        }
        return n;
    }

    @Override
    public void close() {
        open = false;
        try {
            if (server != null) {
                server.close();
            }
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // best effort
        }
    }
}
