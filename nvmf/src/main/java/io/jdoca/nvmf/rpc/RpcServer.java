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
import io.jdoca.nvmf.config.Nqn;
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
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JSON-RPC 2.0 management server on a Unix socket, compatible with SPDK's {@code rpc.py}: it reads
 * one complete JSON value at a time whatever the whitespace (rpc.py sends pretty-printed objects
 * with no trailing newline) and answers each with one JSON object and a newline. A request cut
 * short by a disconnect is never executed. Errors: -32700 malformed JSON, -32600 not a request,
 * -32601 unknown method, -32602 bad parameters (the message names the field), -32603 internal.
 *
 * <p>Methods, with SPDK's parameter names and result shapes: {@code rpc_get_methods},
 * {@code nvmf_get_subsystems}, {@code nvmf_create_subsystem}, {@code nvmf_delete_subsystem},
 * {@code nvmf_subsystem_add_ns} (jdoca back-ends: {@code namespace: {backend, size_mb, ...}}),
 * {@code nvmf_subsystem_remove_ns}, {@code nvmf_subsystem_add_listener},
 * {@code nvmf_subsystem_add_host}, {@code nvmf_subsystem_remove_host}, {@code nvmf_get_stats}.
 *
 * <p>The socket is private to its owner: it is bound inside a fresh 0700 directory, made 0600,
 * then hard-linked to its path (which fails if the path exists), so it is never reachable with
 * looser permissions. A path on which a live server answers is refused ({@link #bind()}); a stale
 * socket file is replaced; {@link #close()} removes the file only while it is still this server's
 * (same device and inode).
 *
 * <p>Threads: one accept thread and one thread per client connection (control path).
 */
public final class RpcServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RpcServer.class);
    static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).maxStringLength(1 << 16).build())
            .build());
    public static final List<String> METHODS = java.util.stream.Stream.concat(Stream.of("rpc_get_methods",
            "nvmf_get_subsystems", "nvmf_create_subsystem", "nvmf_delete_subsystem", "nvmf_subsystem_add_ns",
            "nvmf_subsystem_remove_ns", "nvmf_subsystem_add_listener", "nvmf_subsystem_add_host",
            "nvmf_subsystem_remove_host", "nvmf_get_stats"), SpdkMethods.METHODS.stream()).distinct().toList();
    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;

    private volatile NvmfTarget target;
    private final Path path;
    private ServerSocketChannel server;
    private Object ownedKey;
    private volatile boolean open;
    private final SpdkMethods spdk = new SpdkMethods(() -> target);

    /** {@code path} may be null for a server that only executes (a {@code -c} config replay). */
    public RpcServer(NvmfTarget target, Path path) {
        this.target = target;
        this.path = path == null ? null : path.toAbsolutePath();
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
        return call(method, params);
    }

    /** A trsvcid: a port number 0..65535. */
    static int port(String svc) {
        int port;
        try {
            port = Integer.parseInt(svc);
        } catch (NumberFormatException e) {
            throw new ConfigException("listen_address.trsvcid", "\"" + svc + "\" is not a port number");
        }
        if (port < 0 || port > 65535) {
            throw new ConfigException("listen_address.trsvcid", port + " is out of range 0..65535");
        }
        return port;
    }

    // ------------------------------------------------------------------ socket ownership

    /**
     * Claims the socket path (control path). Throws ConfigException (field {@code rpc_socket}) when
     * a live server answers there, when the path is not a socket or belongs to another user, or
     * when its directory is missing; a stale socket (nothing answers) is replaced.
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
                throw new ConfigException("rpc_socket", "directory path too long for a Unix socket (keep it under 90 bytes)");
            }
            Files.createDirectory(priv, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
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
            throw new ConfigException("rpc_socket", path + " belongs to another user (uid " + uid + "): not replacing it");
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
        return List.of(Files.getAttribute(p, "unix:dev", LinkOption.NOFOLLOW_LINKS), Files.getAttribute(p, "unix:ino", LinkOption.NOFOLLOW_LINKS));
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
                    write(out, error(null, -32700, "Parse error: " + oneLine(e.getOriginalMessage())));
                    return;
                }
                String resp = handle(req);
                if (resp != null) {
                    write(out, resp);
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

    private static String oneLine(String s) {
        return s == null ? "" : s.lines().findFirst().orElse("");
    }

    /** Handles one request given as text (tests, fuzzing); returns the response. */
    public String handle(String text) {
        JsonNode req;
        try {
            req = MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            return error(null, -32700, "Parse error: " + oneLine(e.getOriginalMessage()));
        }
        if (req == null || req.isMissingNode()) {
            return error(null, -32700, "Parse error: empty request");
        }
        String r = handle(req);
        return r != null ? r : error(null, -32600, "Invalid Request: notification (no id) gets no response");
    }

    /** Handles one parsed request; returns the response, or null for a notification (no id). */
    public String handle(JsonNode req) {
        JsonNode id = req.get("id");
        if (!req.isObject()) {
            return error(null, -32600, "Invalid Request: not a JSON object");
        }
        if (id != null && !(id.isTextual() || id.isNumber() || id.isNull())) {
            return error(null, -32600, "Invalid Request: id must be a string, a number or null");
        }
        if (!"2.0".equals(req.path("jsonrpc").asText(null)) || !req.path("jsonrpc").isTextual()) {
            return error(id, -32600, "Invalid Request: jsonrpc must be \"2.0\"");
        }
        JsonNode m = req.get("method");
        if (m == null || !m.isTextual()) {
            return error(id, -32600, "Invalid Request: method must be a string");
        }
        String resp;
        try {
            Object result = call(m.asText(), req.get("params"));
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
        return id == null ? null : resp;
    }

    private static String docaError(JsonNode id, DocaException e) {
        DocaError d = e.error();
        boolean caller = d == DocaError.NOT_FOUND || d == DocaError.INVALID_VALUE || d == DocaError.ALREADY_EXIST
                || d == DocaError.FULL || d == DocaError.IN_USE;
        return error(id, caller ? -32602 : -32603, (caller ? "Invalid parameters: " : "Internal error: ") + e.getMessage());
    }

    static String error(JsonNode id, int code, String msg) {
        ObjectNode r = MAPPER.createObjectNode();
        r.put("jsonrpc", "2.0");
        r.set("id", id);
        ObjectNode e = r.putObject("error");
        e.put("code", code);
        e.put("message", msg);
        try {
            return MAPPER.writeValueAsString(r);
        } catch (JsonProcessingException ex) {
            return "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"internal\"}}";
        }
    }

    // ------------------------------------------------------------------ parameters

    /** A method's parameters: an object with only the listed keys, typed getters naming the field. */
    static final class Params {
        private final JsonNode p;
        private final String prefix;

        Params(JsonNode params, String prefix, String... allowed) {
            this.prefix = prefix;
            if (params == null || params.isNull()) {
                params = MAPPER.createObjectNode();
            }
            if (!params.isObject()) {
                throw new ConfigException(prefix.isEmpty() ? "params" : prefix, "must be a JSON object");
            }
            Set<String> ok = Set.of(allowed);
            for (Iterator<String> it = params.fieldNames(); it.hasNext(); ) {
                String k = it.next();
                if (!ok.contains(k)) {
                    throw new ConfigException(name(k), "unknown parameter (known: " + String.join(", ", allowed) + ")");
                }
            }
            this.p = params;
        }

        String name(String k) {
            return prefix.isEmpty() ? k : prefix + "." + k;
        }

        boolean has(String k) {
            return p.hasNonNull(k);
        }

        JsonNode node(String k) {
            return p.get(k);
        }

        String str(String k, boolean required) {
            JsonNode v = p.get(k);
            if (v == null || v.isNull()) {
                if (required) {
                    throw new ConfigException(name(k), "missing (required)");
                }
                return null;
            }
            if (!v.isTextual()) {
                throw new ConfigException(name(k), "must be a string");
            }
            return v.asText();
        }

        Boolean bool(String k) {
            JsonNode v = p.get(k);
            if (v == null || v.isNull()) {
                return null;
            }
            if (!v.isBoolean()) {
                throw new ConfigException(name(k), "must be true or false");
            }
            return v.asBoolean();
        }

        Long integer(String k, boolean required, long min, long max) {
            JsonNode v = p.get(k);
            if (v == null || v.isNull()) {
                if (required) {
                    throw new ConfigException(name(k), "missing (required)");
                }
                return null;
            }
            if (!v.isIntegralNumber() || !v.canConvertToLong()) {
                throw new ConfigException(name(k), "must be an integer");
            }
            long x = v.asLong();
            if (x < min || x > max) {
                throw new ConfigException(name(k), x + " is out of range " + min + ".." + max);
            }
            return x;
        }

        /** A parameter jdoca accepts only at SPDK's default value (the feature is not implemented). */
        void onlyDefault(String k, Object dflt) {
            JsonNode v = p.get(k);
            if (v != null && !v.isNull() && !MAPPER.valueToTree(dflt).equals(v)) {
                throw new ConfigException(name(k), "only " + dflt + " is supported by jdoca");
            }
        }

        /** SPDK's tgt_name: jdoca has one NVMe-oF target. */
        void noTarget() {
            if (has("tgt_name")) {
                throw new ConfigException("tgt_name", "jdoca runs one NVMe-oF target: omit tgt_name");
            }
        }

        String nqn(String k) {
            String v = str(k, true);
            Nqn.check(name(k), v);
            return v;
        }
    }

    // ------------------------------------------------------------------ methods

    private Object call(String method, JsonNode params) throws Exception {
        switch (method) {
            case "rpc_get_methods": {
                Params p = new Params(params, "", "current", "include_aliases");
                p.bool("current");
                p.bool("include_aliases");
                return METHODS;
            }
            case "nvmf_get_subsystems": {
                Params p = new Params(params, "", "nqn", "tgt_name");
                p.noTarget();
                String nqn = p.str("nqn", false);
                List<Map<String, Object>> l = target.describeSubsystems(nqn);
                if (nqn != null && l.isEmpty()) {
                    throw new ConfigException("nqn", "no subsystem " + nqn);
                }
                return l;
            }
            case "nvmf_create_subsystem": {
                Params p = new Params(params, "", "nqn", "serial_number", "model_number", "allow_any_host", "max_namespaces",
                        "tgt_name", "ana_reporting", "min_cntlid", "max_cntlid", "max_discard_size_kib",
                        "max_write_zeroes_size_kib", "passthrough", "enable_nssr");
                p.noTarget();
                String nqn = p.nqn("nqn");
                Long maxNs = p.integer("max_namespaces", false, 0, io.jdoca.sta.Sta.MAX_NS_PER_SUBSYSTEM);
                p.onlyDefault("ana_reporting", false);
                p.onlyDefault("min_cntlid", 1);
                p.onlyDefault("max_cntlid", 0xffef);
                p.onlyDefault("max_discard_size_kib", 0);
                p.onlyDefault("max_write_zeroes_size_kib", 0);
                p.onlyDefault("passthrough", false);
                p.onlyDefault("enable_nssr", false);
                Boolean any = p.bool("allow_any_host");
                target.createSubsystem(new TargetConfig.SubsystemConfig(nqn, p.str("serial_number", false),
                        p.str("model_number", false), any != null && any, null, null), false,
                        maxNs == null ? 0 : maxNs.intValue());
                return true;
            }
            case "nvmf_delete_subsystem": {
                Params p = new Params(params, "", "nqn", "tgt_name");
                p.noTarget();
                target.deleteSubsystem(p.str("nqn", true));
                return true;
            }
            case "nvmf_subsystem_add_ns":
                return addNs(params);
            case "nvmf_subsystem_remove_ns": {
                Params p = new Params(params, "", "nqn", "nsid", "tgt_name");
                p.noTarget();
                String nqn = p.str("nqn", true);
                int nsid = p.integer("nsid", true, 1, io.jdoca.sta.Sta.MAX_NS_PER_SUBSYSTEM).intValue();
                if (target.subsystem(nqn) == null || target.subsystem(nqn).isDiscovery()) {
                    throw new ConfigException("nqn", "no subsystem " + nqn);
                }
                if (target.subsystem(nqn).ns(nsid) == null) {
                    throw new ConfigException("nsid", "no namespace " + nsid + " in " + nqn);
                }
                try {
                    target.removeNamespace(nqn, nsid).get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof DocaException d) {
                        throw d;
                    }
                    throw new IllegalStateException(String.valueOf(e.getCause()), e.getCause());
                } catch (TimeoutException e) {
                    throw new IllegalStateException("namespace " + nsid + " of " + nqn + " did not drain within 30 s");
                }
                return true;
            }
            case "nvmf_subsystem_add_listener": {
                Params p = new Params(params, "", "nqn", "listen_address", "tgt_name", "secure_channel", "sock_impl", "ana_state");
                p.noTarget();
                p.onlyDefault("secure_channel", false);
                if (p.has("sock_impl") || p.has("ana_state")) {
                    throw new ConfigException(p.has("sock_impl") ? "sock_impl" : "ana_state", "not supported by jdoca");
                }
                String nqn = p.str("nqn", true);
                if (!p.has("listen_address")) {
                    throw new ConfigException("listen_address", "missing (required)");
                }
                Params a = new Params(p.node("listen_address"), "listen_address", "trtype", "adrfam", "traddr", "trsvcid");
                String trtype = a.str("trtype", false);
                if (trtype != null && !trtype.equalsIgnoreCase("tcp") && !trtype.equalsIgnoreCase("rdma")) {
                    throw new ConfigException("listen_address.trtype", "\"" + trtype + "\": jdoca's target speaks TCP and RDMA");
                }
                String tr = trtype == null ? "TCP" : trtype.toUpperCase(java.util.Locale.ROOT);
                String addr = a.str("traddr", true);
                var ip = TargetConfig.ipLiteral("listen_address.traddr", addr);
                if (tr.equals("RDMA") && !(ip instanceof java.net.Inet4Address)) {
                    throw new ConfigException("listen_address.traddr", addr + ": NVMe/RDMA listeners take an IPv4 address");
                }
                String adrfam = a.str("adrfam", false);
                if (adrfam != null && !adrfam.equalsIgnoreCase(ip instanceof java.net.Inet6Address ? "ipv6" : "ipv4")) {
                    throw new ConfigException("listen_address.adrfam", "\"" + adrfam + "\" does not match traddr " + addr);
                }
                String svc = a.str("trsvcid", true);
                int port;
                try {
                    port = Integer.parseInt(svc);
                } catch (NumberFormatException e) {
                    throw new ConfigException("listen_address.trsvcid", "\"" + svc + "\" is not a port number");
                }
                if (port < 0 || port > 65535) {
                    throw new ConfigException("listen_address.trsvcid", port + " is out of range 0..65535");
                }
                if (target.subsystem(nqn) == null) {
                    throw new ConfigException("nqn", "no subsystem " + nqn);
                }
                try {
                    target.addSubsystemListener(nqn, tr, addr, port);
                } catch (IOException e) {
                    throw new ConfigException("listen_address", e.getMessage());
                }
                return true;
            }
            case "nvmf_subsystem_add_host": {
                Params p = new Params(params, "", "nqn", "host", "tgt_name", "psk", "dhchap_key", "dhchap_ctrlr_key");
                p.noTarget();
                for (String k : List.of("psk", "dhchap_key", "dhchap_ctrlr_key")) {
                    if (p.has(k)) {
                        throw new ConfigException(k, "authentication and TLS are not supported by jdoca");
                    }
                }
                String nqn = p.str("nqn", true);
                String host = p.nqn("host");
                target.addHost(nqn, host);
                return true;
            }
            case "nvmf_subsystem_remove_host": {
                Params p = new Params(params, "", "nqn", "host", "tgt_name");
                p.noTarget();
                target.removeHost(p.str("nqn", true), p.str("host", true));
                return true;
            }
            default:
                return spdk.call(method, params);
        }
    }

    /**
     * SPDK's {@code {nqn, namespace: {...}}} with jdoca's back-end fields ({@code backend},
     * {@code size_mb}, {@code block_size}, {@code path}, {@code nsid}, {@code uuid}), or the same
     * fields flat next to {@code nqn} (sta-rpc's key=value form). SPDK bdevs come with a later
     * issue: {@code bdev_name} is refused with a clear message.
     */
    private Object addNs(JsonNode params) throws Exception {
        String[] nsKeys = {"nsid", "backend", "size_mb", "block_size", "path", "uuid", "bdev_name", "nguid", "eui64",
            "anagrpid", "no_auto_visible", "hide_metadata", "ptpl_file"};
        boolean nested = params != null && params.has("namespace");
        Params p;
        Params n;
        if (nested) {
            p = new Params(params, "", "nqn", "namespace", "tgt_name", "no_auto_visible");
            n = new Params(p.node("namespace"), "namespace", nsKeys);
        } else {
            List<String> keys = new ArrayList<>(List.of(nsKeys));
            keys.addAll(List.of("nqn", "tgt_name"));
            p = new Params(params, "", keys.toArray(String[]::new));
            n = p;
        }
        p.noTarget();
        String nqn = p.str("nqn", true);
        if (target.subsystem(nqn) == null || target.subsystem(nqn).isDiscovery()) {
            throw new ConfigException("nqn", "no subsystem " + nqn);
        }
        if (n.has("bdev_name")) {
            for (String k : List.of("backend", "size_mb", "block_size", "path")) {
                if (n.has(k)) {
                    throw new ConfigException(n.name(k), "give either bdev_name or jdoca's backend fields, not both");
                }
            }
        } else if (n.has("nguid")) {
            throw new ConfigException(n.name("nguid"), "only with bdev_name");
        }
        for (String k : List.of("eui64", "anagrpid", "ptpl_file")) {
            if (n.has(k)) {
                throw new ConfigException(n.name(k), "not supported by jdoca");
            }
        }
        n.onlyDefault("no_auto_visible", false);
        n.onlyDefault("hide_metadata", false);
        p.onlyDefault("no_auto_visible", false);
        Long nsid = n.integer("nsid", false, 0, io.jdoca.sta.Sta.MAX_NS_PER_SUBSYSTEM);
        if (n.has("bdev_name")) {
            String u = n.str("uuid", false);
            java.util.UUID uuid = null;
            if (u != null) {
                try {
                    uuid = java.util.UUID.fromString(u);
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(n.name("uuid"), "\"" + u + "\" is not a UUID");
                }
            }
            byte[] nguid = null;
            String g = n.str("nguid", false);
            if (g != null) {
                String hex = g.replace("-", "");
                try {
                    nguid = java.util.HexFormat.of().parseHex(hex);
                } catch (IllegalArgumentException e) {
                    nguid = null;
                }
                if (nguid == null || nguid.length != 16) {
                    throw new ConfigException(n.name("nguid"), "\"" + g + "\" is not 16 bytes in hexadecimal");
                }
            }
            // SPDK answers every failure to add a namespace with -32602 Invalid parameters.
            String bdev = n.str("bdev_name", true);
            var d = target.bdev(bdev);
            if (d == null) {
                throw new ConfigException(n.name("bdev_name"), "no bdev " + bdev + " (create it first: bdev_malloc_create, "
                        + "bdev_null_create, bdev_aio_create)");
            }
            if (d.claimedBy() != null) {
                throw new ConfigException(n.name("bdev_name"), "bdev " + bdev + " is already claimed by " + d.claimedBy());
            }
            return target.addBdevNamespace(nqn, nsid == null ? 0 : nsid.intValue(), bdev, uuid, nguid);
        }
        Long size = n.integer("size_mb", false, 0, Long.MAX_VALUE >> 21);
        Long bs = n.integer("block_size", false, 0, Integer.MAX_VALUE);
        TargetConfig.NamespaceConfig nc = new TargetConfig.NamespaceConfig(nsid == null ? null : nsid.intValue(),
                n.str("backend", false), size, bs == null ? null : bs.intValue(), n.str("path", false), n.str("uuid", false));
        return target.addNamespace(nqn, nc);
    }

    /** Stops serving and removes the socket file if it is still the one this server made. */
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
