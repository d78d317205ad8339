package io.jdoca.nvmf.rpc;

import static io.jdoca.nvmf.rpc.SpdkMethodsTest.ok;
import static io.jdoca.nvmf.rpc.SpdkMethodsTest.req;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.perf.NvmeTcpHost;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.sta.nvme.NvmeOpcode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * The bdev resize seam without Ceph: SPDK's {@code bdev_null_resize} on an exported null bdev grows
 * the namespace on it, the host's outstanding AER gets the Namespace Attribute Changed notice (or
 * the next AER, when none was outstanding), log page 04h lists the namespace, Identify Namespace
 * tells the new size and a read past the old end succeeds; shrinking and other modules' bdevs are
 * refused in one line.
 */
class BdevResizeTest {
    private static final String NQN = "nqn.2016-06.io.spdk:resize";
    private static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-0000000000cc";

    private static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void nullResizeGrowsTheExportedNamespaceAndTellsTheHost() throws Exception {
        try (NvmfTarget t = new NvmfTarget(TargetConfig.parse("{\"io_threads\":1}"))) {
            t.start();
            RpcServer s = new RpcServer(t, null);
            ok(s, "bdev_null_create", "{\"name\":\"N0\",\"num_blocks\":2048,\"block_size\":4096}");
            ok(s, "bdev_malloc_create", "{\"name\":\"M0\",\"num_blocks\":256,\"block_size\":4096}");
            ok(s, "nvmf_create_subsystem", "{\"nqn\":\"" + NQN + "\",\"allow_any_host\":true}");
            ok(s, "nvmf_subsystem_add_ns", "{\"nqn\":\"" + NQN + "\",\"namespace\":{\"bdev_name\":\"N0\"}}");
            ok(s, "nvmf_subsystem_add_listener", "{\"nqn\":\"" + NQN + "\",\"listen_address\":{\"trtype\":"
                    + "\"TCP\",\"adrfam\":\"IPv4\",\"traddr\":\"127.0.0.1\",\"trsvcid\":\"0\"}}");
            int port = Integer.parseInt(ok(s, "nvmf_subsystem_get_listeners", "{\"nqn\":\"" + NQN + "\"}").get(0)
                    .get("address").get("trsvcid").asText());
            try (NvmeTcpHost a = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072)) {
                a.initialize();
                int[] c = a.connect(0, 31, NQN, HOST, 0xffff, 0);
                assertThat(c[0]).isZero();
                assertThat(a.propertySet(0x14, 1 | (6 << 16) | (4 << 20))[0]).isZero();
                byte[] id = new byte[4096];
                assertThat(a.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 1, 0x00, 0, id)).isZero();
                assertThat(le(id).getLong(0)).isEqualTo(2048);
                assertThat(a.adminSimple(NvmeOpcode.ADMIN_SET_FEATURES, 0, 0x0b, 1 << 8)[0]).isZero();
                a.sendCommand(NvmeOpcode.ADMIN_ASYNC_EVENT_REQUEST, 0x55, 0, 0, 0);
                assertThat(ok(s, "bdev_null_resize", "{\"name\":\"N0\",\"new_size\":16}").asBoolean()).isTrue();
                int[] aer = a.awaitResp(0x55);
                assertThat(aer[0]).isZero();
                assertThat(aer[1]).isEqualTo((0x04 << 16) | 0x02);
                byte[] log = new byte[4096];
                // Read with Retain Asynchronous Event (CDW10 bit 15): the list stays; then without it: cleared
                int rae = ((4096 / 4 - 1) << 16) | (1 << 15) | 0x04;
                assertThat(a.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0, rae, 0, log)).isZero();
                assertThat(le(log).getInt(0)).isEqualTo(1);
                assertThat(a.getLogPage(0x04, 0, log)).isZero();
                assertThat(le(log).getInt(0)).isEqualTo(1);
                assertThat(a.getLogPage(0x04, 0, log)).isZero();
                assertThat(le(log).getInt(0)).as("cleared by the read without RAE").isZero();
                assertThat(a.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 1, 0x00, 0, id)).isZero();
                assertThat(le(id).getLong(0)).as("NSZE").isEqualTo(4096);
                assertThat(le(id).getLong(16)).as("NUSE").isEqualTo(4096);
                // No AER outstanding at the next resize: the notice waits for the next AER
                assertThat(ok(s, "bdev_null_resize", "{\"name\":\"N0\",\"new_size\":24}").asBoolean()).isTrue();
                a.sendCommand(NvmeOpcode.ADMIN_ASYNC_EVENT_REQUEST, 0x56, 0, 0, 0);
                assertThat(a.awaitResp(0x56)[1]).as("queued notice, delivered to the AER sent later")
                        .isEqualTo((0x04 << 16) | 0x02);
                assertThat(a.getLogPage(0x04, 0, log)).isZero();
                assertThat(le(log).getInt(0)).isEqualTo(1);
                assertThat(a.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 1, 0x00, 0, id)).isZero();
                assertThat(le(id).getLong(0)).as("NSZE").isEqualTo(6144);
                try (NvmeTcpHost io = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072)) {
                    io.initialize();
                    assertThat(io.connect(1, 31, NQN, HOST, c[1] & 0xffff, 0)[0]).isZero();
                    int[] st = {-1};
                    io.setListener(new NvmeTcpHost.Listener() {
                        @Override
                        public void onData(int cid, java.lang.foreign.MemorySegment seg, long off, int len, int d) {
                        }

                        @Override
                        public void onCompletion(int cid, int status, int dw0) {
                            st[0] = status;
                        }
                    });
                    assertThat(io.read(1, 1, 4000, 8, 8 * 4096)).isTrue();
                    long deadline = System.nanoTime() + 10_000_000_000L;
                    while (st[0] < 0 && System.nanoTime() < deadline) {
                        io.poll();
                    }
                    assertThat(st[0]).as("read past the old end").isZero();
                }
            }
            assertThat(ok(s, "bdev_get_bdevs", "{\"name\":\"N0\"}").get(0).get("num_blocks").asLong()).isEqualTo(6144);
            JsonNode e = req(s, "bdev_null_resize", "{\"name\":\"N0\",\"new_size\":8}").get("error");
            assertThat(e.get("code").asInt()).isEqualTo(-22);
            assertThat(e.get("message").asText()).contains("only grows").doesNotContain("\n");
            e = req(s, "bdev_null_resize", "{\"name\":\"M0\",\"new_size\":8}").get("error");
            assertThat(e.get("code").asInt()).isEqualTo(-19);
        }
    }
}
