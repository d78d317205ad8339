package io.jdoca.nvmf.tgt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.TargetConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * NVMe/RDMA in the target's control plane, without a device: listeners with a transport in the
 * JSON and on the command line, discovery log entries for RDMA listeners (TRTYPE, TSAS), the
 * Keyed SGL bit of Identify Controller, and a clear one-line failure where there is no RDMA device
 * (nothing half-created).
 */
@Timeout(60)
class RdmaListenerConfigTest {

    @Test
    void listenersNameTheirTransport() throws IOException {
        TargetConfig c = TargetConfig.parse("""
                {"listeners":[{"address":"127.0.0.1","port":4420},
                              {"trtype":"rdma","address":"10.0.2.15","port":4420},
                              {"trtype":"TCP","address":"127.0.0.1","port":4421}]}""").validate();
        assertEquals(List.of("TCP", "RDMA", "TCP"),
                c.listeners().stream().map(TargetConfig.ListenerConfig::trtype).toList());
        ConfigException bad = assertThrows(ConfigException.class, () -> TargetConfig.parse("""
                {"listeners":[{"trtype":"fc","address":"127.0.0.1","port":4420}]}""").validate());
        assertTrue(bad.getMessage().contains("listeners[0].trtype"), bad.getMessage());
        ConfigException v6 = assertThrows(ConfigException.class, () -> TargetConfig.parse("""
                {"listeners":[{"trtype":"rdma","address":"::1","port":4420}]}""").validate());
        assertTrue(v6.getMessage().contains("IPv4"), v6.getMessage());
        assertEquals("RDMA", TargetConfig.parseListen("--listen", "rdma:10.0.2.15:4420").trtype());
        assertEquals("TCP", TargetConfig.parseListen("--listen", "127.0.0.1:4420").trtype());
    }

    @Test
    void discoveryEntriesForRdmaListeners() {
        byte[] log = DiscoveryLog.build(7, List.of(new DiscoveryLog.Entry("nqn.a", "10.0.2.15", 4420, 1,
                DiscoveryLog.TRTYPE_RDMA),
                new DiscoveryLog.Entry("nqn.a", "10.0.2.15", 4420, 2)));
        ByteBuffer b = ByteBuffer.wrap(log).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(2, b.getLong(8));
        int e = DiscoveryLog.HEADER;
        assertEquals(1, log[e], "TRTYPE RDMA");
        assertEquals(1, log[e + 1], "ADRFAM IPv4");
        assertEquals(1, log[e + 768], "RDMA_QPTYPE reliable connected");
        assertEquals(1, log[e + 769], "RDMA_PRTYPE not specified");
        assertEquals(1, log[e + 770], "RDMA_CMS rdma_cm");
        assertEquals('4', log[e + 32]);
        int t = DiscoveryLog.HEADER + DiscoveryLog.ENTRY;
        assertEquals(3, log[t], "TRTYPE TCP");
        assertEquals(0, log[t + 768], "TCP SECTYPE none");
    }

    @Test
    void identifyControllerAdvertisesKeyedSglsOverRdmaOnly() {
        for (boolean keyed : new boolean[] {false, true}) {
            byte[] id = IdentifyData.controller(new IdentifyData.ControllerParams(1, "s", "m", "nqn.a",
                    IdentifyData.CNTRLTYPE_IO,
                    5, 128, 1, 8192, 1, true, keyed));
            int sgls = ByteBuffer.wrap(id).order(ByteOrder.LITTLE_ENDIAN).getInt(536);
            assertEquals(keyed, (sgls & 4) != 0);
            assertTrue((sgls & 1) != 0 && (sgls & (1 << 20)) != 0);
            assertEquals((8192 + 64) / 16, ByteBuffer.wrap(id).order(ByteOrder.LITTLE_ENDIAN).getInt(1792), "IOCCSZ");
        }
    }

    @Test
    void withoutAnRdmaDeviceTheListenerFailsInOneLine() throws IOException {
        org.junit.jupiter.api.Assumptions.assumeFalse(Files.exists(Path.of("/dev/infiniband/rdma_cm")),
                "this host has an RDMA device: the no-device error path is not reachable here");
        try (NvmfTarget t = new NvmfTarget(TargetConfig.parse("{}"))) {
            t.start();
            IOException e = assertThrows(IOException.class, () -> t.addListener("RDMA", "127.0.0.1", 4420));
            assertTrue(!e.getMessage().contains("\n") && e.getMessage().toLowerCase().contains("rdma"), e.getMessage());
            assertTrue(t.listeners().isEmpty(), "nothing half-created");
            // TCP still works beside it.
            int port = t.addListener("TCP", "127.0.0.1", 0);
            assertTrue(port > 0);
            assertEquals("TCP", t.listeners().get(0).get("trtype"));
        }
    }
}
