package io.jdoca.nvmf.rpc;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.tgt.NvmfTarget;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JSON-RPC 2.0 management server on a Unix socket, compatible with SPDK's {@code rpc.py}: it reads
 * one complete JSON value at a time whatever the whitespace (rpc.py sends pretty-printed objects
 * with no trailing newline) and answers each with one JSON object and a newline. A request cut
 * short by a disconnect is never executed. Errors: -32700 malformed JSON, -32600 not a request,
 * -32601 unknown method, -32602 bad parameters (the message names the field), -32603 internal.
 *
 * <p>It only frames and dispatches: the methods, with SPDK's parameter names and result shapes,
 * are the {@link RpcRegistry}'s ({@code rpc_get_methods} lists them), each registered by its
 * family class ({@link NvmfSubsystemRpcs}, {@link BdevRpcs}, ...).
 *
 * <p>The socket is private to its owner: it is bound inside a fresh 0700 directory, made 0600,
 * then hard-linked to its path (which fails if the path exists), so it is never reachable with
 * looser permissions. A path on which a live server answers is refused ({@link #bind()}); a stale
 * socket file is replaced; {@link #close()} removes the file only while it is still this server's
 * (same device and inode).
 *
 * <p>Threads: one accept thread and one thread per client connection (control path); a method
 * that touches the target submits a command to its {@code sta-main} and waits for it. The monitor
 * of {@link #bind} and {@link #close} guards this server's own socket file (claimed once, removed
 * once), not target state.
 */
public final class RpcServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RpcServer.class);
    static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).maxStringLength(1 << 16).build())
            .build());
    /** Every method jdoca's target answers (the standard registry's names). */
    public static final List<String> METHODS = List.copyOf(RpcRegistry.standard(() -> null).names());
    /** SPDK's default RPC socket (spdk_tgt's and rpc.py's when none is given). */
    public static final String DEFAULT_SOCKET = "/var/tmp/spdk.sock";
    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;

    private volatile NvmfTarget target;
    private final Path path;
    private ServerSocketChannel server;
    private Object ownedKey;
    private volatile boolean open;
    private final RpcFramework framework;
    private final RpcRegistry registry;

    /** {@code path} may be null for a server that only executes (a {@code -c} config replay). */
    public RpcServer(NvmfTarget target, Path path) {
        this(target, path, new RpcFramework());
    }

    /** A server whose RPC state and application hooks are {@code framework}'s ({@code --wait-for-rpc}). */
    public RpcServer(NvmfTarget target, Path path, RpcFramework framework) {
        this.target = target;
        this.path = path == null ? null : path.toAbsolutePath();
        this.framework = framework;
        this.registry = RpcRegistry.standard(() -> this.target, framework);
    }

    /** The RPC state and application hooks this server answers with. */
    public RpcFramework framework() {
        return framework;
    }

    /** Sets the target this server manages (before {@link #invoke}). */
    public void setTarget(NvmfTarget t) {
        this.target = t;
    }

    /**
     * Executes one method as a request would (control path), for a JSON config replay. Throws what
     * the method throws: ConfigException, RpcError, DocaException, NoSuchMethodException.
     */
    public Object invoke(String method, JsonNode params) throws Exception {
        Object r = call(method, params);
        if (r instanceof RpcFramework.AfterAnswer a) {
            a.then().run();
            return a.result();
        }
        return r;
    }

    /** The methods this server dispatches to. */
    public RpcRegistry registry() {
        return registry;
    }

    private Object call(String method, JsonNode params) throws Exception {
        RpcRegistry.Method<?> m = registry.method(method);
        if (m == null) {
            throw new NoSuchMethodException(method);
        }
        int state = framework.state();
        if ((m.states() & state) == 0) {
            // SPDK's lib/rpc/rpc.c answers a method called in the wrong state with -1 and these words.
            throw new RpcError(-1, state == RpcRegistry.STARTUP
                    ? "Method may only be called after framework is initialized using framework_start_init RPC."
                    : "Method may only be called before framework is initialized. Use --wait-for-rpc command line "
                    + "parameter and then issue this RPC before the framework_start_init RPC.");
        }
        return m.invoke(params);
    }

    // ------------------------------------------------------------------ socket ownership

    /**
     * Claims the socket path (control path). Throws ConfigException (field {@code rpc_socket}) when
     * a live server answers there, when the path is not a socket or belongs to another user, or
     * when its directory is missing; a stale socket (nothing answers) is replaced. Synchronized:
     * this server's own socket file is claimed once even if two threads start it (not target state).
     */
    public synchronized void bind() throws IOException {
        if (server != null) {
            return;
        }
        TargetConfig.checkSocketPath("rpc_socket", path.toString());
        Path dir = path.getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw new ConfigException("rpc_socket", "directory " + dir + " does not exist");
        }
        for (int attempt = 0; ; attempt++) {
            if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
                removeIfStale();
            }
            Path priv = dir.resolve(".rpc" + ProcessHandle.current().pid() + "-" + attempt);
            if (priv.resolve("s").toString().getBytes(StandardCharsets.UTF_8).length > 107) {
                throw new ConfigException("rpc_socket",
                        "directory path too long for a Unix socket (keep it under 90 bytes)");
            }
            Files.createDirectory(priv,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path tmp = priv.resolve("s");
            ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                ch.bind(UnixDomainSocketAddress.of(tmp));
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
                Files.createLink(path, tmp); // atomic: fails if another server took the path meanwhile
                server = ch;
                ownedKey = fileKey(path);
                return;
            } catch (FileAlreadyExistsException e) {
                ch.close();
                if (attempt >= 2) {
                    throw new ConfigException("rpc_socket", path + " is being taken by another process");
                }
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            } finally {
                Files.deleteIfExists(tmp);
                Files.deleteIfExists(priv);
            }
        }
    }

    private void removeIfStale() throws IOException {
        int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        if ((mode & S_IFMT) != S_IFSOCK) {
            throw new ConfigException("rpc_socket", path + " exists and is not a socket: not replacing it");
        }
        int uid = (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        int me = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        if (uid != me) {
            throw new ConfigException("rpc_socket", path + " belongs to another user (uid " + uid
                    + "): not replacing it");
        }
        if (answers(path)) {
            throw new ConfigException("rpc_socket", path + " is in use by a running server (another sta-target?): "
                    + "stop it or choose another socket");
        }
        Files.deleteIfExists(path);
        LOG.info("removed stale RPC socket {} (nothing answered on it)", path);
    }

    /** True when something accepts connections on the Unix socket {@code p}. */
    static boolean answers(Path p) {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(p));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static Object fileKey(Path p) throws IOException {
        return List.of(Files.getAttribute(p, "unix:dev", LinkOption.NOFOLLOW_LINKS),
                Files.getAttribute(p, "unix:ino", LinkOption.NOFOLLOW_LINKS));
    }

    /** Serves {@code t} on the socket claimed by {@link #bind()} (the app claims it before the target starts). */
    public void start(NvmfTarget t) throws IOException {
        this.target = t;
        start();
    }

    /** Binds if not yet bound, then serves on an accept thread. */
    public void start() throws IOException {
        bind();
        open = true;
        Thread t = new Thread(this::acceptLoop, "sta-rpc");
        t.setDaemon(true);
        t.start();
        LOG.info("JSON-RPC listening on {} (mode 0600)", path);
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

    // ------------------------------------------------------------------ framing

    /** Serves one connection: reads complete JSON values one at a time, answers each. */
    void serve(SocketChannel c) {
        try (c; InputStream in = Channels.newInputStream(c); OutputStream out = Channels.newOutputStream(c);
             JsonParser jp = MAPPER.createParser(in)) {
            for (;;) {
                JsonNode req;
                try {
                    if (jp.nextToken() == null) {
                        return; // clean end between requests
                    }
                    req = MAPPER.readTree(jp);
                } catch (JsonEOFException e) {
                    LOG.debug("rpc client left mid-request: nothing executed");
                    return;
                } catch (JsonProcessingException e) {
                    // The stream cannot be resynchronised after malformed JSON: answer, then close.
                    write(out, error(null, -32700, parseError(e)));
                    return;
                }
                Answer a = answer(req);
                if (a.text() != null) {
                    write(out, a.text());
                }
                if (a.then() != null) {
                    a.then().run(); // e.g. spdk_kill_instance: the answer is out before the signal acts
                }
            }
        } catch (IOException e) {
            LOG.debug("rpc client: {}", e.getMessage());
        }
    }

    private static void write(OutputStream out, String resp) throws IOException {
        out.write((resp + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /**
     * A JSON syntax error as the client should read it: where, not the parser's own wording (its
     * token names, character codes and source descriptions).
     */
    static String parseError(JsonProcessingException e) {
        var loc = e.getLocation();
        if (loc == null || loc.getLineNr() < 1) {
            return "Parse error: the request is not valid JSON";
        }
        return "Parse error: not valid JSON at line " + loc.getLineNr() + ", column " + loc.getColumnNr();
    }

    /** Handles one request given as text (tests, fuzzing); returns the response. */
    public String handle(String text) {
        JsonNode req;
        try {
            req = MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            return error(null, -32700, parseError(e));
        }
        if (req == null || req.isMissingNode()) {
            return error(null, -32700, "Parse error: empty request");
        }
        String r = handle(req);
        return r != null ? r : error(null, -32600, "Invalid Request: notification (no id) gets no response");
    }

    /**
     * Handles one parsed request; returns the response, or null for a notification (no id). A
     * follow-up the method asked for (a kill) runs once the response is made.
     */
    public String handle(JsonNode req) {
        Answer a = answer(req);
        if (a.then() != null) {
            a.then().run();
        }
        return a.text();
    }

    /** A response (null for a notification) and what runs once it is written (null: nothing). */
    private record Answer(String text, Runnable then) {
    }

    private Answer answer(JsonNode req) {
        JsonNode id = req.get("id");
        if (!req.isObject()) {
            return new Answer(error(null, -32600, "Invalid Request: not a JSON object"), null);
        }
        if (id != null && !(id.isTextual() || id.isNumber() || id.isNull())) {
            return new Answer(error(null, -32600, "Invalid Request: id must be a string, a number or null"), null);
        }
        if (!"2.0".equals(req.path("jsonrpc").asText(null)) || !req.path("jsonrpc").isTextual()) {
            return new Answer(error(id, -32600, "Invalid Request: jsonrpc must be \"2.0\""), null);
        }
        JsonNode m = req.get("method");
        if (m == null || !m.isTextual()) {
            return new Answer(error(id, -32600, "Invalid Request: method must be a string"), null);
        }
        String resp;
        Runnable then = null;
        try {
            Object result = call(m.asText(), req.get("params"));
            if (result instanceof RpcFramework.AfterAnswer a) {
                result = a.result();
                then = a.then();
            }
            ObjectNode r = MAPPER.createObjectNode();
            r.put("jsonrpc", "2.0");
            r.set("id", id);
            r.set("result", MAPPER.valueToTree(result));
            resp = MAPPER.writeValueAsString(r);
        } catch (NoSuchMethodException e) {
            resp = error(id, -32601, "Method not found: " + e.getMessage());
        } catch (RpcError e) {
            resp = error(id, e.code(), e.getMessage());
        } catch (IllegalArgumentException e) {
            resp = error(id, -32602, "Invalid parameters: " + e.getMessage());
        } catch (DocaException e) {
            resp = docaError(id, e);
        } catch (Exception e) {
            LOG.warn("rpc {}: {}", m.asText(), e.toString());
            resp = error(id, -32603, "Internal error: " + e.getMessage());
        }
        return new Answer(id == null ? null : resp, then);
    }

    private static String docaError(JsonNode id, DocaException e) {
        DocaError d = e.error();
        boolean caller = d == DocaError.NOT_FOUND || d == DocaError.INVALID_VALUE || d == DocaError.ALREADY_EXIST
                || d == DocaError.FULL || d == DocaError.IN_USE;
        return error(id, caller ? -32602 : -32603,
                (caller ? "Invalid parameters: " : "Internal error: ") + RpcError.plain(e));
    }

    static String error(JsonNode id, int code, String msg) {
        ObjectNode r = MAPPER.createObjectNode();
        r.put("jsonrpc", "2.0");
        r.set("id", id);
        ObjectNode e = r.putObject("error");
        e.put("code", code);
        e.put("message", RpcError.plain(msg)); // an SPDK-style answer names no DOCA error
        try {
            return MAPPER.writeValueAsString(r);
        } catch (JsonProcessingException ex) {
            return "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"internal\"}}";
        }
    }

    /**
     * Stops serving and removes the socket file if it is still the one this server made.
     * Synchronized with {@link #bind}: the file is removed once, never while it is being claimed
     * (this server's socket, not target state).
     */
    @Override
    public synchronized void close() {
        open = false;
        try {
            if (server != null) {
                server.close();
            }
            if (ownedKey != null && Files.exists(path, LinkOption.NOFOLLOW_LINKS) && ownedKey.equals(fileKey(path))) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            LOG.debug("rpc close: {}", e.getMessage());
        }
        ownedKey = null;
    }
}
