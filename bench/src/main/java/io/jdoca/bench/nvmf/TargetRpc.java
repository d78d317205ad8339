package io.jdoca.bench.nvmf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * One JSON-RPC 2.0 call on sta-target's RPC socket, as the suite's row groups ({@link RbdGatewayLoads},
 * {@link TlsLoads}) configure the running target: SPDK's methods, one request per connection. Any thread.
 */
final class TargetRpc {
    private static final ObjectMapper JSON = new ObjectMapper();

    private TargetRpc() {
    }

    /** Calls {@code method}; its {@code result}, or IOException with the target's error object. */
    static JsonNode call(Path sock, String method, Map<String, Object> params) throws IOException {
        ObjectNode req = JSON.createObjectNode();
        req.put("jsonrpc", "2.0");
        req.put("id", 1);
        req.put("method", method);
        req.set("params", JSON.valueToTree(params));
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(sock));
            OutputStream os = Channels.newOutputStream(ch);
            os.write((JSON.writeValueAsString(req) + "\n").getBytes(StandardCharsets.UTF_8));
            os.flush();
            JsonNode resp;
            try (var jp = JSON.createParser(Channels.newInputStream(ch))) {
                if (jp.nextToken() == null) {
                    throw new IOException(method + ": no response from " + sock);
                }
                resp = JSON.readTree(jp);
            }
            if (resp.has("error")) {
                throw new IOException(method + ": " + resp.get("error"));
            }
            return resp.get("result");
        }
    }
}
