package io.jdoca.sta.target.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code sta-target} JSON configuration ({@code -j/--json}): IO threads, listeners,
 * subsystems with their namespaces and allowed hosts, and the RPC socket. Unknown keys are
 * rejected so a typo does not pass silently.
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
            .setSerializationInclusion(JsonInclude.Include.NON_NULL);

    public TargetConfig {
        ioThreads = ioThreads == null ? 1 : ioThreads;
        listeners = listeners == null ? List.of() : List.copyOf(listeners);
        subsystems = subsystems == null ? List.of() : List.copyOf(subsystems);
        maxIoSize = maxIoSize == null ? 131072 : maxIoSize;
    }

    public static TargetConfig load(Path path) throws IOException {
        return MAPPER.readValue(path.toFile(), TargetConfig.class);
    }

    public static TargetConfig parse(String json) throws IOException {
        return MAPPER.readValue(json, TargetConfig.class);
    }

    /**
     * A TCP listener.
     *
     * @param address IPv4 address to bind (e.g. 127.0.0.1 or 0.0.0.0)
     * @param port    TCP port (4420 is NVMe/TCP's)
     */
    public record ListenerConfig(@JsonProperty("address") String address, @JsonProperty("port") int port) {
        public ListenerConfig {
            address = address == null ? "127.0.0.1" : address;
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
     */
    public record SubsystemConfig(
            @JsonProperty("nqn") String nqn,
            @JsonProperty("serial_number") String serialNumber,
            @JsonProperty("model_number") String modelNumber,
            @JsonProperty("allow_any_host") Boolean allowAnyHost,
            @JsonProperty("hosts") List<String> hosts,
            @JsonProperty("namespaces") List<NamespaceConfig> namespaces,
            @JsonProperty("listeners") List<ListenerConfig> listeners) {
        public SubsystemConfig {
            allowAnyHost = allowAnyHost == null ? Boolean.FALSE : allowAnyHost;
            hosts = hosts == null ? List.of() : List.copyOf(hosts);
            namespaces = namespaces == null ? List.of() : List.copyOf(namespaces);
        }

        public SubsystemConfig(String nqn, String serialNumber, String modelNumber, Boolean allowAnyHost,
                               List<String> hosts, List<NamespaceConfig> namespaces) {
            this(nqn, serialNumber, modelNumber, allowAnyHost, hosts, namespaces, null);
        }
    }

    /**
     * A namespace.
     *
     * @param nsid      front-end namespace id (1-based); 0 or absent = next free
     * @param backend   "memory", "file" (file or block device) or "null"
     * @param sizeMb    size in MiB (memory and null; file: created/extended to it, 0 = existing size)
     * @param blockSize logical block size, 512 or 4096
     * @param path      file or block device path (file back-end)
     * @param uuid      namespace UUID (optional; derived from NQN and nsid when absent)
     */
    public record NamespaceConfig(
            @JsonProperty("nsid") Integer nsid,
            @JsonProperty("backend") String backend,
            @JsonProperty("size_mb") Long sizeMb,
            @JsonProperty("block_size") Integer blockSize,
            @JsonProperty("path") String path,
            @JsonProperty("uuid") String uuid) {
        public NamespaceConfig {
            nsid = nsid == null ? 0 : nsid;
            backend = backend == null ? "memory" : backend;
            sizeMb = sizeMb == null ? 0L : sizeMb;
            blockSize = blockSize == null ? 4096 : blockSize;
        }
    }
}
