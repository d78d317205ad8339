package io.jdoca.systemtests.sta;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sta-target management plane across processes (profile {@code system}): the RPC socket
 * cannot be taken over by a second target, SPDK's own {@code rpc.py} (from {@code ../shared})
 * drives the target, and subsystems are reachable only on the listeners they were given.
 */
class StaManagementSystemTest {
    static final Duration T = Duration.ofSeconds(90);
    static final ObjectMapper M = new ObjectMapper();
    static final String CNODE = "nqn.2016-06.io.spdk:cnode1";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:1b4e28ba-2fa1-11d2-883f-0016d3ccabcd";

    @TempDir
    Path dir;

    private Path config(Path sock, int port) throws IOException {
        Path cfg = dir.resolve("target-" + port + ".json");
        Files.writeString(cfg, """
                { "io_threads": 1, "rpc_socket": "%s",
                  "listeners": [ { "address": "127.0.0.1", "port": %d } ],
                  "subsystems": [ { "nqn": "nqn.2024-01.io.jdoca:cfg", "allow_any_host": true,
                    "namespaces": [ { "nsid": 1, "backend": "memory", "size_mb": 16 } ] } ] }
                """.formatted(sock, port));
        return cfg;
    }

    private static JavaProcess target(Path cfg) throws IOException {
        return JavaProcess.start("sta-target", "io.jdoca.cli.Main", List.of("sta-target", "-j", cfg.toString()));
    }

    private static String staRpc(Path sock, String... args) throws Exception {
        List<String> a = new ArrayList<>(List.of("sta-rpc", "-s", sock.toString()));
        a.addAll(List.of(args));
        try (JavaProcess p = JavaProcess.start("sta-rpc", "io.jdoca.cli.Main", a)) {
            assertThat(p.awaitExit(T)).as("sta-rpc %s:\n%s", a, p.output()).isZero();
            return p.output();
        }
    }

    /** Item 2 (fails on main: the second target took the socket over and deleted it on exit). */
    @Test
    void aSecondTargetCannotStealTheRpcSocket() throws Exception {
        Path sock = dir.resolve("rpc.sock");
        try (JavaProcess first = target(config(sock, JavaProcess.freePort()))) {
            first.awaitOutput("STA TARGET READY", T);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(sock, LinkOption.NOFOLLOW_LINKS)))
                    .isEqualTo("rw-------");
            try (JavaProcess second = target(config(sock, JavaProcess.freePort()))) {
                int rc = second.awaitExit(T);
                assertThat(rc).as(second.output()).isNotZero();
                assertThat(second.output()).contains("sta-target: rpc_socket: " + sock
                        + " is in use by a running server")
                        .doesNotContain("STA TARGET READY").doesNotContain("Exception");
            }
            assertThat(staRpc(sock, "rpc_get_methods")).contains("nvmf_create_subsystem");
            assertThat(staRpc(sock, "nvmf_get_subsystems")).contains("nqn.2024-01.io.jdoca:cfg");
            first.terminate();
            first.awaitExit(T);
        }
        assertThat(Files.exists(sock, LinkOption.NOFOLLOW_LINKS)).as("the owner removed its socket").isFalse();
    }

    /**
     * Item 9: SPDK's own rpc.py (pretty-printed requests, no trailing newline) drives the target
     * (fails on main: every call got "Parse error"). Item 3 across processes: the subsystem it
     * creates is reachable only on the listener it adds.
     */
    @Test
    void spdkRpcPyDrivesTheTargetAndListenersArePerSubsystem() throws Exception {
        Path sock = dir.resolve("spdk.sock");
        SpdkRpcPy rpc = new SpdkRpcPy(SpdkRpcPy.locate(), sock, false);
        int general = JavaProcess.freePort();
        try (JavaProcess tgt = target(config(sock, general))) {
            tgt.awaitOutput("STA TARGET READY", T);
            JsonNode methods = rpc.json("rpc_get_methods");
            assertThat(methods.toString()).contains("nvmf_create_subsystem", "nvmf_subsystem_add_host",
                    "nvmf_get_subsystems",
                    "nvmf_delete_subsystem");
            rpc.ok("nvmf_create_subsystem", CNODE, "-a", "-s", "SPDK00000000000001", "-d", "jdoca rpc.py");
            rpc.ok("nvmf_subsystem_add_host", CNODE, HOST);
            staRpc(sock, "nvmf_subsystem_add_ns", "nqn=" + CNODE, "backend=memory", "size_mb=16", "block_size=4096");

            // No listener yet: the new subsystem is not reachable on the JSON's listener.
            assertThat(perf(general, CNODE)).isNotZero();
            int own = JavaProcess.freePort();
            rpc.ok("nvmf_subsystem_add_listener", CNODE, "-t", "tcp", "-a", "127.0.0.1", "-s", String.valueOf(own));
            assertThat(perf(own, CNODE)).isZero();
            assertThat(perf(general, CNODE)).as("still not on the other listener").isNotZero();
            assertThat(perf(own, "nqn.2024-01.io.jdoca:cfg")).as("the JSON's subsystem is not on cnode1's "
                    + "listener").isNotZero();
            assertThat(perf(general, "nqn.2024-01.io.jdoca:cfg")).isZero();

            JsonNode subs = rpc.json("nvmf_get_subsystems");
            JsonNode cnode = null;
            for (JsonNode s : subs) {
                if (s.path("nqn").asText().equals(CNODE)) {
                    cnode = s;
                }
            }
            assertThat(cnode).as(subs.toString()).isNotNull();
            assertThat(cnode.get("subtype").asText()).isEqualTo("NVMe");
            assertThat(cnode.get("serial_number").asText()).isEqualTo("SPDK00000000000001");
            assertThat(cnode.get("model_number").asText()).isEqualTo("jdoca rpc.py");
            assertThat(cnode.get("allow_any_host").asBoolean()).isTrue();
            assertThat(cnode.get("hosts").get(0).get("nqn").asText()).isEqualTo(HOST);
            assertThat(cnode.get("listen_addresses")).hasSize(1);
            assertThat(cnode.get("listen_addresses").get(0).get("traddr").asText()).isEqualTo("127.0.0.1");
            assertThat(cnode.get("listen_addresses").get(0).get("trsvcid").asText()).isEqualTo(String.valueOf(own));
            assertThat(cnode.get("namespaces").get(0).get("nsid").asInt()).isEqualTo(1);

            // Wrong parameters come back as JSON-RPC -32602 naming the field; rpc.py exits non-zero.
            assertThat(rpc.fails("nvmf_create_subsystem", "not-an-nqn")).contains("-32602").contains("nqn");
            assertThat(rpc.fails("nvmf_subsystem_add_host", CNODE,
                    "h1")).contains("-32602").contains("host");

            rpc.ok("nvmf_delete_subsystem", CNODE);
            assertThat(rpc.ok("nvmf_get_subsystems")).doesNotContain(CNODE);
            assertThat(perf(own, CNODE)).isNotZero(); // its listener closed with it: connection refused
            tgt.terminate();
            tgt.awaitExit(T);
        }
    }

    private static int perf(int port, String nqn) throws Exception {
        List<String> args = List.of("nvme-perf", "--port", String.valueOf(port), "-n", nqn, "--hostnqn", HOST,
                "--nsid", "1",
                "-w", "randrw",
                "-o", "4096", "-q", "4", "-t", "1", "--warmup", "0", "--verify", "--range-mb", "4");
        try (JavaProcess p = JavaProcess.start("nvme-perf", "io.jdoca.cli.Main", args)) {
            int rc = p.awaitExit(T);
            if (rc == 0) {
                assertThat(p.output()).as(p.output()).contains("verify mismatches: 0").contains("errors: 0");
            } else {
                assertThat(p.output()).as(p.output()).containsAnyOf("Connect to " + nqn + " refused",
                        "Connection refused");
            }
            return rc;
        }
    }
}
