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
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.testkit.CephTestCluster;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
        assumeTrue(Librbd.available(), () -> "skipped: " + Librbd.unavailableReason());
        try (CephTestCluster ceph = CephTestCluster.start(dir.resolve("ceph"))) {
            ceph.rbd("create", "--size", "16", "--image-feature", "layering", "rbd/vol1");
            byte[] written = pattern();
            try (NvmfTarget t = new NvmfTarget(TargetConfig.parse("{\"io_threads\":1}"))) {
                t.start();
                RpcServer s = new RpcServer(t, null);
                register(s, ceph);
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
                int port = exportR0(s);
                assertThat(writeAndRead(port, written)).isEqualTo(written);
            }
            Path img = dir.resolve("vol1.img");
            ceph.rbd("export", "rbd/vol1", img.toString());
            assertThat(Arrays.copyOf(Files.readAllBytes(img), written.length)).isEqualTo(written);
        }
    }

    /**
     * Issue 34 item 4, an OSD that stops answering mid-run (SIGSTOP: a hung or partitioned OSD; the memstore OSD
     * keeps its data, which a killed one would not): a write through the target completes with an error status
     * within a bounded time (librados' {@code rados_osd_op_timeout}, the registration's 10 s) instead of hanging,
     * the target still answers on its admin queue, and once the OSD runs again (SIGCONT) writes succeed and every
     * block acknowledged before the stall reads back.
     */
    @Test
    void anOsdThatStopsAnsweringFailsIoInBoundedTimeAndIoResumes(@TempDir Path dir) throws Exception {
        assumeTrue(Librbd.available(), () -> "skipped: " + Librbd.unavailableReason());
        try (CephTestCluster ceph = CephTestCluster.start(dir.resolve("ceph"))) {
            String osd = ceph.pid("osd.0");
            try {
                ceph.rbd("create", "--size", "16", "--image-feature", "layering", "rbd/vol2");
                try (NvmfTarget t = new NvmfTarget(TargetConfig.parse("{\"io_threads\":1}"))) {
                    t.start();
                    RpcServer s = new RpcServer(t, null);
                    register(s, ceph);
                    ok(s, "bdev_rbd_create", "{\"name\":\"R0\",\"pool_name\":\"rbd\",\"rbd_name\":\"vol2\","
                            + "\"block_size\":4096,\"cluster_name\":\"c1\"}");
                    int port = exportR0(s);
                    try (Host h = new Host(port)) {
                        byte[] before = pattern();
                        assertThat(h.write(0, before, 30)).as("write before the stall").isZero();
                        exec(10, "kill", "-STOP", osd);
                        long t0 = System.nanoTime();
                        int st = h.write(BLOCKS, pattern(), 60);
                        double secs = (System.nanoTime() - t0) / 1e9;
                        System.out.printf("OSD stopped: the write completed with status field 0x%x (SCT %d, SC 0x%x, "
                                + "DNR %d) after %.1f s%n", st, (st >> 9) & 7, (st >> 1) & 0xff, st >>> 15, secs);
                        assertThat(st).as("a write while the OSD does not answer fails (status, not a hang)")
                                .isNotZero().isNotEqualTo(-1);
                        // Namespace Not Ready (generic 82h) without DNR: the host may retry, on this path or another
                        assertThat(st & 0xfffe).as("status field").isEqualTo(0x82 << 1);
                        assertThat(secs).as("within the registration's 10 s op timeout and some slack").isLessThan(40);
                        assertThat(h.keepAlive()).as("the target answers on its admin queue meanwhile").isZero();
                        exec(10, "kill", "-CONT", osd);
                        byte[] after = pattern();
                        after[0] ^= 0x5a;
                        assertThat(h.write(2 * BLOCKS, after, 60)).as("a write once the OSD answers again").isZero();
                        byte[] back = new byte[before.length];
                        assertThat(h.read(0, back, 60)).isZero();
                        assertThat(back).as("acknowledged before the stall, read back after it").isEqualTo(before);
                        assertThat(h.read(2 * BLOCKS, back, 60)).isZero();
                        assertThat(back).isEqualTo(after);
                    }
                }
            } finally {
                exec(10, "kill", "-CONT", osd); // a stopped OSD left running (harmless when it runs already)
            }
        }
    }

    /**
     * {@code bdev_rbd_resize} of an exported bdev, seen by the hosts (NVMe Base: Namespace Attribute
     * Changed notice, Changed Namespace List log page 04h): two controllers with an AER outstanding
     * each get the notice, Identify Namespace tells the new NSZE/NCAP/NUSE, a write and a read past
     * the old end succeed, past the new end is refused, and shrinking is refused in one line.
     */
    @Test
    void resizeOfAnExportedImageIsSeenByTheHosts(@TempDir Path dir) throws Exception {
        assumeTrue(Librbd.available(), () -> "skipped: " + Librbd.unavailableReason());
        try (CephTestCluster ceph = CephTestCluster.start(dir.resolve("ceph"))) {
            ceph.rbd("create", "--size", "16", "--image-feature", "layering", "rbd/vol3");
            try (NvmfTarget t = new NvmfTarget(TargetConfig.parse("{\"io_threads\":1}"))) {
                t.start();
                RpcServer s = new RpcServer(t, null);
                register(s, ceph);
                ok(s, "bdev_rbd_create", "{\"name\":\"R0\",\"pool_name\":\"rbd\",\"rbd_name\":\"vol3\","
                        + "\"block_size\":4096,\"cluster_name\":\"c1\"}");
                int port = exportR0(s);
                try (Host h = new Host(port); Host h2 = new Host(port)) {
                    byte[] data = pattern();
                    assertThat(h.write(0, data, 30)).as("write before the resize").isZero();
                    assertThat(h.nsze()).isEqualTo(4096);
                    assertThat(h.write(4096, data, 30) & 0xffe).as("past the end before the resize")
                            .isEqualTo(0x80 << 1); // LBA Out of Range
                    for (Host x : List.of(h, h2)) {
                        assertThat(x.admin.adminSimple(NvmeOpcode.ADMIN_SET_FEATURES, 0, 0x0b, 1 << 8)[0]).isZero();
                        x.admin.sendCommand(NvmeOpcode.ADMIN_ASYNC_EVENT_REQUEST, 0x55, 0, 0, 0);
                    }
                    long t0 = System.nanoTime();
                    assertThat(ok(s, "bdev_rbd_resize", "{\"name\":\"R0\",\"new_size\":32}").asBoolean()).isTrue();
                    for (Host x : List.of(h, h2)) {
                        int[] aer = x.admin.awaitResp(0x55);
                        assertThat(aer[0]).isZero();
                        assertThat(aer[1]).as("notice, namespace attribute changed, log page 04h")
                                .isEqualTo((0x04 << 16) | 0x02);
                        byte[] log = new byte[4096];
                        assertThat(x.admin.getLogPage(0x04, 0, log)).isZero();
                        assertThat(le(log).getInt(0)).as("changed namespace list").isEqualTo(1);
                        assertThat(le(log).getInt(4)).isZero();
                    }
                    System.out.printf("bdev_rbd_resize 16 -> 32 MiB: both hosts notified after %.0f ms%n",
                            (System.nanoTime() - t0) / 1e6);
                    byte[] id = new byte[4096];
                    assertThat(h.admin.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 1, 0x00, 0, id)).isZero();
                    assertThat(le(id).getLong(0)).as("NSZE").isEqualTo(8192);
                    assertThat(le(id).getLong(8)).as("NCAP").isEqualTo(8192);
                    assertThat(le(id).getLong(16)).as("NUSE").isEqualTo(8192);
                    byte[] after = pattern();
                    after[1] ^= 0x33;
                    assertThat(h.write(4096, after, 30)).as("write past the old end").isZero();
                    assertThat(h2.write(8192 - BLOCKS, after, 30)).as("write at the new end, other host").isZero();
                    byte[] back = new byte[after.length];
                    assertThat(h2.read(4096, back, 30)).as("read past the old end").isZero();
                    assertThat(back).isEqualTo(after);
                    assertThat(h.read(0, back, 30)).isZero();
                    assertThat(back).as("written before the resize").isEqualTo(data);
                    assertThat(h.write(8192, after, 30) & 0xffe).as("past the new end").isEqualTo(0x80 << 1);
                    JsonNode e = req(s, "bdev_rbd_resize", "{\"name\":\"R0\",\"new_size\":16}").get("error");
                    assertThat(e.get("code").asInt()).isEqualTo(-22);
                    assertThat(e.get("message").asText()).contains("only grows").doesNotContain("\n");
                    System.out.println("shrink: " + e.get("message").asText());
                    assertThat(h.nsze()).isEqualTo(8192);
                }
            }
            assertThat(ceph.rbd("info", "rbd/vol3")).contains("32 MiB");
        }
    }

    private static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** An admin and an I/O queue to the subsystem; each call waits for its completion (bounded). */
    private static final class Host implements AutoCloseable {
        final NvmeTcpHost admin;
        private final NvmeTcpHost io;
        private final Arena arena = Arena.ofConfined();
        private final int[] status = {-1};
        private byte[] sink;
        private int cid = 1;

        Host(int port) throws IOException {
            admin = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
            io = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
            admin.initialize();
            io.initialize();
            int[] c = admin.connect(0, 31, NQN, HOST, 0xffff, 0);
            assertThat(c[0]).as("admin connect").isZero();
            assertThat(admin.propertySet(0x14, 1 | (6 << 16) | (4 << 20))[0]).isZero();
            assertThat(io.connect(1, 31, NQN, HOST, c[1] & 0xffff, 0)[0]).as("io connect").isZero();
            io.setListener(new NvmeTcpHost.Listener() {
                @Override
                public void onData(int c, MemorySegment seg, long off, int len, int dataOffset) {
                    MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, off, sink, dataOffset, len);
                }

                @Override
                public void onCompletion(int c, int st, int dw0) {
                    status[0] = st;
                }
            });
        }

        /** Writes {@code data} at {@code lba}; the NVMe status, or -1 when none came in {@code seconds}. */
        int write(long lba, byte[] data, int seconds) throws IOException {
            MemorySegment buf = arena.allocate(data.length);
            MemorySegment.copy(data, 0, buf, ValueLayout.JAVA_BYTE, 0, data.length);
            status[0] = -1;
            assertThat(io.write(cid++, 1, lba, data.length / 4096, buf, 0, data.length, 8192)).isTrue();
            return await(seconds);
        }

        int read(long lba, byte[] into, int seconds) throws IOException {
            sink = into;
            status[0] = -1;
            assertThat(io.read(cid++, 1, lba, into.length / 4096, into.length)).isTrue();
            return await(seconds);
        }

        /** Identify Namespace 1: its NSZE. */
        long nsze() throws IOException {
            byte[] id = new byte[4096];
            assertThat(admin.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 1, 0x00, 0, id)).isZero();
            return le(id).getLong(0);
        }

        int keepAlive() throws IOException {
            return admin.adminSimple(0x18, 0, 0, 0)[0]; // Keep Alive
        }

        private int await(int seconds) throws IOException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (status[0] < 0 && System.nanoTime() < deadline) {
                io.poll();
            }
            return status[0];
        }

        @Override
        public void close() {
            io.close();
            admin.close();
            arena.close();
        }
    }

    /** {@code bdev_rbd_register_cluster c1} with the test cluster's conf and admin key ring. */
    private static void register(RpcServer s, CephTestCluster ceph) throws Exception {
        ok(s, "bdev_rbd_register_cluster", "{\"name\":\"c1\",\"user_id\":\"admin\",\"config_file\":\""
                + ceph.conf() + "\",\"key_file\":\"" + ceph.adminKeyring() + "\"}");
    }

    /** Subsystem {@link #NQN} with bdev R0 as its namespace, then its listener on 127.0.0.1; returns the port. */
    private static int exportR0(RpcServer s) throws Exception {
        ok(s, "nvmf_create_subsystem", "{\"nqn\":\"" + NQN + "\",\"allow_any_host\":true}");
        ok(s, "nvmf_subsystem_add_ns", "{\"nqn\":\"" + NQN + "\",\"namespace\":{\"bdev_name\":\"R0\"}}");
        ok(s, "nvmf_subsystem_add_listener", "{\"nqn\":\"" + NQN + "\",\"listen_address\":{\"trtype\":"
                + "\"TCP\",\"adrfam\":\"IPv4\",\"traddr\":\"127.0.0.1\",\"trsvcid\":\"0\"}}");
        return Integer.parseInt(ok(s, "nvmf_subsystem_get_listeners", "{\"nqn\":\"" + NQN + "\"}").get(0)
                .get("address").get("trsvcid").asText());
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
