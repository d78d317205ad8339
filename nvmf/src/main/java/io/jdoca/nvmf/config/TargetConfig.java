package io.jdoca.nvmf.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code sta-target} JSON configuration ({@code -j/--json}): IO threads, listeners,
 * subsystems with their namespaces and allowed hosts, and the RPC socket. Unknown keys are
 * rejected so a typo does not pass silently; {@link #validate()} checks every value up front so a
 * bad file is refused with one line naming the field before anything is opened.
 *
 * <p>Listeners: the top-level {@code listeners} are given to every subsystem this file defines
 * that has no {@code listeners} of its own; a subsystem with its own list is reachable only on
 * those. Subsystems created later over RPC are reachable only on the listeners added to them with
 * {@code nvmf_subsystem_add_listener} (SPDK's and Linux nvmet's rule).
 *
 * <p>Immutable records; safe from any thread.
 *
 * @param ioThreads  IO engine threads (default 1)
 * @param rpcSocket  path of the JSON-RPC Unix socket, or null for none
 * @param listeners  TCP listeners
 * @param subsystems NVM subsystems
 * @param maxIoSize  largest I/O in bytes (MDTS), default 131072
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TargetConfig(
        @JsonProperty("io_threads") Integer ioThreads,
        @JsonProperty("rpc_socket") String rpcSocket,
        @JsonProperty("listeners") List<ListenerConfig> listeners,
        @JsonProperty("subsystems") List<SubsystemConfig> subsystems,
        @JsonProperty("max_io_size") Integer maxIoSize) {

    public static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .setDefaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_NULL,
                    JsonInclude.Include.USE_DEFAULTS));

    public TargetConfig {
        ioThreads = ioThreads == null ? 1 : ioThreads;
        listeners = listeners == null ? List.of() : List.copyOf(listeners);
        subsystems = subsystems == null ? List.of() : List.copyOf(subsystems);
        maxIoSize = maxIoSize == null ? 131072 : maxIoSize;
    }

    /** Reads a configuration file (not yet validated). Throws ConfigException with a one-line message. */
    public static TargetConfig load(Path path) throws IOException {
        try {
            return MAPPER.readValue(Files.readString(path), TargetConfig.class);
        } catch (NoSuchFileException e) {
            throw new ConfigException("--json", "no such file " + path);
        } catch (JsonProcessingException e) {
            throw jsonProblem(path.toString(), e);
        }
    }

    public static TargetConfig parse(String json) throws IOException {
        try {
            return MAPPER.readValue(json, TargetConfig.class);
        } catch (JsonProcessingException e) {
            throw jsonProblem("config", e);
        }
    }

    /** One line from a Jackson error: the JSON path of the value and what was wrong with it. */
    public static ConfigException jsonProblem(String where, JsonProcessingException e) {
        String msg = e.getOriginalMessage() == null ? e.getClass().getSimpleName() : e.getOriginalMessage();
        msg = msg.lines().findFirst().orElse(msg).replaceAll(" \\(class [^)]*\\)", "")
                .replaceAll("`[a-z.]+\\.([A-Za-z$]+)`", "$1");
        if (e instanceof com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException u) {
            msg = "unknown key (known: " + String.join(", ",
                    u.getKnownPropertyIds().stream().map(String::valueOf).sorted().toList()) + ")";
        } else if (msg.startsWith("Cannot coerce Floating-point")) {
            msg = "must be a whole number";
        }
        msg = msg.replaceAll(" \\(but could if coercion.*\\)", "");
        if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
            return new ConfigException(path(m.getPath()), msg);
        }
        var loc = e.getLocation();
        return new ConfigException(where, "not valid JSON" + (loc != null ? " at line " + loc.getLineNr()
                + " column " + loc.getColumnNr() : "") + ": " + msg);
    }

    /** "subsystems[0].namespaces[1].size_mb" from Jackson's reference chain. */
    public static String path(List<JsonMappingException.Reference> refs) {
        StringBuilder b = new StringBuilder();
        for (JsonMappingException.Reference r : refs) {
            if (r.getFieldName() != null) {
                b.append(b.isEmpty() ? "" : ".").append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                b.append('[').append(r.getIndex()).append(']');
            }
        }
        return b.toString();
    }

    /**
     * Checks every value (ranges, NQNs, addresses, duplicate nsids). Throws ConfigException naming
     * the first bad field. What depends on a namespace's back-end (its fields, file directories,
     * the memory the RAM namespaces need together) is its bdev module's to check:
     * {@code io.jdoca.nvmf.bdev.BdevModules.check}.
     */
    public TargetConfig validate() {
        if (ioThreads < 1 || ioThreads > 64) {
            throw new ConfigException("io_threads", ioThreads + " is out of range 1..64");
        }
        if (rpcSocket != null) {
            checkSocketPath("rpc_socket", rpcSocket);
        }
        if (maxIoSize < 4096 || maxIoSize > (1 << 20) || Integer.bitCount(maxIoSize) != 1) {
            throw new ConfigException("max_io_size", maxIoSize + " must be a power of two from 4096 to 1048576");
        }
        for (int i = 0; i < listeners.size(); i++) {
            listeners.get(i).validate("listeners[" + i + "]");
        }
        Set<String> nqns = new HashSet<>();
        for (int i = 0; i < subsystems.size(); i++) {
            SubsystemConfig s = subsystems.get(i);
            String w = "subsystems[" + i + "]";
            s.validate(w);
            if (!nqns.add(s.nqn())) {
                throw new ConfigException(w + ".nqn", "\"" + s.nqn() + "\" is defined twice");
            }
        }
        return this;
    }

    /** A Unix socket path: non-empty and within sun_path's 107 bytes. */
    public static void checkSocketPath(String field, String p) {
        if (p.isBlank()) {
            throw new ConfigException(field, "is empty");
        }
        if (p.getBytes(StandardCharsets.UTF_8).length > 107) {
            throw new ConfigException(field, "longer than the 107 bytes a Unix socket path may have");
        }
    }

    /**
     * An IP address as people and SPDK write it: IPv4 dotted, IPv6 in RFC 5952's compressed form
     * ({@code ::1}, {@code fe80::1}, not Java's {@code 0:0:0:0:0:0:0:1}).
     */
    public static String ipText(InetAddress ip) {
        if (!(ip instanceof java.net.Inet6Address)) {
            return ip.getHostAddress();
        }
        byte[] b = ip.getAddress();
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
        }
        int best = -1;
        int bestLen = 1; // RFC 5952 4.2.2: a single zero group is not shortened
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                best = i;
                bestLen = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == best) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }

    /** An IP address literal (no name look-up): 127.0.0.1, 0.0.0.0, ::1. */
    public static InetAddress ipLiteral(String field, String address) {
        try {
            return InetAddress.ofLiteral(address == null ? "" : address);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(field, "\"" + address
                    + "\" is not an IP address (e.g. 127.0.0.1, 0.0.0.0 or ::1)");
        }
    }

    /** {@code --listen [rdma:|tcp:]ADDRESS:PORT} ({@code [::1]:4420} for IPv6; no prefix = TCP). */
    public static ListenerConfig parseListen(String flag, String v) {
        String trtype = null;
        for (String t : new String[] {"rdma:", "tcp:"}) {
            if (v.regionMatches(true, 0, t, 0, t.length())) {
                trtype = t.substring(0, t.length() - 1);
                v = v.substring(t.length());
            }
        }
        int c = v.lastIndexOf(':');
        if (c <= 0 || c == v.length() - 1) {
            throw new ConfigException(flag, "\"" + v + "\" must be ADDRESS:PORT (e.g. 127.0.0.1:4420)");
        }
        String addr = v.substring(0, c);
        if (addr.startsWith("[") && addr.endsWith("]")) {
            addr = addr.substring(1, addr.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(v.substring(c + 1));
        } catch (NumberFormatException e) {
            throw new ConfigException(flag, "\"" + v + "\": port \"" + v.substring(c + 1) + "\" is not a number");
        }
        ListenerConfig l = new ListenerConfig(trtype, addr, port);
        l.validate(flag);
        return l;
    }

    /**
     * A listener.
     *
     * @param trtype  transport: "tcp" (absent: TCP) or "rdma" (NVMe/RDMA over an RDMA device's IPv4 address)
     * @param address IP address to bind (e.g. 127.0.0.1 or 0.0.0.0)
     * @param port    port (4420 is NVMe-oF's)
     * @param anaState a subsystem listener's initial ANA state, SPDK's names (optimized, non_optimized,
     *                inaccessible); only with the subsystem's ana_reporting; absent: optimized
     */
    public record ListenerConfig(@JsonProperty("trtype") String trtype, @JsonProperty("address") String address,
                                 @JsonProperty(value = "port", required = true) int port,
                                 @JsonProperty("ana_state") String anaState) {
        public ListenerConfig(String trtype, String address, int port) {
            this(trtype, address, port, null);
        }

        public ListenerConfig {
            address = address == null ? "127.0.0.1" : address;
            trtype = trtype == null ? "TCP" : trtype.toUpperCase(java.util.Locale.ROOT);
        }

        /** An NVMe/TCP listener. */
        public ListenerConfig(String address, int port) {
            this(null, address, port);
        }

        void validate(String where) {
            InetAddress ip = ipLiteral(where.startsWith("-") ? where : f(where, "address"), address);
            if (port < 0 || port > 65535) {
                throw new ConfigException(where.startsWith("-") ? where : f(where, "port"),
                        port + " is out of range 0..65535");
            }
            if (!trtype.equals("TCP") && !trtype.equals("RDMA")) {
                throw new ConfigException(where.startsWith("-") ? where : f(where, "trtype"),
                        "\"" + trtype + "\": tcp or rdma");
            }
            if (trtype.equals("RDMA") && !(ip instanceof java.net.Inet4Address)) {
                throw new ConfigException(where.startsWith("-") ? where : f(where, "address"),
                        address + ": NVMe/RDMA listeners take an IPv4 address");
            }
            if (anaState != null
                    && !java.util.List.of("optimized", "non_optimized", "inaccessible").contains(anaState)) {
                throw new ConfigException(f(where, "ana_state"), "\"" + anaState
                        + "\" is not an ANA state (optimized, non_optimized, inaccessible)");
            }
        }
    }

    /**
     * An NVM subsystem.
     *
     * @param nqn          subsystem NQN
     * @param serialNumber serial number reported in Identify Controller (20 ASCII characters max)
     * @param modelNumber  model number (40 max)
     * @param allowAnyHost accept every host NQN
     * @param hosts        allowed host NQNs when allowAnyHost is false
     * @param namespaces   namespaces
     * @param listeners    if present, the only listeners this subsystem is reachable on (SPDK's
     *                     per-subsystem listen addresses; they are opened if not already); absent =
     *                     every listener of the target
     * @param anaReporting report Asymmetric Namespace Access (SPDK's {@code ana_reporting}, {@code -r})
     * @param minCntlid    lowest controller id this target hands out for the subsystem (SPDK's {@code -i})
     * @param maxCntlid    highest one (SPDK's {@code -I}): two targets serving one NQN take disjoint ranges
     */
    public record SubsystemConfig(
            @JsonProperty("nqn") String nqn,
            @JsonProperty("serial_number") String serialNumber,
            @JsonProperty("model_number") String modelNumber,
            @JsonProperty("allow_any_host") Boolean allowAnyHost,
            @JsonProperty("hosts") List<String> hosts,
            @JsonProperty("namespaces") List<NamespaceConfig> namespaces,
            @JsonProperty("listeners") List<ListenerConfig> listeners,
            @JsonProperty("ana_reporting") Boolean anaReporting,
            @JsonProperty("min_cntlid") Integer minCntlid,
            @JsonProperty("max_cntlid") Integer maxCntlid) {
        /** Controller ids a subsystem may hand out (NVMe Base 2.0: FFF0h..FFFFh are reserved). */
        public static final int CNTLID_MIN = 1;
        public static final int CNTLID_MAX = 0xffef;

        public SubsystemConfig {
            allowAnyHost = allowAnyHost == null ? Boolean.FALSE : allowAnyHost;
            anaReporting = anaReporting == null ? Boolean.FALSE : anaReporting;
            minCntlid = minCntlid == null ? CNTLID_MIN : minCntlid;
            maxCntlid = maxCntlid == null ? CNTLID_MAX : maxCntlid;
            hosts = hosts == null ? List.of() : List.copyOf(hosts);
            namespaces = namespaces == null ? List.of() : List.copyOf(namespaces);
        }

        /** Checks this subsystem; {@code where} prefixes field names (e.g. "subsystems[0]"). */
        public void validate(String where) {
            Nqn.check(f(where, "nqn"), nqn);
            if (Nqn.DISCOVERY.equals(nqn)) {
                throw new ConfigException(f(where, "nqn"), "the discovery NQN cannot be created");
            }
            checkAscii(f(where, "serial_number"), serialNumber, 20);
            checkAscii(f(where, "model_number"), modelNumber, 40);
            if (minCntlid < CNTLID_MIN || minCntlid > CNTLID_MAX) {
                throw new ConfigException(f(where, "min_cntlid"), minCntlid + " is out of range 1..65519");
            }
            if (maxCntlid < minCntlid || maxCntlid > CNTLID_MAX) {
                throw new ConfigException(f(where, "max_cntlid"), maxCntlid + " is out of range " + minCntlid
                        + "..65519 (min_cntlid..65519)");
            }
            for (int j = 0; j < hosts.size(); j++) {
                Nqn.check(f(where, "hosts[" + j + "]"), hosts.get(j));
            }
            if (listeners != null) {
                for (int j = 0; j < listeners.size(); j++) {
                    listeners.get(j).validate(f(where, "listeners[" + j + "]"));
                }
            }
            Set<Integer> nsids = new HashSet<>();
            for (int j = 0; j < namespaces.size(); j++) {
                NamespaceConfig n = namespaces.get(j);
                n.validate(f(where, "namespaces[" + j + "]"));
                if (n.nsid() != 0 && !nsids.add(n.nsid())) {
                    throw new ConfigException(f(where, "namespaces[" + j + "].nsid"),
                            n.nsid() + " is used twice in " + nqn);
                }
            }
        }

        public SubsystemConfig(String nqn, String serialNumber, String modelNumber, Boolean allowAnyHost,
                               List<String> hosts, List<NamespaceConfig> namespaces) {
            this(nqn, serialNumber, modelNumber, allowAnyHost, hosts, namespaces, null);
        }

        public SubsystemConfig(String nqn, String serialNumber, String modelNumber, Boolean allowAnyHost,
                               List<String> hosts, List<NamespaceConfig> namespaces, List<ListenerConfig> listeners) {
            this(nqn, serialNumber, modelNumber, allowAnyHost, hosts, namespaces, listeners, null, null, null);
        }

        /** Whether this subsystem's controller ids were chosen by the operator (not SPDK's full default range). */
        public boolean explicitCntlidRange() {
            return minCntlid != CNTLID_MIN || maxCntlid != CNTLID_MAX;
        }
    }

    /**
     * A namespace.
     *
     * @param nsid      front-end namespace id (1-based); 0 or absent = next free
     * @param backend   the back-end, named as its bdev module lists it: "memory", "file" (file or
     *                  block device) or "null" (see {@code io.jdoca.nvmf.bdev.BdevModules})
     * @param sizeMb    size in MiB (memory and null; file: created/extended to it, 0 = existing size)
     * @param blockSize logical block size, 512 or 4096
     * @param path      file or block device path (file back-end)
     * @param uuid      namespace UUID (optional; derived from NQN and nsid when absent)
     * @param anagrpid  ANA group (optional; SPDK's default: the nsid)
     * @param ptplFile  where reservations persist through power loss (SPDK's ptpl_file; optional)
     */
    public record NamespaceConfig(
            @JsonProperty("nsid") Integer nsid,
            @JsonProperty("backend") String backend,
            @JsonProperty("size_mb") Long sizeMb,
            @JsonProperty("block_size") Integer blockSize,
            @JsonProperty("path") String path,
            @JsonProperty("uuid") String uuid,
            @JsonProperty("anagrpid") Integer anagrpid,
            @JsonProperty("ptpl_file") String ptplFile) {
        public NamespaceConfig {
            nsid = nsid == null ? 0 : nsid;
            backend = backend == null ? "memory" : backend;
            sizeMb = sizeMb == null ? 0L : sizeMb;
            blockSize = blockSize == null ? 4096 : blockSize;
            anagrpid = anagrpid == null ? 0 : anagrpid;
        }

        public NamespaceConfig(Integer nsid, String backend, Long sizeMb, Integer blockSize, String path,
                               String uuid) {
            this(nsid, backend, sizeMb, blockSize, path, uuid, null, null);
        }

        /**
         * Checks the fields every namespace has (not its back-end's: its bdev module checks those;
         * nor nsid clashes); {@code where} prefixes field names (e.g. "subsystems[0].namespaces[1]"
         * or "namespace").
         */
        public void validate(String where) {
            if (nsid < 0 || nsid > io.jdoca.sta.Sta.MAX_NS_PER_SUBSYSTEM) {
                throw new ConfigException(f(where, "nsid"), nsid + " is out of range 1.."
                        + io.jdoca.sta.Sta.MAX_NS_PER_SUBSYSTEM + " (0 = next free)");
            }
            if (anagrpid < 0 || anagrpid > io.jdoca.sta.Sta.MAX_NS_PER_SUBSYSTEM) {
                throw new ConfigException(f(where, "anagrpid"), anagrpid + " is out of range 1.."
                        + io.jdoca.sta.Sta.MAX_NS_PER_SUBSYSTEM + " (0 = the nsid)");
            }
            if (blockSize != 512 && blockSize != 4096) {
                throw new ConfigException(f(where, "block_size"), blockSize + " must be 512 or 4096");
            }
            if (sizeMb < 0 || sizeMb > (Long.MAX_VALUE >> 21)) {
                throw new ConfigException(f(where, "size_mb"), sizeMb + " must be a positive number of MiB");
            }
            if (uuid != null) {
                try {
                    java.util.UUID.fromString(uuid);
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(f(where, "uuid"), "\"" + uuid + "\" is not a UUID");
                }
            }
        }
    }

    /** "where.name", or "name" when where is empty (RPC parameters). */
    static String f(String where, String name) {
        return where.isEmpty() ? name : where + "." + name;
    }

    static void checkAscii(String field, String v, int max) {
        if (v == null) {
            return;
        }
        if (v.length() > max || !v.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
            throw new ConfigException(field, "must be at most " + max + " printable ASCII characters");
        }
    }
}
