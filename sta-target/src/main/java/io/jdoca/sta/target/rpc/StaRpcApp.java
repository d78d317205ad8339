package io.jdoca.sta.target.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ./jdoca sta-rpc <method> [key=value ... | JSON]}: calls the target's JSON-RPC socket
 * and prints the result (like SPDK's {@code rpc.py}). Values that parse as JSON (numbers,
 * booleans, objects) are sent as such, others as strings.
 *
 * <p>Picocli command; one instance per process.
 */
@Command(name = "sta-rpc", mixinStandardHelpOptions = true,
        description = "Call the sta-target JSON-RPC socket: sta-rpc nvmf_get_subsystems; sta-rpc nvmf_subsystem_add_ns nqn=... nsid=2 size_mb=64")
public final class StaRpcApp implements Callable<Integer> {
    @Option(names = {"-s", "--socket"}, defaultValue = "/tmp/jdoca-sta-target.sock", description = "RPC socket (default: ${DEFAULT-VALUE})")
    String socket;

    @Parameters(index = "0", description = "method (rpc_get_methods lists them)")
    String method;

    @Parameters(index = "1..*", arity = "0..*", description = "params: key=value pairs or one JSON object")
    List<String> params = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        ObjectNode req = RpcServer.MAPPER.createObjectNode();
        req.put("jsonrpc", "2.0");
        req.put("id", 1);
        req.put("method", method);
        req.set("params", buildParams(params));
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(socket));
            OutputStream out = Channels.newOutputStream(ch);
            out.write((RpcServer.MAPPER.writeValueAsString(req) + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(ch), StandardCharsets.UTF_8));
            String line = in.readLine();
            if (line == null) {
                System.err.println("sta-rpc: no response");
                return 1;
            }
            JsonNode resp = RpcServer.MAPPER.readTree(line);
            if (resp.has("error")) {
                System.err.println(RpcServer.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(resp.get("error")));
                return 1;
            }
            System.out.println(RpcServer.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(resp.get("result")));
            return 0;
        } catch (java.net.SocketException | java.nio.file.NoSuchFileException e) {
            System.err.println("sta-rpc: cannot reach " + socket + ": " + e.getMessage());
            return 2;
        }
    }

    static JsonNode buildParams(List<String> params) throws Exception {
        if (params.size() == 1 && params.get(0).trim().startsWith("{")) {
            return RpcServer.MAPPER.readTree(params.get(0));
        }
        ObjectNode p = RpcServer.MAPPER.createObjectNode();
        for (String kv : params) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(new StaRpcApp()), "expected key=value: " + kv);
            }
            String k = kv.substring(0, eq);
            String v = kv.substring(eq + 1);
            JsonNode node;
            try {
                node = v.matches("-?\\d+|true|false|\\{.*\\}|\\[.*\\]") ? RpcServer.MAPPER.readTree(v) : null;
            } catch (Exception e) {
                node = null;
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
