package io.jdoca.nvmf.rpc;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jdoca.argp.HelpVersionFlags;
import java.io.IOException;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ./jdoca sta-rpc <method> [key=value ... | JSON]}: calls the target's JSON-RPC socket
 * and prints the result (like SPDK's {@code rpc.py}). Values that parse as JSON (numbers,
 * booleans, "quoted strings", objects) are sent as such, others as strings. Errors (a bad
 * argument, an unreachable socket, a JSON-RPC error) are one line on stderr and a non-zero exit:
 * 1 for a refused call or bad argument, 2 when the socket cannot be reached.
 *
 * <p>Picocli command; one instance per process.
 */
@Command(name = "sta-rpc",
        description = "Call the sta-target JSON-RPC socket: sta-rpc nvmf_get_subsystems; "
                + "sta-rpc nvmf_subsystem_add_ns nqn=... nsid=2 size_mb=64")
public final class StaRpcApp implements Callable<Integer> {
    /** -h/--help and -v/--version (the one version line of every app). */
    @Mixin
    HelpVersionFlags helpVersion;

    @Option(names = {"-s", "--socket"}, defaultValue = RpcServer.DEFAULT_SOCKET,
            description = "RPC socket (default: ${DEFAULT-VALUE}, SPDK's and sta-target's)")
    String socket;

    @Parameters(index = "0", description = "method (rpc_get_methods lists them)")
    String method;

    @Parameters(index = "1..*", arity = "0..*", description = "params: key=value pairs or one JSON object")
    List<String> params = new ArrayList<>();

    @Override
    public Integer call() {
        if (!method.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            return fail("method \"" + method + "\" is not a method name (rpc_get_methods lists them)");
        }
        ObjectNode req = RpcServer.MAPPER.createObjectNode();
        req.put("jsonrpc", "2.0");
        req.put("id", 1);
        req.put("method", method);
        try {
            req.set("params", buildParams(params));
        } catch (IllegalArgumentException e) {
            return fail(e.getMessage());
        }
        Path sock = Path.of(socket);
        if (!Files.exists(sock)) {
            return fail("cannot reach " + socket + ": no such socket (is sta-target running with this rpc_socket?)",
                    2);
        }
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(sock));
            OutputStream out = Channels.newOutputStream(ch);
            out.write((RpcServer.MAPPER.writeValueAsString(req) + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            JsonNode resp;
            try (JsonParser jp = RpcServer.MAPPER.createParser(Channels.newInputStream(ch))) {
                if (jp.nextToken() == null) {
                    return fail("no response from " + socket);
                }
                resp = RpcServer.MAPPER.readTree(jp);
            } catch (JsonProcessingException e) {
                return fail("bad response from " + socket + ": " + RpcServer.parseError(e));
            }
            if (resp.has("error")) {
                JsonNode e = resp.get("error");
                return fail(method + ": error " + e.path("code").asText("?") + ": " + e.path("message").asText(""));
            }
            System.out.println(RpcServer.MAPPER.writerWithDefaultPrettyPrinter()
                    .writeValueAsString(resp.get("result")));
            return 0;
        } catch (IOException e) {
            return fail("cannot reach " + socket + ": " + e.getMessage(), 2);
        }
    }

    private static int fail(String line) {
        return fail(line, 1);
    }

    private static int fail(String line, int rc) {
        System.err.println("sta-rpc: " + line);
        return rc;
    }

    /**
     * The params object from {@code key=value} pairs (values that read as JSON numbers, booleans,
     * quoted strings, objects or arrays are sent as such, others as strings) or one JSON object.
     * Throws IllegalArgumentException naming the bad argument.
     */
    static JsonNode buildParams(List<String> params) {
        if (params.size() == 1 && params.get(0).trim().startsWith("{")) {
            try {
                return RpcServer.MAPPER.readTree(params.get(0));
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("params: not a JSON object: " + RpcServer.parseError(e)
                        .replaceFirst("^Parse error: ", ""));
            }
        }
        ObjectNode p = RpcServer.MAPPER.createObjectNode();
        for (String kv : params) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("\"" + kv + "\": expected key=value (or one JSON object)");
            }
            String k = kv.substring(0, eq);
            String v = kv.substring(eq + 1);
            if (!k.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new IllegalArgumentException("\"" + k + "\" is not a parameter name");
            }
            if (p.has(k)) {
                throw new IllegalArgumentException(k + " given twice");
            }
            JsonNode node;
            try {
                node = v.matches("-?\\d+|true|false|\".*\"|\\{.*\\}|\\[.*\\]") ? RpcServer.MAPPER.readTree(v) : null;
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException(k + ": \"" + v + "\" is not valid JSON");
            }
            if (node != null) {
                p.set(k, node);
            } else {
                p.put(k, v);
            }
        }
        return p;
    }
}
