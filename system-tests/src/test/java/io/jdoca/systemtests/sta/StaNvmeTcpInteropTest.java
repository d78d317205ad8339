package io.jdoca.systemtests.sta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interop (profile {@code interop}): a real Linux NVMe/TCP host (Debian's kernel {@code nvme-tcp},
 * nvme-cli, fio, in QEMU via /work/shared/nvme-vm) against {@code sta-target} on 127.0.0.1:
 * {@code nvme discover}, {@code nvme connect}, {@code nvme list}, {@code id-ctrl}, {@code id-ns},
 * fio {@code verify.fio}, disconnect; then a reconnect with header and data digests
 * ({@code -g -G}) and fio verify again; namespace hot-plug over RPC; {@code blkdiscard} and
 * {@code nvme dsm} with the ranges read back as zeroes. Skips with a message when the harness or
 * its tools are absent. About 1.5 minutes per test on TCG.
 */
class StaNvmeTcpInteropTest {
    static final String NQN = "nqn.2024-01.io.jdoca:interop";
    static final Duration T = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    private int run(String name, List<String> cmd, Path log) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        Process p = pb.start();
        try {
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(name + " timed out; log " + log);
            }
            return p.exitValue();
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    @Timeout(value = 400, unit = TimeUnit.SECONDS)
    void linuxHostConnectsIdentifiesAndVerifiesData() throws Exception {
        Path script = GuestMarkers.nvmeVm();
        Path setupLog = dir.resolve("setup.log");
        int setup = run("setup", List.of(script.toString(), "setup"), setupLog);
        assumeTrue(setup == 0, "SKIPPED: nvme-vm setup failed (needs root, apt-get, qemu): "
                + Files.readString(setupLog));

        int port = JavaProcess.freePort();
        Path cfg = dir.resolve("target.json");
        Path sock = dir.resolve("rpc.sock");
        Files.writeString(cfg, """
                { "io_threads": 2, "rpc_socket": "%s",
                  "listeners": [ { "address": "127.0.0.1", "port": %d } ],
                  "subsystems": [ { "nqn": "%s", "allow_any_host": true,
                    "namespaces": [ { "nsid": 1, "backend": "memory", "size_mb": 256, "block_size": 4096 } ] } ] }
                """.formatted(sock, port, NQN));
        try (JavaProcess target = JavaProcess.start("sta-target", "io.jdoca.cli.Main", List.of("sta-target", "-j",
                cfg.toString()))) {
            target.awaitOutput("STA TARGET READY", T);

            // 1. discover + connect + list + id-ctrl + id-ns + fio verify + disconnect.
            Path run1 = dir.resolve("run1");
            int rc = run("fio", env(run1, "NVME_DISCOVER=1", "FIO_RUNTIME=3", "VERIFY_SIZE_MB=16",
                    script.toString(), "fio", String.valueOf(port), NQN, "verify.fio"), dir.resolve("run1.log"));
            assertThat(rc).as("nvme-vm fio exit status (log %s):\n%s\ntarget:\n%s", dir.resolve("run1.log"),
                    GuestMarkers.tail(dir.resolve("run1.log")), target.output()).isZero();
            Path res = run1.resolve("res");
            assertThat(Files.readString(res.resolve("discover"))).contains("subnqn:  " + NQN).contains("trtype:  tcp");
            assertThat(Files.readString(res.resolve("connect"))).contains("(exit status 0)");
            assertThat(Files.readString(res.resolve("nvme-list"))).contains("/dev/nvme0n1").contains("jdoca");
            assertThat(Files.readString(res.resolve("id-ctrl"))).contains("subnqn    : "
                    + NQN).contains("(exit status 0)");
            assertThat(Files.readString(res.resolve("id-ns"))).contains("nsze    : 0x10000").contains("lbads:12");
            assertThat(Files.readString(res.resolve("disconnect"))).contains("disconnected 1 controller");
            assertFioClean(run1);

            // 2. reconnect with header and data digests, fio verify again.
            Path run2 = dir.resolve("run2");
            rc = run("fio-digests", env(run2, "NVME_CONNECT_OPTS=-l 10 -c 2 -g -G", "FIO_RUNTIME=2", "VERIFY_SIZE_MB=8",
                    script.toString(), "fio", String.valueOf(port), NQN, "verify.fio"), dir.resolve("run2.log"));
            assertThat(rc).as("nvme-vm fio -g -G exit status:\n%s\ntarget:\n%s",
                    GuestMarkers.tail(dir.resolve("run2.log")),
                    target.output()).isZero();
            assertFioClean(run2);

            // The target saw offloaded I/O, no digest or protocol errors.
            try (JavaProcess rpc = JavaProcess.start("sta-rpc", "io.jdoca.cli.Main",
                    List.of("sta-rpc", "-s", sock.toString(), "nvmf_get_stats"))) {
                assertThat(rpc.awaitExit(T)).isZero();
                String stats = rpc.output();
                assertThat(stats).contains("\"digest_errors\" : 0").contains("\"protocol_errors\" : 0");
                assertThat(stats).doesNotContain("\"reads\" : 0,\n  \"writes\" : 0");
            }
            target.terminate();
            assertThat(target.awaitExit(T)).isIn(0, 143);
        }
    }

    /**
     * Namespace hot-plug seen by Linux: while the host is connected, {@code sta-rpc} adds namespace 2
     * (the host gets the namespace-attribute-changed AEN, reads the changed-namespace log and
     * rescans: /dev/nvme*n2 appears), then removes it (the device disappears).
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void linuxHostSeesNamespacesAddedAndRemovedOverRpc() throws Exception {
        Path script = GuestMarkers.nvmeVm();
        int setup = run("setup", List.of(script.toString(), "setup"), dir.resolve("setup.log"));
        assumeTrue(setup == 0, "SKIPPED: nvme-vm setup failed");
        int port = JavaProcess.freePort();
        Path cfg = dir.resolve("target.json");
        Path sock = dir.resolve("rpc.sock");
        Files.writeString(cfg, """
                { "rpc_socket": "%s", "listeners": [ { "address": "127.0.0.1", "port": %d } ],
                  "subsystems": [ { "nqn": "%s", "allow_any_host": true,
                    "namespaces": [ { "nsid": 1, "backend": "memory", "size_mb": 32, "block_size": 4096 } ] } ] }
                """.formatted(sock, port, NQN));
        // The guest side (our own scenario, run with 'nvme-vm.sh exec'): connect, wait for n2, then for its removal.
        Path guest = dir.resolve("hotplug.sh");
        Files.writeString(guest, """
                #!/bin/sh
                . /usr/lib/nvmevm/lib.sh
                A=${HOST_ADDR:-10.0.2.2}
                P=%d
                N=%s
                run_emit connect nvme connect -t tcp -a "$A" -s "$P" -n "$N" -l 10 -c 2 || exit 20
                wait_for 15 ns_for_nqn "$N" || exit 21
                echo "STA-CONNECTED"
                i=0; while [ $i -lt 90 ]; do ls /dev/nvme*n2 >/dev/null 2>&1 && break; sleep 1; i=$((i+1)); done
                run_emit nvme-list nvme list
                ls /dev/nvme*n2 >/dev/null 2>&1 || { dmesg | tail -20; nvme disconnect -n "$N"; exit 40; }
                echo "STA-NS2-SEEN"
                i=0; while [ $i -lt 90 ]; do ls /dev/nvme*n2 >/dev/null 2>&1 || break; sleep 1; i=$((i+1)); done
                ls /dev/nvme*n2 >/dev/null 2>&1 && { nvme disconnect -n "$N"; exit 41; }
                echo "STA-NS2-GONE"
                run_emit nvme-list-after nvme list
                run_emit disconnect nvme disconnect -n "$N"
                emit_dmesg dmesg
                exit 0
                """.formatted(port, NQN));
        try (JavaProcess target = JavaProcess.start("sta-target", "io.jdoca.cli.Main", List.of("sta-target", "-j",
                cfg.toString()))) {
            target.awaitOutput("STA TARGET READY", T);
            Path rundir = dir.resolve("hotplug");
            Path log = dir.resolve("hotplug.log");
            Process vm = new ProcessBuilder(env(rundir, script.toString(), "exec", guest.toString()))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                Path console = rundir.resolve("console.log");
                GuestMarkers.await(console, "STA-CONNECTED", vm);
                rpc(sock, "nvmf_subsystem_add_ns", "nqn=" + NQN, "nsid=2", "backend=memory", "size_mb=16",
                        "block_size=512");
                GuestMarkers.await(console, "STA-NS2-SEEN", vm);
                rpc(sock, "nvmf_subsystem_remove_ns", "nqn=" + NQN, "nsid=2");
                GuestMarkers.await(console, "STA-NS2-GONE", vm);
                assertThat(vm.waitFor(120, TimeUnit.SECONDS)).isTrue();
                assertThat(vm.exitValue()).as("guest status:\n%s\ntarget:\n%s", GuestMarkers.tail(log),
                        target.output()).isZero();
                assertThat(Files.readString(rundir.resolve("res/nvme-list"))).contains("/dev/nvme0n2");
                assertThat(Files.readString(rundir.resolve("res/nvme-list-after"))).doesNotContain("n2 ");
            } finally {
                GuestMarkers.stop(vm);
            }
        }
    }

    /**
     * Deallocate as Linux does it (issue 12 item 6): {@code blkdiscard} of a range and of the whole
     * device (the kernel sends Dataset Management with a 4096-byte range buffer) and
     * {@code nvme dsm --ad} (an exact 16-byte range, through the passthrough ioctl), on a memory and
     * a file namespace; each discarded range reads back as zeroes, its neighbours keep their data.
     * Our own guest script, run with {@code nvme-vm.sh exec}.
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void linuxHostDiscardsAndReadsZeroes() throws Exception {
        Path script = GuestMarkers.nvmeVm();
        int setup = run("setup", List.of(script.toString(), "setup"), dir.resolve("setup.log"));
        assumeTrue(setup == 0, "SKIPPED: nvme-vm setup failed");
        int port = JavaProcess.freePort();
        Path cfg = dir.resolve("target.json");
        Files.writeString(cfg, """
                { "rpc_socket": "%s", "listeners": [ { "address": "127.0.0.1", "port": %d } ],
                  "subsystems": [ { "nqn": "%s", "allow_any_host": true,
                    "namespaces": [ { "nsid": 1, "backend": "memory", "size_mb": 64, "block_size": 4096 },
                                    { "nsid": 2, "backend": "file", "path": "%s", "size_mb": 64,
                                            "block_size": 512 } ] } ] }
                """.formatted(dir.resolve("rpc.sock"), port, NQN, dir.resolve("ns2.img")));
        Path guest = dir.resolve("discard.sh");
        Files.writeString(guest, """
                #!/bin/sh
                . /usr/lib/nvmevm/lib.sh
                A=${HOST_ADDR:-10.0.2.2}
                P=%d
                N=%s
                run_emit connect nvme connect -t tcp -a "$A" -s "$P" -n "$N" -l 10 -c 2 || exit 20
                wait_for 15 ns_for_nqn "$N" || { emit_dmesg dmesg; exit 21; }
                D1=$(ns_for_nqn "$N"); D2=${D1%%n1}n2
                wait_for 15 test -b "$D2" || { run_emit nvme-list nvme list; nvme disconnect -n "$N"; exit 22; }
                rc=0
                : > /tmp/checks
                # check NAME DEV OFF_MIB LEN_MIB zero|data: count the non-zero bytes read back (O_DIRECT)
                check() {
                  n=$(dd if="$2" bs=1M skip="$3" count="$4" iflag=direct 2>/dev/null | tr -d '\\000' | wc -c)
                  ok=ok
                  if [ "$5" = zero ]; then [ "$n" -eq 0 ] || ok=FAIL; else [ "$n" -gt 0 ] || ok=FAIL; fi
                  [ $ok = ok ] || rc=50
                  echo "CHECK $1 $(basename "$2") ${3}M+${4}M expect=$5 nonzero=$n $ok" | tee -a /tmp/checks
                }
                for D in $D1 $D2; do
                  b=$(basename "$D"); nsid=${b##*n}
                  lbs=$(blockdev --getss "$D"); mib=$(( $(blockdev --getsize64 "$D") >> 20 ))
                  run_emit "fill-$b" dd if=/dev/urandom of="$D" bs=1M count=8 oflag=direct || rc=51
                  run_emit "blkdiscard-range-$b" blkdiscard -o 1048576 -l 1048576 "$D" || rc=52
                  check before-range "$D" 0 1 data
                  check range "$D" 1 1 zero
                  check after-range "$D" 2 1 data
                  run_emit "nvme-dsm-$b" nvme dsm "$D" --namespace-id="$nsid" --slbs=$((4 * 1048576 / lbs)) \
                      --blocks=$((1048576 / lbs)) --ad || rc=53
                  check dsm "$D" 4 1 zero
                  check after-dsm "$D" 5 1 data
                  dd if=/dev/urandom of="$D" bs=1M seek=$((mib - 1)) count=1 oflag=direct 2>/dev/null || rc=51
                  check tail-written "$D" $((mib - 1)) 1 data
                  run_emit "blkdiscard-all-$b" blkdiscard "$D" || rc=54
                  check all-head "$D" 0 8 zero
                  check all-tail "$D" $((mib - 1)) 1 zero
                done
                emit_file checks /tmp/checks
                run_emit disconnect nvme disconnect -n "$N"
                emit_dmesg dmesg
                exit $rc
                """.formatted(port, NQN));
        try (JavaProcess target = JavaProcess.start("sta-target", "io.jdoca.cli.Main", List.of("sta-target", "-j",
                cfg.toString()))) {
            target.awaitOutput("STA TARGET READY", T);
            Path rundir = dir.resolve("discard");
            Path log = dir.resolve("discard.log");
            int rc = run("discard", env(rundir, script.toString(), "exec", guest.toString()), log);
            Path console = rundir.resolve("console.log");
            assertThat(rc).as("guest status (50 = a range read back wrong, 52/54 = blkdiscard failed, 53 = nvme "
                    + "dsm):\n%s\n"
                    + "guest:\n%s\ntarget:\n%s", GuestMarkers.tail(log),
                    Files.exists(console) ? GuestMarkers.tail(console) : "", target.output()).isZero();
            Path res = rundir.resolve("res");
            for (String ns : List.of("nvme0n1", "nvme0n2")) {
                assertThat(Files.readString(res.resolve("blkdiscard-range-" + ns))).contains("(exit status 0)");
                assertThat(Files.readString(res.resolve("nvme-dsm-" + ns))).contains("(exit status 0)");
                assertThat(Files.readString(res.resolve("blkdiscard-all-" + ns))).contains("(exit status 0)");
            }
            List<String> checks = Files.readAllLines(res.resolve("checks")).stream().filter(l ->
                    l.startsWith("CHECK")).toList();
            assertThat(checks).hasSize(16).allMatch(l -> l.endsWith(" ok"));
            assertThat(checks).filteredOn(l -> l.contains("expect=zero")).hasSize(8).allMatch(l ->
                    l.contains("nonzero=0 "));
            target.terminate();
            assertThat(target.awaitExit(T)).isIn(0, 143);
        }
    }

    private static void rpc(Path sock, String... args) throws IOException {
        List<String> a = new ArrayList<>(List.of("sta-rpc", "-s", sock.toString()));
        a.addAll(List.of(args));
        try (JavaProcess p = JavaProcess.start("sta-rpc", "io.jdoca.cli.Main", a)) {
            assertThat(p.awaitExit(T)).as("sta-rpc %s:\n%s", a, p.output()).isZero();
        }
    }

    private static List<String> env(Path rundir, String... rest) {
        List<String> c = new ArrayList<>(List.of("env", "NVME_VM_RUNDIR=" + rundir, "NVME_VM_QUIET=1"));
        c.addAll(List.of(rest));
        return c;
    }

    private static void assertFioClean(Path rundir) throws IOException {
        try (var files = Files.list(rundir.resolve("res"))) {
            List<Path> json = files.filter(p -> p.toString().endsWith(".json")).toList();
            assertThat(json).as("fio JSON in %s", rundir).isNotEmpty();
            for (Path j : json) {
                String s = Files.readString(j);
                assertThat(s).contains("\"jobs\"").doesNotContain("\"error\" : 1");
                assertThat(s.replaceAll("\\s", "")).doesNotContainPattern("\"error\":[1-9]");
            }
        }
    }
}
