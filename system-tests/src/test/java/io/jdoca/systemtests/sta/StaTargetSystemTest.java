package io.jdoca.systemtests.sta;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.testkit.JavaProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Multi-process loopback (profile {@code system}): {@code sta-target} as its own process, driven
 * by {@code nvme-perf --verify} (with and without digests, mixed random read/write, two queues)
 * and managed with {@code sta-rpc} (add a file-backed namespace, verify I/O on it, read stats).
 */
class StaTargetSystemTest {
    static final String NQN = "nqn.2024-01.io.jdoca:system";
    static final Duration T = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    @Test
    void perfVerifiesDataThroughTheTargetProcess() throws Exception {
        int port = JavaProcess.freePort();
        Path cfg = dir.resolve("target.json");
        Path sock = dir.resolve("rpc.sock");
        Files.writeString(cfg, """
                { "io_threads": 2, "rpc_socket": "%s",
                  "listeners": [ { "address": "127.0.0.1", "port": %d } ],
                  "subsystems": [ { "nqn": "%s", "allow_any_host": true,
                    "namespaces": [ { "nsid": 1, "backend": "memory", "size_mb": 64, "block_size": 4096 } ] } ] }
                """.formatted(sock, port, NQN));
        try (JavaProcess target = JavaProcess.start("sta-target", "io.jdoca.cli.Main", List.of("sta-target", "-j",
                cfg.toString()))) {
            target.awaitOutput("STA TARGET READY", T);
            perf(port, 1, "randrw", "4096", "-H", "-I");
            perf(port, 1, "randrw", "131072", "-c", "2");

            Path img = dir.resolve("ns2.img");
            try (JavaProcess rpc = JavaProcess.start("sta-rpc", "io.jdoca.cli.Main", List.of("sta-rpc", "-s",
                    sock.toString(),
                    "nvmf_subsystem_add_ns", "nqn=" + NQN, "nsid=2", "backend=file", "path=" + img, "size_mb=16",
                            "block_size=512"))) {
                assertThat(rpc.awaitExit(T)).as(rpc.output()).isZero();
                assertThat(rpc.output().trim()).endsWith("2");
            }
            assertThat(Files.size(img)).isEqualTo(16L << 20);
            perf(port, 2, "randrw", "8192");

            try (JavaProcess rpc = JavaProcess.start("sta-rpc", "io.jdoca.cli.Main",
                    List.of("sta-rpc", "-s", sock.toString(), "nvmf_get_stats"))) {
                assertThat(rpc.awaitExit(T)).isZero();
                assertThat(rpc.output()).contains("\"name\" : \"" + NQN + "/2\"").contains("\"protocol_errors\" : 0");
            }
            target.terminate();
            target.awaitExit(T);
        }
    }

    private static void perf(int port, int nsid, String workload, String ioSize, String... extra) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("nvme-perf", "--port", String.valueOf(port), "-n", NQN,
                "--nsid", String.valueOf(nsid), "-w", workload, "-o", ioSize, "-q", "16", "-t", "2", "--warmup", "0.5",
                "--verify", "--range-mb", "8"));
        args.addAll(List.of(extra));
        try (JavaProcess p = JavaProcess.start("nvme-perf", "io.jdoca.cli.Main", args)) {
            int rc = p.awaitExit(T);
            assertThat(rc).as("nvme-perf %s:\n%s", args, p.output()).isZero();
            assertThat(p.output()).contains("verify mismatches: 0").contains("errors: 0").containsPattern("IOPS: "
                    + "[1-9]");
        }
    }
}
