package io.jdoca.nvmf.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.perf.NvmeTcpHost;
import io.jdoca.nvmf.perf.PerfRun.Out;
import io.jdoca.nvmf.perf.PerfRun;
import io.jdoca.nvmf.rpc.RpcServer;
import io.jdoca.nvmf.rpc.SpdkConfigLoader;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.sta.nvmf.tls.NvmeTlsKey;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * NVMe/TCP over TLS 1.3 with a PSK end to end (issue 33): the target set up through SPDK's RPCs
 * ({@code keyring_file_add_key}, {@code nvmf_subsystem_add_host --psk}, {@code nvmf_subsystem_add_listener
 * secure_channel}), nvme-perf with {@code -S ssl --psk-path} running 4K QD32 with verify, a wrong PSK failing
 * with one line, a plaintext ICReq refused, save_config naming keys (never their content) and replaying.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NvmfTlsTest {
    static final String NQN = "nqn.2016-06.io.spdk:cnode1";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:6a646f63-0000-4000-8000-0000000000d1";
    static final ObjectMapper OM = new ObjectMapper();

    @TempDir
    Path dir;
    NvmfTarget target;
    RpcServer rpc;
    NvmeTlsKey key;
    Path keyFile;
    int port;

    static Path writeKey(Path dir, String name, String text, String perms) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(perms));
        return p;
    }

    JsonNode call(String method, String json) throws Exception {
        return OM.valueToTree(rpc.invoke(method, json == null ? null : OM.readTree(json)));
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @BeforeEach
    void up() throws Exception {
        target = new NvmfTarget(TargetConfig.parse("{\"io_threads\":1}"));
        target.start();
        rpc = new RpcServer(target, null);
        key = NvmeTlsKey.generate(NvmeTlsKey.HASH_SHA256, new SecureRandom());
        keyFile = writeKey(dir, "psk0", key.interchange(), "rw-------");
        port = freePort();
        call("bdev_malloc_create", "{\"name\":\"Malloc0\",\"num_blocks\":16384,\"block_size\":4096}");
        call("nvmf_create_subsystem", "{\"nqn\":\"" + NQN + "\",\"allow_any_host\":false}");
        call("nvmf_subsystem_add_ns", "{\"nqn\":\"" + NQN + "\",\"namespace\":{\"bdev_name\":\"Malloc0\"}}");
        call("keyring_file_add_key", "{\"name\":\"key0\",\"path\":\"" + keyFile + "\"}");
        call("nvmf_subsystem_add_host", "{\"nqn\":\"" + NQN + "\",\"host\":\"" + HOST + "\",\"psk\":\"key0\"}");
        call("nvmf_subsystem_add_listener", "{\"nqn\":\"" + NQN + "\",\"secure_channel\":true,\"listen_address\":"
                + "{\"trtype\":\"TCP\",\"adrfam\":\"IPv4\",\"traddr\":\"127.0.0.1\",\"trsvcid\":\"" + port + "\"}}");
    }

    @AfterEach
    void down() {
        target.close();
    }

    static Out perf(String... args) {
        return PerfRun.run(args);
    }

    String trid() {
        return "trtype:TCP adrfam:IPv4 traddr:127.0.0.1 trsvcid:" + port + " subnqn:" + NQN;
    }

    @Test
    void nvmePerfRuns4kQd32WithVerifyOverTls() {
        Out o = perf("-r", trid(), "--hostnqn", HOST, "-S", "ssl", "--psk-path", keyFile.toString(), "-q", "32",
                "-o", "4096", "-w", "randrw", "-M", "50", "-t", "2", "--warmup", "0", "--verify");
        assertThat(o.rc()).as(o.out() + o.err()).isZero();
        assertThat(o.out()).contains("Total");
        assertThat(o.out() + o.err()).doesNotContain(key.interchange().substring(16, 40));
    }

    @Test
    void wrongPskFailsWithOneClearLine() throws IOException {
        Path wrong = writeKey(dir, "wrong", NvmeTlsKey.generate(1, new SecureRandom()).interchange(), "rw-------");
        Out o = perf("-r", trid(), "--hostnqn", HOST, "--psk-path", wrong.toString(), "-t", "1");
        assertThat(o.rc()).isEqualTo(1);
        assertThat(o.err().strip()).doesNotContain("\n").contains("TLS handshake failed").contains("wrong PSK");
    }

    @Test
    void plaintextIcReqOnASecureListenerIsRefused() throws IOException {
        try (NvmeTcpHost h = new NvmeTcpHost("127.0.0.1", port, false, false, 8, 8192)) {
            assertThatThrownBy(h::initialize).isInstanceOf(IOException.class);
        }
        // The listener still serves TLS hosts afterwards.
        Out o = perf("-r", trid(), "--hostnqn", HOST, "--psk-path", keyFile.toString(), "-t", "1", "-q", "4");
        assertThat(o.rc()).as(o.err()).isZero();
    }

    private NvmeTcpHost tlsHost() throws IOException {
        NvmeTcpHost h = new NvmeTcpHost("127.0.0.1", port, false, false, 8, 8192, key.derive(0, HOST, NQN));
        h.initialize();
        return h;
    }

    /** The Connect must name the host and subsystem the TLS identity named; discovery lists the listener as TLS. */
    @Test
    void connectMustMatchTheTlsIdentityAndDiscoverySaysTls() throws Exception {
        String other = "nqn.2014-08.org.nvmexpress:uuid:6a646f63-0000-4000-8000-0000000000d2";
        call("nvmf_subsystem_add_host", "{\"nqn\":\"" + NQN + "\",\"host\":\"" + other + "\"}");
        try (NvmeTcpHost h = tlsHost()) {
            int[] c = h.connect(0, 31, NQN, other, 0xffff, 0);
            assertThat(c[0]).as("Connect as another host over this host's TLS").isEqualTo(
                    io.jdoca.sta.nvme.NvmeStatus.CONNECT_INVALID_HOST);
        }
        try (NvmeTcpHost h = tlsHost()) {
            assertThat(h.connect(0, 31, "nqn.2014-08.org.nvmexpress.discovery", HOST, 0xffff, 0)[0]).isZero();
            assertThat(h.propertySet(0x14, 1 | (6 << 16) | (4 << 20))[0]).isZero();
            byte[] log = new byte[4096];
            assertThat(h.getLogPage(0x70, 0, log)).isZero();
            assertThat(java.nio.ByteBuffer.wrap(log).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(8)).isEqualTo(1);
            int e = 1024;
            assertThat(log[e]).as("TRTYPE TCP").isEqualTo((byte) 3);
            assertThat(log[e + 3]).as("TREQ secure channel required").isEqualTo((byte) 1);
            assertThat(log[e + 768]).as("TSAS SECTYPE TLS 1.3").isEqualTo((byte) 2);
        }
    }

    @Test
    void keyFilesReadableByOthersAndPerfKeyFilesToo() throws Exception {
        Path open = writeKey(dir, "open", key.interchange(), "rw-r--r--");
        assertThatThrownBy(() -> call("keyring_file_add_key", "{\"name\":\"k1\",\"path\":\"" + open + "\"}"))
                .hasMessageContaining("must not be readable by others").message().doesNotContain("NVMeTLSkey");
        Out o = perf("-r", trid(), "--hostnqn", HOST, "--psk-path", open.toString(), "-t", "1");
        assertThat(o.rc()).isNotZero();
        assertThat(o.err()).contains("must not be readable by others").doesNotContain("NVMeTLSkey");
        JsonNode keys = call("keyring_get_keys", null);
        assertThat(keys.toString()).contains("key0").contains(keyFile.toString()).doesNotContain("NVMeTLSkey");
    }

    /**
     * Interop with a TLS implementation nobody here wrote: OpenSSL's {@code s_client} completes the TLS 1.3 PSK
     * handshake against the secure listener, with the TLS PSK and identity jdoca derives (hex on its command line).
     */
    @Test
    void opensslSClientCompletesTheHandshake() throws Exception {
        Path openssl = Path.of("/usr/bin/openssl");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(openssl), "no /usr/bin/openssl: skipped");
        NvmeTlsKey.Derived d = key.derive(0, HOST, NQN);
        Process p = new ProcessBuilder(openssl.toString(), "s_client", "-brief", "-tls1_3", "-psk",
                java.util.HexFormat.of().formatHex(d.psk()), "-psk_identity", d.identity().text(), "-ciphersuites",
                "TLS_AES_128_GCM_SHA256", "-connect", "127.0.0.1:" + port).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        try {
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("s_client ends").isTrue();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(out).contains("CONNECTION ESTABLISHED").contains("TLSv1.3")
                    .contains("TLS_AES_128_GCM_SHA256");
        } finally {
            p.destroyForcibly();
        }
        // Data both ways: s_client sends an ICReq (its stdin) in a record OpenSSL sealed, jdoca's ICResp comes back
        // in a record jdoca sealed and OpenSSL opened (its stdout).
        Path icreq = dir.resolve("icreq.bin");
        byte[] ic = new byte[128];
        ic[2] = (byte) 128;
        ic[4] = (byte) 128;
        Files.write(icreq, ic);
        Process q = new ProcessBuilder(openssl.toString(), "s_client", "-quiet", "-tls1_3", "-psk",
                java.util.HexFormat.of().formatHex(d.psk()), "-psk_identity", d.identity().text(), "-ciphersuites",
                "TLS_AES_128_GCM_SHA256", "-connect", "127.0.0.1:" + port)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .redirectInput(ProcessBuilder.Redirect.from(icreq.toFile())).start();
        try {
            java.util.concurrent.CompletableFuture<byte[]> resp = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return q.getInputStream().readNBytes(128);
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
            byte[] r = resp.get(30, TimeUnit.SECONDS);
            assertThat(r).hasSize(128);
            assertThat(r[0]).as("ICResp").isEqualTo((byte) 1);
            assertThat(r[2] & 0xff).as("HLEN").isEqualTo(128);
        } finally {
            q.destroyForcibly();
            q.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void saveConfigNamesTheKeyAndReplays() throws Exception {
        JsonNode saved = call("save_config", null);
        String text = saved.toString();
        assertThat(text).contains("\"psk\":\"key0\"").contains("\"secure_channel\":true")
                .contains(keyFile.toString()).doesNotContain("NVMeTLSkey");
        Path file = dir.resolve("saved.json");
        Files.writeString(file, saved.toPrettyString());
        target.close();
        target = new NvmfTarget(TargetConfig.parse("{\"io_threads\":1}"));
        target.start();
        rpc = new RpcServer(target, null);
        SpdkConfigLoader.load(rpc, file);
        assertThat(call("save_config", null).toString()).isEqualTo(text);
        Out o = perf("-r", trid(), "--hostnqn", HOST, "--psk-path", keyFile.toString(), "-t", "1", "-q", "4");
        assertThat(o.rc()).as(o.err()).isZero();
    }
}
