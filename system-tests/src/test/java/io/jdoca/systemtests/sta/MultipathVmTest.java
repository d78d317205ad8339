package io.jdoca.systemtests.sta;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
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
 * Multipath and high availability against a real Linux host (profile {@code interop}: Linux 6.1's
 * nvme-tcp host with native NVMe multipath, in QEMU via ../shared/nvme-vm; skipped with a message
 * without it). The host connects to one subsystem over two paths and runs fio write+verify on the
 * multipath device ({@code multipath-guest.sh}) while the test takes the optimized path away and
 * brings it back:
 * <ul>
 *   <li>one sta-target, two listeners: SPDK's unmodified {@code rpc.py} sets the optimized path
 *       inaccessible ({@code nvmf_subsystem_listener_set_ana_state}), then optimized again;</li>
 *   <li>two sta-target processes serving the same NQN from the same file, disjoint controller id
 *       ranges, one listener each: the process behind the optimized path is killed with SIGKILL,
 *       then started again.</li>
 * </ul>
 * Each time I/O moves to the other path with no error reaching fio, every block written verifies,
 * and the path comes back live. The longest I/O stall fio saw is printed.
 */
class MultipathVmTest {
    static final String NQN = "nqn.2024-01.io.jdoca:multipath";
    static final Duration T = Duration.ofSeconds(120);
    private static final ObjectMapper M = new ObjectMapper();

    @TempDir
    Path dir;

    /** A target config: the subsystem on the file, reporting ANA, with its controller id range and listeners. */
    private Path config(String name, Path backing, int minCntlid, int maxCntlid, int... ports) throws IOException {
        return config(name, backing, null, minCntlid, maxCntlid, ports);
    }

    private Path config(String name, Path backing, Path ptpl, int minCntlid, int maxCntlid, int... ports)
            throws IOException {
        StringBuilder ls = new StringBuilder();
        for (int p : ports) {
            ls.append(ls.isEmpty() ? "" : ", ").append("{ \"address\": \"127.0.0.1\", \"port\": ").append(p)
                    .append(" }");
        }
        Path cfg = dir.resolve(name + ".json");
        Files.writeString(cfg, """
                { "io_threads": 1, "rpc_socket": "%s",
                  "subsystems": [ { "nqn": "%s", "allow_any_host": true, "ana_reporting": true,
                    "min_cntlid": %d, "max_cntlid": %d, "listeners": [ %s ],
                    "namespaces": [ { "nsid": 1, "backend": "file", "path": "%s", "size_mb": 64,
                                      "block_size": 4096 %s } ] } ] }
                """.formatted(dir.resolve(name + ".sock"), NQN, minCntlid, maxCntlid, ls, backing,
                ptpl == null ? "" : ", \"ptpl_file\": \"" + ptpl + "\""));
        return cfg;
    }

    static JavaProcess target(String name, Path cfg) throws IOException {
        JavaProcess t = JavaProcess.start(name, "io.jdoca.cli.Main", List.of("sta-target", "-j", cfg.toString()));
        t.awaitOutput("STA TARGET READY", T);
        return t;
    }

    /** multipath-guest.sh in MODE ("ana" or "kill") against listeners P1 (path A) and P2 (path B) of {@link #NQN}. */
    static Process guest(Path dir, Path script, String mode, int p1, int p2, Path rundir) throws IOException {
        String g;
        try (InputStream in = MultipathVmTest.class.getResourceAsStream("/vm/multipath-guest.sh")) {
            g = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        g = g.replace("@P1@", Integer.toString(p1)).replace("@P2@", Integer.toString(p2)).replace("@NQN@", NQN)
                .replace("@MODE@", mode).replace("@FIO_SIZE_MB@", "48").replace("@FIO_RATE@", "300");
        Path gs = dir.resolve("multipath-" + mode + ".sh");
        Files.writeString(gs, g);
        List<String> cmd = new ArrayList<>(List.of("env", "NVME_VM_RUNDIR=" + rundir, "NVME_VM_QUIET=1",
                script.toString(), "exec", gs.toString()));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve(mode + ".log").toFile())
                .start();
    }

    static String[] ana(int port, String state) {
        return new String[] {"nvmf_subsystem_listener_set_ana_state", NQN, "-n", state, "-t", "tcp", "-a",
            "127.0.0.1", "-f", "ipv4", "-s", Integer.toString(port)};
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void oneTargetTwoListenersFailsOverWhenTheOptimizedPathGoesInaccessible() throws Exception {
        Path script = GuestMarkers.nvmeVm();
        Path rpcPy = SpdkRpcPy.locate();
        GuestMarkers.setUp(script, dir.resolve("setup.log"));
        int p1 = JavaProcess.freePort();
        int p2 = JavaProcess.freePort();
        Path cfg = config("one", dir.resolve("one.img"), 1, 0xffef, p1, p2);
        try (JavaProcess t = target("sta-target", cfg)) {
            SpdkRpcPy rpc = new SpdkRpcPy(rpcPy, dir.resolve("one.sock"), false);
            rpc.ok(ana(p2, "non_optimized"));
            JsonNode ls = rpc.json("nvmf_subsystem_get_listeners", NQN);
            assertThat(ls.toString()).contains("\"ana_state\":\"non_optimized\"")
                    .contains("\"ana_state\":\"optimized\"");
            Path rundir = dir.resolve("ana");
            Process vm = guest(dir, script, "ana", p1, p2, rundir);
            try {
                Path console = rundir.resolve("console.log");
                GuestMarkers.await(console, "STA-FIO-RUNNING", vm);
                rpc.ok(ana(p1, "inaccessible"));
                GuestMarkers.await(console, "STA-FAILED-OVER", vm);
                rpc.ok(ana(p1, "optimized"));
                GuestMarkers.await(console, "STA-PATH-BACK", vm);
                assertThat(vm.waitFor(300, TimeUnit.SECONDS)).as("guest ends").isTrue();
                assertThat(vm.exitValue()).as("guest status:\n%s\ntarget:\n%s",
                        GuestMarkers.tail(dir.resolve("ana.log")), t.output()).isZero();
            } finally {
                GuestMarkers.stop(vm);
            }
            assertPaths(rundir, "non-optimized");
            assertThat(Files.readString(rundir.resolve("res/list-subsys-failover")))
                    .containsPattern("live inaccessible").containsPattern("live non-optimized");
            assertThat(Files.readString(rundir.resolve("res/list-subsys-back"))).containsPattern("live optimized");
            report("ana", rundir);
        }
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void twoTargetsServingOneNqnSurviveAKillOfTheOptimizedOne() throws Exception {
        Path script = GuestMarkers.nvmeVm();
        Path rpcPy = SpdkRpcPy.locate();
        GuestMarkers.setUp(script, dir.resolve("setup.log"));
        int p1 = JavaProcess.freePort();
        int p2 = JavaProcess.freePort();
        Path backing = dir.resolve("shared.img");
        Path cfgA = config("a", backing, 1, 99, p1);
        Path cfgB = config("b", backing, 100, 199, p2);
        JavaProcess[] a = {target("sta-target-a", cfgA)};
        try (JavaProcess b = target("sta-target-b", cfgB)) {
            new SpdkRpcPy(rpcPy, dir.resolve("b.sock"), false).ok(ana(p2, "non_optimized"));
            // the same config: the same listener, ids 1..99
            Path rundir = killAndRestartA(dir, script, p1, p2, a, b, () -> target("sta-target-a", cfgA));
            assertPaths(rundir, "non-optimized");
            report("kill", rundir);
        } finally {
            a[0].close();
        }
    }

    /** Starts the target behind path A again. */
    interface Restart {
        JavaProcess start() throws Exception;
    }

    /**
     * multipath-guest.sh's "kill" mode against targets {@code a[0]} (path A, optimized) and {@code b}: once fio
     * writes, {@code kill -9} of A; once the host failed over to B, A again ({@code restart}, into {@code a[0]},
     * which the caller closes); the guest must see I/O come back to A and end clean. Returns the run directory.
     */
    static Path killAndRestartA(Path dir, Path script, int p1, int p2, JavaProcess[] a, JavaProcess b,
                                Restart restart) throws Exception {
        Path rundir = dir.resolve("kill");
        Process vm = guest(dir, script, "kill", p1, p2, rundir);
        try {
            Path console = rundir.resolve("console.log");
            GuestMarkers.await(console, "STA-FIO-RUNNING", vm);
            a[0].kill();
            a[0].awaitExit(T);
            GuestMarkers.await(console, "STA-FAILED-OVER", vm);
            a[0].close();
            a[0] = restart.start();
            GuestMarkers.await(console, "STA-PATH-BACK", vm);
            assertThat(vm.waitFor(300, TimeUnit.SECONDS)).as("guest ends").isTrue();
            assertThat(vm.exitValue()).as("guest status:\n%s\ntarget a:\n%s\ntarget b:\n%s",
                    GuestMarkers.tail(dir.resolve("kill.log")), a[0].output(), b.output()).isZero();
        } finally {
            GuestMarkers.stop(vm);
        }
        return rundir;
    }

    /**
     * Reservations from nvme-cli ({@code reservations-guest.sh}): one Linux host as two hosts (two host
     * NQNs and identifiers) registers, acquires Write Exclusive with PTPL set, sees the other host's
     * write refused with Reservation Conflict and its read pass, reports both registrants; the
     * target is restarted and the reservation is still held (read back from its ptpl_file); release.
     */
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void reservationsFromTwoHostNqnsPersistThroughATargetRestart() throws Exception {
        Path script = GuestMarkers.nvmeVm();
        GuestMarkers.setUp(script, dir.resolve("setup.log"));
        int p = JavaProcess.freePort();
        int p2 = JavaProcess.freePort();
        Path ptpl = dir.resolve("ns1.ptpl");
        Path cfg = config("resv", dir.resolve("resv.img"), ptpl, 1, 0xffef, p, p2);
        String g;
        try (InputStream in = MultipathVmTest.class.getResourceAsStream("/vm/reservations-guest.sh")) {
            g = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Path gs = dir.resolve("reservations.sh");
        Files.writeString(gs, g.replace("@P@", Integer.toString(p)).replace("@P2@", Integer.toString(p2))
                .replace("@NQN@", NQN));
        Path rundir = dir.resolve("resv");
        JavaProcess t = target("sta-target", cfg);
        try {
            Process vm = new ProcessBuilder("env", "NVME_VM_RUNDIR=" + rundir, "NVME_VM_QUIET=1", script.toString(),
                    "exec", gs.toString()).redirectErrorStream(true).redirectOutput(dir.resolve("resv.log").toFile())
                    .start();
            try {
                GuestMarkers.await(rundir.resolve("console.log"), "STA-RESV-HELD", vm);
                assertThat(Files.readString(ptpl)).as("the reservation is in the ptpl_file").contains("\"rtype\"");
                t.terminate();
                t.awaitExit(T);
                t.close();
                t = target("sta-target", cfg);
                assertThat(vm.waitFor(300, TimeUnit.SECONDS)).as("guest ends").isTrue();
                assertThat(vm.exitValue()).as("guest status:\n%s\ntarget:\n%s",
                        GuestMarkers.tail(rundir.resolve("console.log")), t.output()).isZero();
            } finally {
                GuestMarkers.stop(vm);
            }
        } finally {
            t.close();
        }
        String conflict = Files.readString(rundir.resolve("res/write-2"));
        assertThat(conflict).as("host 2's write").containsIgnoringCase("reservation conflict");
        for (String r : List.of("report", "report-after")) {
            String rep = Files.readString(rundir.resolve("res/" + r)).replaceAll("\\s", "");
            assertThat(rep).as(r).contains("\"rtype\":1").contains("\"regctl\":2").contains("4369")
                    .contains("8738");
        }
        assertThat(Files.readString(rundir.resolve("res/write-2-after"))).containsIgnoringCase("reservation conflict");
    }

    /** Two live paths, A optimized and B in {@code stateB}; CMIC reports multi-controller and ANA. */
    static void assertPaths(Path rundir, String stateB) throws IOException {
        String paths = Files.readString(rundir.resolve("res/paths"));
        assertThat(paths).containsPattern("path-a nvme\\d+c\\d+n1 optimized")
                .containsPattern("path-b nvme\\d+c\\d+n1 " + stateB).containsPattern("cmic\\s*:\\s*0xb");
        String subsys = Files.readString(rundir.resolve("res/list-subsys"));
        assertThat(subsys.split("live", -1).length - 1).as("two live paths:\n%s", subsys).isEqualTo(2);
    }

    /** fio ended clean (no error, every block verified); prints the longest completion latency it saw. */
    static void report(String what, Path rundir) throws IOException {
        JsonNode fio = M.readTree(Files.readString(rundir.resolve("res/fio.json")));
        JsonNode job = fio.get("jobs").get(0);
        assertThat(job.get("error").asInt()).as("fio error").isZero();
        long maxNs = job.get("write").get("clat_ns").get("max").asLong();
        long written = job.get("write").get("io_bytes").asLong();
        long verified = job.get("read").get("io_bytes").asLong();
        assertThat(verified).as("every block written was read back and verified").isEqualTo(written);
        System.out.printf("multipath %s: fio wrote %d B, verified %d B, 0 errors; longest write stall %.1f ms; %s%n",
                what, written, verified, maxNs / 1e6, Files.readString(rundir.resolve("res/counts")).strip()
                        .replace('\n', ','));
        for (String l : List.of("list-subsys", "list-subsys-failover", "list-subsys-back")) {
            System.out.println(Files.readString(rundir.resolve("res/" + l)));
        }
        Files.writeString(rundir.resolve("stall.txt"), Long.toString(maxNs));
    }
}
