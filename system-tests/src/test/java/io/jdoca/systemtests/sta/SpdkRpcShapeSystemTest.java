package io.jdoca.systemtests.sta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jdoca.testkit.JavaProcess;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30, acceptance 1 (profile {@code interop}, with {@code system}): SPDK's own, unmodified
 * {@code rpc.py} from {@code ../shared/spdk-rpc} drives sta-target through every RPC issue 30
 * lists, and each answer's shape (keys and JSON types) is compared with SPDK's documented example
 * ({@code spdk/rpc-fixtures.json}, each entry citing its section of SPDK v25.09's
 * doc/jsonrpc.md.jinja2). The target starts as SPDK's does with {@code --wait-for-rpc} and a
 * {@code -c} file with comments; a host (nvme-perf) is connected while controllers, queue pairs
 * and histograms are read; {@code spdk_kill_instance SIGTERM} ends it. Skipped with a message when
 * ../shared or python3 is absent.
 */
class SpdkRpcShapeSystemTest {
    static final Duration T = Duration.ofSeconds(120);
    static final ObjectMapper M = new ObjectMapper();
    static final String CNODE = "nqn.2016-06.io.spdk:cnode1";

    @TempDir
    Path dir;

    private final Set<String> checked = new LinkedHashSet<>();
    private JsonNode fixtures;

    @Test
    void everyIssue30RpcAnswersInSpdksShape() throws Exception {
        assumeTrue(!Boolean.parseBoolean(System.getProperty("jdoca.skipInterop", "true")),
                "interop tests run with -Pinterop");
        Path rpcPy = SpdkRpcPy.locate();
        try (InputStream in = getClass().getResourceAsStream("/spdk/rpc-fixtures.json")) {
            fixtures = M.readTree(in).get("methods");
        }
        int port = JavaProcess.freePort();
        int port6 = JavaProcess.freePort();
        Path cfg = dir.resolve("spdk.json");
        Files.writeString(cfg, """
                // an SPDK config, commented as SPDK's loader allows
                {"subsystems": [
                  {"subsystem": "bdev", "config": [
                    {"method": "bdev_malloc_create",
                     "params": {"name": "Malloc0", "num_blocks": 4096, "block_size": 4096}}
                  ]},
                  {"subsystem": "nvmf", "config": [
                    /* a subsystem with its namespace and listener */
                    {"method": "nvmf_create_subsystem", "params": {"nqn": "%s", "allow_any_host": false}},
                    {"method": "nvmf_subsystem_add_ns", "params": {"nqn": "%s", "namespace": {"bdev_name": "Malloc0"}}},
                    {"method": "nvmf_subsystem_add_listener", "params": {"nqn": "%s", "listen_address":
                      {"trtype": "TCP", "adrfam": "IPv4", "traddr": "127.0.0.1", "trsvcid": "%d"}}}
                  ]}]}
                """.formatted(CNODE, CNODE, CNODE, port));
        Path sock = dir.resolve("spdk.sock");
        try (JavaProcess tgt = JavaProcess.start("sta-target", "io.jdoca.cli.Main", List.of("sta-target",
                "--wait-for-rpc", "-c", cfg.toString(), "-r", sock.toString()))) {
            SpdkRpcPy rpc = new SpdkRpcPy(rpcPy, sock, true);
            awaitSocket(sock, tgt);
            check(rpc, "nvmf_set_config", "nvmf_set_config", "-d", "match_any");
            assertThat(rpc.fails("bdev_get_bdevs")).contains("\"code\": -1");
            check(rpc, "framework_start_init", "framework_start_init");
            tgt.awaitOutput("STA TARGET READY", T);
            assertThat(tgt.output()).contains("sta-target ready: 1 subsystem(s)");
            assertThat(rpc.fails("nvmf_set_config", "-d", "match_any")).contains("\"code\": -1");

            check(rpc, "nvmf_subsystem_allow_any_host", "nvmf_subsystem_allow_any_host", "-e", CNODE);
            rpc.ok("nvmf_subsystem_add_listener", CNODE, "-t", "tcp", "-a", "::1", "-s", String.valueOf(port6),
                    "-f", "ipv6");
            JsonNode listeners = check(rpc, "nvmf_subsystem_get_listeners", "nvmf_subsystem_get_listeners", CNODE);
            assertThat(listeners.toString()).contains("\"traddr\":\"::1\"").doesNotContain("0:0:0:0");
            check(rpc, "bdev_enable_histogram", "bdev_enable_histogram", "-e", "Malloc0");

            String trid = "trtype:TCP adrfam:IPv4 traddr:127.0.0.1 trsvcid:" + port + " subnqn:" + CNODE;
            try (JavaProcess perf = JavaProcess.start("nvme-perf", "io.jdoca.cli.Main", List.of("nvme-perf", "-r",
                    trid, "-q", "4", "-o", "4096", "-w", "randrw", "-M", "50", "-t", "15", "--warmup", "0",
                    "--range-mb", "8"))) {
                JsonNode ctrls = M.createArrayNode();
                long deadline = System.nanoTime() + T.toNanos();
                while (ctrls.isEmpty() && System.nanoTime() < deadline && perf.process().isAlive()) {
                    ctrls = rpc.result("nvmf_subsystem_get_controllers", CNODE);
                }
                assertThat(ctrls).as(perf.output()).isNotEmpty();
                check(rpc, "nvmf_subsystem_get_controllers", "nvmf_subsystem_get_controllers", CNODE);
                check(rpc, "nvmf_subsystem_get_qpairs", "nvmf_subsystem_get_qpairs", CNODE);
                JsonNode hist = check(rpc, "bdev_get_histogram", "bdev_get_histogram", "Malloc0");
                assertThat(hist.get("histogram").asText()).isNotEmpty();
                perf.terminate();
                perf.awaitExit(T);
            }
            check(rpc, "bdev_reset_iostat", "bdev_reset_iostat", "-b", "Malloc0");
            check(rpc, "bdev_set_qos_limit", "bdev_set_qos_limit", "Malloc0", "--rw-ios-per-sec", "0");
            assertThat(rpc.fails("bdev_set_qos_limit", "Malloc0", "--rw-ios-per-sec", "1000"))
                    .contains("\"code\": -95").contains("no QoS rate limiter");

            check(rpc, "nvmf_discovery_add_referral", "nvmf_discovery_add_referral", "-t", "tcp", "-a", "127.0.0.2",
                    "-s", "4421", "-f", "ipv4");
            check(rpc, "nvmf_discovery_get_referrals", "nvmf_discovery_get_referrals");
            check(rpc, "nvmf_discovery_remove_referral", "nvmf_discovery_remove_referral", "-t", "tcp", "-a",
                    "127.0.0.2", "-s", "4421", "-f", "ipv4");

            check(rpc, "framework_get_reactors", "framework_get_reactors");
            check(rpc, "thread_get_stats", "thread_get_stats");
            check(rpc, "log_set_flag", "log_set_flag", "nvmf");
            JsonNode flags = check(rpc, "log_get_flags", "log_get_flags");
            assertThat(flags.get("nvmf").asBoolean()).isTrue();
            check(rpc, "log_clear_flag", "log_clear_flag", "nvmf");

            check(rpc, "spdk_kill_instance", "spdk_kill_instance", "SIGTERM");
            assertThat(tgt.awaitExit(T)).as(tgt.output()).isZero();
            assertThat(tgt.output()).doesNotContain("DOCA_ERROR");
        }
        List<String> all = new ArrayList<>();
        fixtures.fieldNames().forEachRemaining(all::add);
        assertThat(checked).containsExactlyInAnyOrderElementsOf(all);
    }

    /** Runs rpc.py, compares the answer's result with the fixture of {@code method}, returns it. */
    private JsonNode check(SpdkRpcPy rpc, String method, String... args) throws Exception {
        JsonNode result = rpc.result(args);
        JsonNode f = fixtures.get(method);
        assertThat(f).as("fixture for " + method).isNotNull();
        List<String> diffs = new ArrayList<>();
        shape(method, f.get("result"), result, f.path("values").asBoolean(false), diffs);
        assertThat(diffs).as(method + " answered " + result).isEmpty();
        checked.add(method);
        return result;
    }

    /** Differences between the shape of {@code want} (SPDK's example) and {@code got} (jdoca's answer). */
    static void shape(String at, JsonNode want, JsonNode got, boolean values, List<String> diffs) {
        if (got == null || got.isMissingNode()) {
            diffs.add(at + ": missing");
        } else if (want.getNodeType() != got.getNodeType()) {
            diffs.add(at + ": " + got.getNodeType() + " where SPDK has " + want.getNodeType());
        } else if (want.isObject() && values) {
            JsonNode first = want.elements().next();
            for (Map.Entry<String, JsonNode> e : got.properties()) {
                shape(at + "." + e.getKey(), first, e.getValue(), false, diffs);
            }
        } else if (want.isObject()) {
            for (Map.Entry<String, JsonNode> e : want.properties()) {
                shape(at + "." + e.getKey(), e.getValue(), got.get(e.getKey()), false, diffs);
            }
        } else if (want.isArray()) {
            if (got.isEmpty()) {
                diffs.add(at + ": empty, nothing to compare with SPDK's element");
            }
            for (int i = 0; i < got.size(); i++) {
                shape(at + "[" + i + "]", want.get(0), got.get(i), false, diffs);
            }
        } else if (want.isNumber() && want.isIntegralNumber() != got.isIntegralNumber()) {
            diffs.add(at + ": " + got + " is not an integer as SPDK's " + want);
        }
    }

    private static void awaitSocket(Path sock, JavaProcess tgt) {
        long deadline = System.nanoTime() + T.toNanos();
        while (!Files.exists(sock) && System.nanoTime() < deadline && tgt.process().isAlive()) {
            Thread.onSpinWait();
        }
        assertThat(Files.exists(sock)).as(tgt.output()).isTrue();
    }
}
