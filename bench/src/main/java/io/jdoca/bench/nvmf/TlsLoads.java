package io.jdoca.bench.nvmf;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.bench.BenchResult;
import io.jdoca.sta.nvmf.tls.NvmeTlsKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;

/**
 * The price of NVMe/TCP over TLS 1.3 (issue 33): the memory subsystem of {@link NvmfSuite}'s target, reached
 * once through its plain listener and once through a secure-channel listener added by RPC
 * ({@code keyring_file_add_key}, {@code nvmf_subsystem_add_host --psk}, {@code nvmf_subsystem_add_listener
 * secure_channel}), nvme-perf with {@code -S ssl --psk-path}; 4 KiB random read and 128 KiB read at QD 32,
 * TLS and plain back to back in the same run, reported as TLS with plain as its baseline (the ratio).
 *
 * <p>Threads: the bench's thread only.
 */
final class TlsLoads {
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:6a646f63-612d-7065-7266-000000000001";

    private final NvmfSuite suite;
    private final Path dir;
    private final Path rpcSock;

    TlsLoads(NvmfSuite suite, Path dir, Path rpcSock) {
        this.suite = suite;
        this.dir = dir;
        this.rpcSock = rpcSock;
    }

    void run(List<BenchResult> out, String perfCpu, int tport, double secs) throws Exception {
        Path key = dir.resolve("bench-psk.key");
        Files.writeString(key, NvmeTlsKey.generate(NvmeTlsKey.HASH_SHA256, new SecureRandom()).interchange() + "\n");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        int sport = NvmfSuite.freePort();
        rpc("keyring_file_add_key", Map.of("name", "benchpsk", "path", key.toString()));
        rpc("nvmf_subsystem_add_host", Map.of("nqn", NvmfSuite.NQN, "host", HOST, "psk", "benchpsk"));
        rpc("nvmf_subsystem_add_listener", Map.of("nqn", NvmfSuite.NQN, "secure_channel", true, "listen_address",
                Map.of("trtype", "TCP", "adrfam", "IPv4", "traddr", "127.0.0.1", "trsvcid", String.valueOf(sport))));
        List<String> plain = List.of("--hostnqn", HOST);
        List<String> tls = List.of("--hostnqn", HOST, "-S", "ssl", "--psk-path", key.toString());
        // JIT warm-up of the TLS path (unmeasured).
        suite.perf(perfCpu, dir, sport, NvmfSuite.NQN, new NvmfSuite.Load("tls_warmup", "randrw", 4096, 32), 2, 512,
                tls);
        String base = "plain NVMe/TCP to the same target and namespace, same run";
        for (NvmfSuite.Load l : List.of(new NvmfSuite.Load("tls_randread_4k_qd32", "randread", 4096, 32),
                new NvmfSuite.Load("tls_read_128k_qd32", "read", 131072, 32))) {
            JsonNode p = suite.perf(perfCpu, dir, tport, NvmfSuite.NQN, l, secs, 512, plain);
            JsonNode t = suite.perf(perfCpu, dir, sport, NvmfSuite.NQN, l, secs, 512, tls);
            if (l.ioSize() == 4096) {
                out.add(BenchResult.of("nvmf." + l.name() + ".kiops", "kIOPS", t.get("iops").asDouble() / 1000, base,
                        p.get("iops").asDouble() / 1000));
            } else {
                out.add(BenchResult.of("nvmf." + l.name() + ".mibps", "MiB/s", t.get("mibps").asDouble(), base,
                        p.get("mibps").asDouble()));
            }
            out.add(BenchResult.of("nvmf." + l.name() + ".lat_p50_us", "us", t.get("lat_p50_us").asDouble(), base,
                    p.get("lat_p50_us").asDouble()));
        }
        Files.deleteIfExists(key);
    }

    /** One JSON-RPC call on the target's socket; throws IOException with the target's error. */
    private JsonNode rpc(String method, Map<String, Object> params) throws IOException {
        return TargetRpc.call(rpcSock, method, params);
    }
}
