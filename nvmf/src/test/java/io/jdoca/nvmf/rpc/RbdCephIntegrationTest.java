package io.jdoca.nvmf.rpc;

import static io.jdoca.nvmf.rpc.SpdkMethodsTest.ok;
import static io.jdoca.nvmf.rpc.SpdkMethodsTest.req;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.perf.NvmeTcpHost;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.sta.backend.rbd.Librbd;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34 end to end on a real one-node Ceph cluster ({@code scripts/ceph-cluster.sh} in a
 * temporary directory, always stopped): an image made with the {@code rbd} CLI is registered and
 * exported through the RPC methods ({@code bdev_rbd_register_cluster}, {@code bdev_rbd_create},
 * {@code nvmf_subsystem_add_ns}), written and read back by an NVMe/TCP host on 127.0.0.1, and
 * {@code rbd export} shows the image holds what was written. Skipped (one line) without Ceph.
 */
class RbdCephIntegrationTest {
    private static final String NQN = "nqn.2016-06.io.spdk:rbd1";
    private static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-0000000000bb";
    private static final int BLOCKS = 8;

    @Test
    void imageWrittenThroughTheTargetHoldsTheData(@TempDir Path dir) throws Exception {
        for (String tool : List.of("ceph-mon", "ceph-osd", "ceph", "rbd")) {
            assumeTrue(onPath(tool), "skipped: " + tool + " not installed (scripts/ensure-packages.sh ceph-mon "
                    + "ceph-osd ceph-common)");
        }
        assumeTrue(Librbd.available(), () -> "skipped: " + Librbd.unavailableReason());
        Path script = script();
        Path cluster = dir.resolve("ceph");
        try {
            String out = exec(120, script.toString(), "start", cluster.toString());
            assertThat(Files.exists(cluster.resolve("ceph.conf"))).as(out).isTrue();
            Path conf = cluster.resolve("ceph.conf");
            exec(60, "rbd", "-c", conf.toString(), "create", "--size", "16", "--image-feature", "layering", "rbd/vol1");
            byte[] written = pattern();
            try (NvmfTarget t = new NvmfTarget(TargetConfig.parse("{\"io_threads\":1}"))) {
                t.start();
                RpcServer s = new RpcServer(t, null);
                ok(s, "bdev_rbd_register_cluster", "{\"name\":\"c1\",\"user_id\":\"admin\",\"config_file\":\"" + conf
                        + "\",\"key_file\":\"" + cluster.resolve("admin.keyring") + "\"}");
                JsonNode e = req(s, "bdev_rbd_create", "{\"pool_name\":\"rbd\",\"rbd_name\":\"nope\","
                        + "\"block_size\":4096,\"cluster_name\":\"c1\"}").get("error");
                assertThat(e.get("code").asInt()).isEqualTo(-19);
                assertThat(e.get("message").asText()).contains("rbd/nope").doesNotContain("\n");
                e = req(s, "bdev_rbd_create", "{\"pool_name\":\"nopool\",\"rbd_name\":\"vol1\","
                        + "\"block_size\":4096,\"cluster_name\":\"c1\"}").get("error");
                assertThat(e.get("message").asText()).contains("nopool");
                assertThat(ok(s, "bdev_rbd_create", "{\"name\":\"R0\",\"pool_name\":\"rbd\",\"rbd_name\":\"vol1\","
                        + "\"block_size\":4096,\"cluster_name\":\"c1\"}").asText()).isEqualTo("R0");
                JsonNode d = ok(s, "bdev_get_bdevs", "{\"name\":\"R0\"}").get(0);
                assertThat(d.get("num_blocks").asLong()).isEqualTo(4096);
                assertThat(d.get("jdoca_backend").asText()).isEqualTo("rbd");
                ok(s, "nvmf_create_subsystem", "{\"nqn\":\"" + NQN + "\",\"allow_any_host\":true}");
                ok(s, "nvmf_subsystem_add_ns", "{\"nqn\":\"" + NQN + "\",\"namespace\":{\"bdev_name\":\"R0\"}}");
                ok(s, "nvmf_subsystem_add_listener", "{\"nqn\":\"" + NQN + "\",\"listen_address\":{\"trtype\":"
                        + "\"TCP\",\"adrfam\":\"IPv4\",\"traddr\":\"127.0.0.1\",\"trsvcid\":\"0\"}}");
                int port = Integer.parseInt(ok(s, "nvmf_subsystem_get_listeners", "{\"nqn\":\"" + NQN + "\"}").get(0)
                        .get("address").get("trsvcid").asText());
                assertThat(writeAndRead(port, written)).isEqualTo(written);
            }
            Path img = dir.resolve("vol1.img");
            exec(60, "rbd", "-c", conf.toString(), "export", "rbd/vol1", img.toString());
            assertThat(Arrays.copyOf(Files.readAllBytes(img), written.length)).isEqualTo(written);
        } finally {
            exec(60, script.toString(), "stop", cluster.toString());
        }
    }

    private static byte[] pattern() {
        byte[] b = new byte[BLOCKS * 4096];
        ByteBuffer bb = ByteBuffer.wrap(b);
        for (int i = 0; bb.remaining() >= 8; i++) {
            bb.putLong(0x5242440000000000L + i);
        }
        return b;
    }

    /** Writes {@code data} at LBA 0 through an NVMe/TCP host, then reads it back. */
    private static byte[] writeAndRead(int port, byte[] data) throws IOException {
        try (NvmeTcpHost a = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
             NvmeTcpHost io = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
             Arena arena = Arena.ofConfined()) {
            a.initialize();
            io.initialize();
            int[] c = a.connect(0, 31, NQN, HOST, 0xffff, 0);
            assertThat(c[0]).as("admin connect").isZero();
            assertThat(a.propertySet(0x14, 1 | (6 << 16) | (4 << 20))[0]).isZero();
            assertThat(io.connect(1, 31, NQN, HOST, c[1] & 0xffff, 0)[0]).as("io connect").isZero();
            MemorySegment buf = arena.allocate(data.length);
            MemorySegment.copy(data, 0, buf, ValueLayout.JAVA_BYTE, 0, data.length);
            byte[] back = new byte[data.length];
            int[] status = {-1};
            io.setListener(new NvmeTcpHost.Listener() {
                @Override
                public void onData(int cid, MemorySegment seg, long off, int len, int dataOffset) {
                    MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, off, back, dataOffset, len);
                }

                @Override
                public void onCompletion(int cid, int st, int dw0) {
                    status[0] = st;
                }
            });
            assertThat(io.write(1, 1, 0, BLOCKS, buf, 0, data.length, 8192)).isTrue();
            await(io, status, "write");
            status[0] = -1;
            assertThat(io.read(2, 1, 0, BLOCKS, data.length)).isTrue();
            await(io, status, "read");
            return back;
        }
    }

    private static void await(NvmeTcpHost io, int[] status, String what) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (status[0] < 0 && System.nanoTime() < deadline) {
            io.poll();
        }
        assertThat(status[0]).as(what + " status").isZero();
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }

    private static Path script() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isExecutable(d.resolve("scripts/ceph-cluster.sh"))) {
                return d.resolve("scripts/ceph-cluster.sh");
            }
        }
        throw new IllegalStateException("scripts/ceph-cluster.sh not found");
    }

    /** Runs a command; fails (with its output) on a non-zero exit or after {@code seconds}. */
    private static String exec(long seconds, String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(new ArrayList<>(List.of(cmd))).redirectErrorStream(true).start();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new IllegalStateException(String.join(" ", cmd) + ": timed out after " + seconds + " s");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed (" + p.exitValue() + "): " + out.strip());
        }
        return out;
    }
}
