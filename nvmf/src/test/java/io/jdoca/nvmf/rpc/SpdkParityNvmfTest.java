package io.jdoca.nvmf.rpc;

import static io.jdoca.nvmf.rpc.SpdkMethodsTest.code;
import static io.jdoca.nvmf.rpc.SpdkMethodsTest.ok;
import static io.jdoca.nvmf.rpc.SpdkMethodsTest.req;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.nvmf.bdev.SpdkHistogram;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.perf.NvmeTcpHost;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * Issue 30 (RPC half): SPDK's nvmf and bdev methods against a target a host is connected to:
 * {@code nvmf_subsystem_get_controllers / _get_qpairs / _get_listeners}, {@code
 * nvmf_subsystem_allow_any_host}, cumulative queue-pair counts in {@code nvmf_get_stats},
 * referrals in {@code nvmf_discovery_get_referrals} and in the discovery log page, a bdev deleted
 * under its namespace (hot-removed, namespace-changed event), NGUID = bdev UUID,
 * {@code bdev_reset_iostat}, {@code bdev_enable_histogram}/{@code bdev_get_histogram},
 * {@code bdev_set_qos_limit}. Fails on main: the methods were "Method not found", the delete -16.
 */
class SpdkParityNvmfTest {
    static final String NQN = "nqn.2016-06.io.spdk:cnode1";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-0000000000aa";
    static final String HOSTID = "12345678-9abc-def0-1234-56789abcdef0";

    private static NvmfTarget target() throws Exception {
        NvmfTarget t = new NvmfTarget(TargetConfig.parse("{\"io_threads\":2}"));
        t.start();
        return t;
    }

    /** A malloc bdev M0 as namespace 1 of NQN, on a 127.0.0.1 listener; returns the port. */
    private static int setUp(RpcServer s, boolean anyHost) throws Exception {
        ok(s, "bdev_malloc_create", "{\"name\":\"M0\",\"num_blocks\":1024,\"block_size\":4096}");
        ok(s, "nvmf_create_subsystem", "{\"nqn\":\"" + NQN + "\",\"allow_any_host\":" + anyHost + "}");
        ok(s, "nvmf_subsystem_add_ns", "{\"nqn\":\"" + NQN + "\",\"namespace\":{\"bdev_name\":\"M0\"}}");
        ok(s, "nvmf_subsystem_add_listener", "{\"nqn\":\"" + NQN + "\",\"listen_address\":{\"trtype\":\"TCP\","
                + "\"adrfam\":\"IPv4\",\"traddr\":\"127.0.0.1\",\"trsvcid\":\"0\"}}");
        JsonNode l = ok(s, "nvmf_subsystem_get_listeners", "{\"nqn\":\"" + NQN + "\"}");
        assertThat(l).hasSize(1);
        assertThat(l.get(0).get("ana_state").asText()).isEqualTo("optimized");
        assertThat(l.get(0).get("address").get("adrfam").asText()).isEqualTo("IPv4");
        return Integer.parseInt(l.get(0).get("address").get("trsvcid").asText());
    }

    private static NvmeTcpHost host(int port) throws IOException {
        NvmeTcpHost h = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
        h.initialize();
        return h;
    }

    private static byte[] hostId() {
        java.util.UUID u = java.util.UUID.fromString(HOSTID);
        return ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits())
                .array();
    }

    /** Admin queue connected and enabled; returns the cntlid. */
    private static int admin(NvmeTcpHost h, String nqn) throws IOException {
        int[] c = h.connect(0, 31, nqn, HOST, hostId(), 0xffff, 0, 0);
        assertThat(c[0]).as("connect").isZero();
        assertThat(h.propertySet(0x14, 1 | (6 << 16) | (4 << 20))[0]).isZero();
        return c[1] & 0xffff;
    }

    @Test
    void controllersQpairsAndCumulativeCounts() throws Exception {
        try (NvmfTarget t = target()) {
            RpcServer s = new RpcServer(t, null);
            int port = setUp(s, true);
            String q = "{\"nqn\":\"" + NQN + "\"}";
            try (NvmeTcpHost a = host(port); NvmeTcpHost io = host(port)) {
                int cntlid = admin(a, NQN);
                assertThat(io.connect(1, 31, NQN, HOST, hostId(), cntlid, 0, 0)[0]).isZero();
                JsonNode c = ok(s, "nvmf_subsystem_get_controllers", q);
                assertThat(c).hasSize(1);
                assertThat(c.get(0).get("cntlid").asInt()).isEqualTo(cntlid);
                assertThat(c.get(0).get("cntrltype").asText()).isEqualTo("io");
                assertThat(c.get(0).get("hostnqn").asText()).isEqualTo(HOST);
                assertThat(c.get(0).get("hostid").asText()).isEqualTo(HOSTID);
                assertThat(c.get(0).get("num_io_qpairs").asInt()).isEqualTo(1);
                JsonNode qp = ok(s, "nvmf_subsystem_get_qpairs", q);
                assertThat(qp).hasSize(2);
                assertThat(qp.get(0).get("qid").asInt()).isZero();
                assertThat(qp.get(1).get("qid").asInt()).isEqualTo(1);
                for (JsonNode p : qp) {
                    assertThat(p.get("state").asText()).isEqualTo("enabled");
                    assertThat(p.get("cntlid").asInt()).isEqualTo(cntlid);
                    assertThat(p.get("thread").asText()).startsWith("nvmf_tgt_poll_group_");
                    assertThat(p.get("listen_address").get("trsvcid").asText()).isEqualTo(String.valueOf(port));
                    assertThat(p.get("peer_address").get("traddr").asText()).isEqualTo("127.0.0.1");
                }
                assertThat(code(s, "nvmf_subsystem_get_qpairs", "{\"nqn\":\"nqn.2016-06.io.spdk:none\"}"))
                        .isEqualTo(-32602);
            }
            // Both queues closed: current_* back to 0 (once sta-main saw the closes), admin_qpairs/io_qpairs stay.
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (ok(s, "nvmf_subsystem_get_controllers", q).size() > 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            try (NvmeTcpHost again = host(port)) {
                admin(again, NQN);
                long[] sum = new long[4];
                for (JsonNode g : ok(s, "nvmf_get_stats", null).get("poll_groups")) {
                    sum[0] += g.get("admin_qpairs").asLong();
                    sum[1] += g.get("io_qpairs").asLong();
                    sum[2] += g.get("current_admin_qpairs").asLong();
                    sum[3] += g.get("current_io_qpairs").asLong();
                }
                assertThat(sum).containsExactly(2, 1, 1, 0);
            }
        }
    }

    @Test
    void allowAnyHostSwitchesTheHostList() throws Exception {
        try (NvmfTarget t = target()) {
            RpcServer s = new RpcServer(t, null);
            int port = setUp(s, false);
            try (NvmeTcpHost h = host(port)) {
                assertThat(h.connect(0, 31, NQN, HOST, 0xffff, 0)[0]).isEqualTo(NvmeStatus.CONNECT_INVALID_HOST);
            }
            ok(s, "nvmf_subsystem_allow_any_host", "{\"nqn\":\"" + NQN + "\",\"allow_any_host\":true}");
            assertThat(ok(s, "nvmf_get_subsystems", "{\"nqn\":\"" + NQN + "\"}").get(0).get("allow_any_host")
                    .asBoolean()).isTrue();
            try (NvmeTcpHost h = host(port)) {
                assertThat(h.connect(0, 31, NQN, HOST, 0xffff, 0)[0]).isZero();
            }
            ok(s, "nvmf_subsystem_allow_any_host", "{\"nqn\":\"" + NQN + "\",\"allow_any_host\":false}");
            try (NvmeTcpHost h = host(port)) {
                assertThat(h.connect(0, 31, NQN, HOST, 0xffff, 0)[0]).isEqualTo(NvmeStatus.CONNECT_INVALID_HOST);
            }
            assertThat(code(s, "nvmf_subsystem_allow_any_host", "{\"nqn\":\"" + NQN + "\"}")).isEqualTo(-32602);
        }
    }

    @Test
    void referralsAreInTheDiscoveryLog() throws Exception {
        try (NvmfTarget t = target()) {
            RpcServer s = new RpcServer(t, null);
            int port = setUp(s, true);
            ok(s, "nvmf_discovery_add_referral", "{\"address\":{\"trtype\":\"TCP\",\"adrfam\":\"IPv4\","
                    + "\"traddr\":\"127.0.0.2\",\"trsvcid\":\"4421\"}}");
            ok(s, "nvmf_discovery_add_referral", "{\"address\":{\"trtype\":\"RDMA\",\"traddr\":\"127.0.0.3\","
                    + "\"trsvcid\":\"4420\"},\"subnqn\":\"nqn.2016-06.io.spdk:cnode9\",\"secure_channel\":true}");
            ok(s, "nvmf_discovery_add_referral", "{\"address\":{\"trtype\":\"TCP\",\"traddr\":\"127.0.0.2\","
                    + "\"trsvcid\":\"4421\"}}"); // the same again: nothing changes, as SPDK
            JsonNode r = ok(s, "nvmf_discovery_get_referrals", null);
            assertThat(r).hasSize(2);
            assertThat(r.get(0).get("address").get("trtype").asText()).isEqualTo("RDMA");
            assertThat(r.get(0).get("secure_channel").asBoolean()).isTrue();
            assertThat(r.get(1).get("subnqn").asText()).isEqualTo("nqn.2014-08.org.nvmexpress.discovery");
            assertThat(code(s, "nvmf_discovery_add_referral", "{\"address\":{\"trtype\":\"FC\",\"traddr\":\"x\"}}"))
                    .isEqualTo(-32602);
            try (NvmeTcpHost h = host(port)) {
                admin(h, "nqn.2014-08.org.nvmexpress.discovery");
                byte[] log = new byte[4096];
                assertThat(h.getLogPage(0x70, 0, log)).isZero();
                ByteBuffer b = ByteBuffer.wrap(log).order(ByteOrder.LITTLE_ENDIAN);
                assertThat(b.getLong(8)).as("NUMREC: the subsystem and two referrals").isEqualTo(3);
                int e1 = 1024 + 1024; // the newest referral
                assertThat(log[e1]).as("TRTYPE RDMA").isEqualTo((byte) 1);
                assertThat(log[e1 + 2]).as("SUBTYPE NVMe").isEqualTo((byte) 2);
                assertThat(log[e1 + 3]).as("TREQ secure channel required").isEqualTo((byte) 1);
                int e2 = e1 + 1024;
                assertThat(log[e2]).as("TRTYPE TCP").isEqualTo((byte) 3);
                assertThat(log[e2 + 2]).as("SUBTYPE referral to discovery").isEqualTo((byte) 1);
                assertThat(new String(log, e2 + 512, 256, StandardCharsets.US_ASCII).trim()).isEqualTo("127.0.0.2");
                assertThat(new String(log, e2 + 32, 32, StandardCharsets.US_ASCII).trim()).isEqualTo("4421");
            }
            ok(s, "nvmf_discovery_remove_referral", "{\"address\":{\"trtype\":\"TCP\",\"traddr\":\"127.0.0.2\","
                    + "\"trsvcid\":\"4421\"}}");
            assertThat(ok(s, "nvmf_discovery_get_referrals", null)).hasSize(1);
            JsonNode gone = req(s, "nvmf_discovery_remove_referral", "{\"address\":{\"trtype\":\"TCP\","
                    + "\"traddr\":\"127.0.0.2\",\"trsvcid\":\"4421\"}}");
            assertThat(gone.get("error").get("code").asInt()).isEqualTo(-32603);
            assertThat(gone.get("error").get("message").asText()).doesNotContain("DOCA");
        }
    }

    @Test
    void deletingABdevHotRemovesItsNamespace() throws Exception {
        try (NvmfTarget t = target()) {
            RpcServer s = new RpcServer(t, null);
            int port = setUp(s, true);
            ok(s, "bdev_null_create", "{\"name\":\"N1\",\"num_blocks\":256,\"block_size\":512}");
            ok(s, "nvmf_subsystem_add_ns", "{\"nqn\":\"" + NQN + "\",\"namespace\":{\"bdev_name\":\"N1\"}}");
            JsonNode nss = ok(s, "nvmf_get_subsystems", "{\"nqn\":\"" + NQN + "\"}").get(0).get("namespaces");
            for (JsonNode ns : nss) {
                JsonNode b = ok(s, "bdev_get_bdevs", "{\"name\":\"" + ns.get("bdev_name").asText() + "\"}").get(0);
                assertThat(ns.get("nguid").asText()).as("NGUID = the bdev's UUID")
                        .isEqualTo(b.get("uuid").asText().replace("-", "").toUpperCase(java.util.Locale.ROOT));
            }
            assertThat(nss.get(0).get("nguid").asText()).isNotEqualTo(nss.get(1).get("nguid").asText());
            try (NvmeTcpHost h = host(port)) {
                admin(h, NQN);
                assertThat(h.adminSimple(NvmeOpcode.ADMIN_SET_FEATURES, 0, 0x0b, 1 << 8)[0]).isZero();
                h.sendCommand(NvmeOpcode.ADMIN_ASYNC_EVENT_REQUEST, 0x55, 0, 0, 0);
                assertThat(ok(s, "bdev_null_delete", "{\"name\":\"N1\"}").asBoolean()).isTrue();
                int[] aer = h.awaitResp(0x55);
                assertThat(aer[1]).as("namespace attribute changed").isEqualTo((0x04 << 16) | 0x02);
                byte[] list = new byte[4096];
                assertThat(h.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0, ((4096 / 4 - 1) << 16) | 0x04, 0, list))
                        .isZero();
                assertThat(ByteBuffer.wrap(list).order(ByteOrder.LITTLE_ENDIAN).getInt(0)).isEqualTo(2);
            }
            assertThat(ok(s, "nvmf_get_subsystems", "{\"nqn\":\"" + NQN + "\"}").get(0).get("namespaces")).hasSize(1);
            assertThat(code(s, "bdev_get_bdevs", "{\"name\":\"N1\"}")).isEqualTo(-19);
        }
    }

    @Test
    void iostatResetHistogramAndQos() throws Exception {
        try (NvmfTarget t = target()) {
            RpcServer s = new RpcServer(t, null);
            int port = setUp(s, true);
            JsonNode noHist = req(s, "bdev_get_histogram", "{\"name\":\"M0\"}");
            assertThat(noHist.get("error").get("message").asText()).startsWith("Bad address");
            ok(s, "bdev_enable_histogram", "{\"name\":\"M0\",\"enable\":true,\"opc\":\"write\"}");
            try (NvmeTcpHost a = host(port); NvmeTcpHost io = host(port)) {
                int cntlid = admin(a, NQN);
                assertThat(io.connect(1, 31, NQN, HOST, hostId(), cntlid, 0, 0)[0]).isZero();
                writes(io, 5);
                JsonNode st = ok(s, "bdev_get_iostat", "{\"name\":\"M0\"}").get("bdevs").get(0);
                assertThat(st.get("num_write_ops").asLong()).isEqualTo(5);
                assertThat(st.get("max_write_latency_ticks").asLong()).isPositive();
                JsonNode h = ok(s, "bdev_get_histogram", "{\"name\":\"M0\"}");
                assertThat(h.get("granularity").asInt()).isEqualTo(7);
                assertThat(h.get("tsc_rate").asLong()).isEqualTo(1_000_000_000L);
                long[] counts = decode(h.get("histogram").asText());
                assertThat(counts).hasSize(new SpdkHistogram(7, 1000, 120_000_000_000L).buckets());
                assertThat(java.util.Arrays.stream(counts).sum()).as("the 5 writes, in SPDK's buckets").isEqualTo(5);
                ok(s, "bdev_reset_iostat", "{\"name\":\"M0\",\"mode\":\"maxmin\"}");
                st = ok(s, "bdev_get_iostat", "{\"name\":\"M0\"}").get("bdevs").get(0);
                assertThat(st.get("num_write_ops").asLong()).isEqualTo(5);
                assertThat(st.get("max_write_latency_ticks").asLong()).isZero();
                ok(s, "bdev_reset_iostat", null);
                assertThat(ok(s, "bdev_get_iostat", "{\"name\":\"M0\"}").get("bdevs").get(0).get("num_write_ops")
                        .asLong()).isZero();
                writes(io, 2);
                assertThat(ok(s, "bdev_get_iostat", "{\"name\":\"M0\"}").get("bdevs").get(0).get("num_write_ops")
                        .asLong()).isEqualTo(2);
            }
            ok(s, "bdev_enable_histogram", "{\"name\":\"M0\",\"enable\":false}");
            assertThat(code(s, "bdev_get_histogram", "{\"name\":\"M0\"}")).isEqualTo(-32603);
            assertThat(code(s, "bdev_enable_histogram", "{\"name\":\"M0\",\"enable\":true,\"opc\":\"unmap\"}"))
                    .isEqualTo(-32602);
            assertThat(code(s, "bdev_reset_iostat", "{\"name\":\"nope\"}")).isEqualTo(-19);
            assertThat(ok(s, "bdev_set_qos_limit", "{\"name\":\"M0\",\"rw_ios_per_sec\":0}").asBoolean()).isTrue();
            JsonNode qos = req(s, "bdev_set_qos_limit", "{\"name\":\"M0\",\"rw_mbytes_per_sec\":100}");
            assertThat(qos.get("error").get("code").asInt()).isEqualTo(-95);
            assertThat(qos.get("error").get("message").asText()).contains("no QoS rate limiter");
            assertThat(code(s, "bdev_set_qos_limit", "{\"name\":\"nope\"}")).isEqualTo(-19);
        }
    }

    /** {@code n} 4 KiB writes on the I/O queue, each waited for. */
    private static void writes(NvmeTcpHost io, int n) throws IOException {
        MemorySegment data = Arena.ofAuto().allocate(4096);
        int[] status = {-1};
        io.setListener(new NvmeTcpHost.Listener() {
            @Override
            public void onData(int cid, MemorySegment seg, long off, int len, int dataOffset) {
            }

            @Override
            public void onCompletion(int cid, int st, int dw0) {
                status[0] = st;
            }
        });
        for (int i = 0; i < n; i++) {
            status[0] = -1;
            assertThat(io.write(1, 1, i, 1, data, 0, 4096, 8192)).isTrue();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (status[0] < 0 && System.nanoTime() < deadline) {
                io.poll();
            }
            assertThat(status[0]).isZero();
        }
    }

    private static long[] decode(String b64) {
        ByteBuffer b = ByteBuffer.wrap(Base64.getDecoder().decode(b64)).order(ByteOrder.LITTLE_ENDIAN);
        long[] c = new long[b.remaining() / 8];
        for (int i = 0; i < c.length; i++) {
            c[i] = b.getLong();
        }
        return c;
    }
}
