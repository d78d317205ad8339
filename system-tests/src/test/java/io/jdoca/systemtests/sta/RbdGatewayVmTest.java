package io.jdoca.systemtests.sta;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jdoca.testkit.CephTestCluster;
import io.jdoca.testkit.JavaProcess;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * sta-target as an NVMe-oF gateway to Ceph (issue 34 item 1; profile {@code interop}): a one-node Ceph cluster on
 * 127.0.0.1 ({@link CephTestCluster}), an image made with the {@code rbd} CLI, SPDK's unmodified rpc.py registering the
 * cluster ({@code bdev_rbd_register_cluster}), creating the bdev ({@code bdev_rbd_create}) and exporting it
 * ({@code nvmf_subsystem_add_ns}); Linux 6.1's nvme-tcp host in the QEMU test bed ({@code rbd-gateway-guest.sh})
 * writes the first 32 MiB at random with fio's crc32c verify, and the SHA-256 of that range read back through the
 * target equals the SHA-256 of the same range of {@code rbd export}: what the host wrote is what Ceph holds.
 * Item 3: two gateways on one image under Linux's native multipath, the optimized one killed during fio verify.
 * Skipped with a message without ../shared, rpc.py, QEMU or Ceph.
 */
class RbdGatewayVmTest {
    static final String NQN = "nqn.2024-01.io.jdoca:rbd";
    static final int MB = 32;
    static final Duration T = Duration.ofSeconds(120);
    /** The namespace's UUID on both gateways of the multipath test: one namespace, two paths, to the host. */
    static final String MP_UUID = "6a646f63-7262-4400-8000-000000000034";

    /** Kept when a test fails: the guest's console and results channel are the evidence. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @Test
    @Timeout(value = 900, unit = TimeUnit.SECONDS)
    void linuxHostWritesThroughTheRbdBdevAndCephHoldsWhatItWrote() throws Exception {
        Path script = GuestMarkers.nvmeVm();
        Path rpcPy = SpdkRpcPy.locate();
        try (CephTestCluster ceph = CephTestCluster.start(dir.resolve("ceph"))) {
            GuestMarkers.setUp(script, dir.resolve("setup.log"));
            ceph.rbd("create", "--size", "64M", "--image-feature", "layering", "rbd/gw");
            int port = JavaProcess.freePort();
            Path sock = dir.resolve("rpc.sock");
            Path cfg = dir.resolve("target.json");
            Files.writeString(cfg, """
                    { "io_threads": 1, "rpc_socket": "%s",
                      "subsystems": [ { "nqn": "%s", "allow_any_host": true,
                        "listeners": [ { "address": "127.0.0.1", "port": %d } ], "namespaces": [] } ] }
                    """.formatted(sock, NQN, port));
            String g;
            try (InputStream in = RbdGatewayVmTest.class.getResourceAsStream("/vm/rbd-gateway-guest.sh")) {
                g = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            Path gs = dir.resolve("rbd-gateway.sh");
            Files.writeString(gs, g.replace("@P@", Integer.toString(port)).replace("@NQN@", NQN)
                    .replace("@MB@", Integer.toString(MB)));
            try (JavaProcess t = JavaProcess.start("sta-target", "io.jdoca.cli.Main",
                    List.of("sta-target", "-j", cfg.toString()))) {
                t.awaitOutput("STA TARGET READY", T);
                SpdkRpcPy rpc = new SpdkRpcPy(rpcPy, sock, false);
                rpc.ok("bdev_rbd_register_cluster", "ceph0", "--user", "admin", "--config-file",
                        ceph.conf().toString(), "--key-file", ceph.adminKeyring().toString());
                assertThat(bdevRbdCreate(rpcPy, sock)).endsWith("Ceph0"); // after a deprecation line
                rpc.ok("nvmf_subsystem_add_ns", NQN, "Ceph0");
                Path rundir = dir.resolve("run");
                Process vm = new ProcessBuilder("env", "NVME_VM_RUNDIR=" + rundir, "NVME_VM_QUIET=1",
                        script.toString(), "exec", gs.toString()).redirectErrorStream(true)
                        .redirectOutput(dir.resolve("vm.log").toFile()).start();
                try {
                    assertThat(vm.waitFor(600, TimeUnit.SECONDS)).as("guest ends").isTrue();
                    assertThat(vm.exitValue()).as("guest status:\n%s\ntarget:\n%s",
                            GuestMarkers.tail(rundir.resolve("console.log")), t.output()).isZero();
                } finally {
                    GuestMarkers.stop(vm);
                }
                JsonNode job = new ObjectMapper().readTree(rundir.resolve("res/fio.json").toFile()).get("jobs").get(0);
                assertThat(job.get("error").asInt()).isZero();
                long written = job.get("write").get("io_bytes").asLong();
                assertThat(written).as("bytes fio wrote").isEqualTo(MB << 20);
                assertThat(job.get("read").get("io_bytes").asLong()).as("bytes fio read back and verified")
                        .isEqualTo(written);
                String guestSha = Files.readString(rundir.resolve("res/sha256")).strip();
                rpc.ok("bdev_rbd_delete", "Ceph0");
                Path export = dir.resolve("gw.img");
                ceph.rbd("export", "rbd/gw", export.toString());
                String cephSha = sha256(export, (long) MB << 20);
                System.out.printf("RBD gateway: fio wrote and verified %d B through sta-target; SHA-256 of the "
                        + "first %d MiB: host %s, rbd export %s%n", written, MB, guestSha, cephSha);
                assertThat(cephSha).as("rbd export equals what the host read back").isEqualTo(guestSha);
                assertThat(t.output()).doesNotContain(Files.readString(ceph.adminKeyring()).replaceAll(
                        "(?s).*key = (\\S+).*", "$1"));
            }
        }
    }

    /**
     * Issue 34 item 3: two sta-target gateways on one image (cntlid ranges 1..99 and 100..199, one listener each,
     * the same namespace UUID), Linux's native multipath over both ({@code multipath-guest.sh}, as {@link
     * MultipathVmTest}'s two-target test); {@code kill -9} of the gateway behind the optimized path during fio
     * random writes with crc32c verify: no error reaches fio, every block written is read back and verified; the
     * restarted gateway (its RPCs replayed) takes the I/O again.
     */
    @Test
    @Timeout(value = 900, unit = TimeUnit.SECONDS)
    void twoGatewaysOnOneImageSurviveAKillOfTheOptimizedOne() throws Exception {
        Path script = GuestMarkers.nvmeVm();
        Path rpcPy = SpdkRpcPy.locate();
        try (CephTestCluster ceph = CephTestCluster.start(dir.resolve("ceph"))) {
            GuestMarkers.setUp(script, dir.resolve("setup.log"));
            ceph.rbd("create", "--size", "64M", "--image-feature", "layering", "rbd/mp");
            int p1 = JavaProcess.freePort();
            int p2 = JavaProcess.freePort();
            JavaProcess[] a = {gateway("a", 1, 99, p1, ceph, rpcPy)};
            try (JavaProcess b = gateway("b", 100, 199, p2, ceph, rpcPy)) {
                new SpdkRpcPy(rpcPy, dir.resolve("b.sock"), false).ok(MultipathVmTest.ana(p2, "non_optimized"));
                Path rundir = MultipathVmTest.killAndRestartA(dir, script, p1, p2, a, b,
                        () -> gateway("a", 1, 99, p1, ceph, rpcPy));
                MultipathVmTest.assertPaths(rundir, "non-optimized");
                MultipathVmTest.report("two RBD gateways, kill -9", rundir);
            } finally {
                a[0].close();
            }
        }
    }

    /**
     * A gateway on image rbd/mp: the subsystem from its config; the cluster, the bdev, the namespace and last the
     * listener by RPC. The listener comes last as on SPDK's gateways: a host reconnecting to a restarted gateway
     * whose listener is up before its namespace gets Invalid Namespace with DNR on its retried writes, an error
     * multipath does not fail over (seen here with the listener in the config).
     */
    private JavaProcess gateway(String name, int minCntlid, int maxCntlid, int port, CephTestCluster ceph, Path rpcPy)
            throws Exception {
        Path sock = dir.resolve(name + ".sock");
        Path cfg = dir.resolve(name + ".json");
        Files.writeString(cfg, """
                { "io_threads": 1, "rpc_socket": "%s",
                  "subsystems": [ { "nqn": "%s", "allow_any_host": true, "ana_reporting": true,
                    "min_cntlid": %d, "max_cntlid": %d,
                    "listeners": [], "namespaces": [] } ] }
                """.formatted(sock, MultipathVmTest.NQN, minCntlid, maxCntlid));
        JavaProcess t = MultipathVmTest.target("rbd-gateway-" + name, cfg);
        SpdkRpcPy rpc = new SpdkRpcPy(rpcPy, sock, false);
        rpc.ok("bdev_rbd_register_cluster", "ceph0", "--user", "admin", "--config-file", ceph.conf().toString(),
                "--key-file", ceph.adminKeyring().toString());
        assertThat(bdevRbdCreate(rpcPy, sock, "mp", "'" + MP_UUID + "'")).endsWith("Ceph0");
        rpc.ok("nvmf_subsystem_add_ns", MultipathVmTest.NQN, "Ceph0", "-n", "1", "-u", MP_UUID);
        rpc.ok("nvmf_subsystem_add_listener", MultipathVmTest.NQN, "-t", "tcp", "-a", "127.0.0.1", "-f", "ipv4", "-s",
                Integer.toString(port));
        return t;
    }

    /**
     * {@code bdev_rbd_create rbd gw 4096 -c ceph0 -b Ceph0} through SPDK's own Python client function: the rpc.py
     * command line of this SPDK version cannot send it (its parser stores {@code -r} as {@code readonly} and the
     * call reads {@code args.read_only}: AttributeError before anything is sent), so the test calls
     * {@code spdk.rpc.bdev.bdev_rbd_create}, which that command line would call, unmodified.
     */
    private static String bdevRbdCreate(Path rpcPy, Path sock) throws Exception {
        return bdevRbdCreate(rpcPy, sock, "gw", "None");
    }

    /** {@code bdev_rbd_create rbd IMAGE 4096 -c ceph0 -b Ceph0 [-u UUID]} ({@code uuid}: a Python literal). */
    private static String bdevRbdCreate(Path rpcPy, Path sock, String image, String uuid) throws Exception {
        Path py = rpcPy.getParent().getParent().resolve("python");
        String code = "import sys; sys.path.insert(0, sys.argv[1]); from spdk.rpc.client import JSONRPCClient; "
                + "import spdk.rpc.bdev as b; print(b.bdev_rbd_create(JSONRPCClient(sys.argv[2], timeout=60.0), "
                + "pool_name='rbd', rbd_name='" + image + "', block_size=4096, name='Ceph0', cluster_name='ceph0', "
                + "uuid=" + uuid + "))";
        Process p = new ProcessBuilder("python3", "-c", code, py.toString(), sock.toString()).redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("bdev_rbd_create: %s", out).isZero();
        return out;
    }

    private static String sha256(Path f, long len) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (InputStream in = Files.newInputStream(f)) {
            byte[] buf = new byte[1 << 20];
            long left = len;
            while (left > 0) {
                int n = in.read(buf, 0, (int) Math.min(buf.length, left));
                if (n < 0) {
                    break;
                }
                md.update(buf, 0, n);
                left -= n;
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
