package io.jdoca.nvmf.tgt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.perf.NvmeTcpHost;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The controller logic of sta-target over loopback NVMe/TCP (in-process target, the perf tool's
 * host): Connect validation, properties, Identify, log pages, features, AER with namespace
 * change, keep-alive timeout, discovery, and I/O.
 */
class NvmfTargetTest {
    static final String NQN = "nqn.2024-01.io.jdoca:unit";
    static final String LOCKED = "nqn.2024-01.io.jdoca:locked";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-000000000001";
    static NvmfTarget target;
    static int port;

    @BeforeAll
    static void up() throws IOException {
        TargetConfig cfg = TargetConfig.parse("""
                { "io_threads": 2,
                  "subsystems": [
                    { "nqn": "%s", "serial_number": "SN123", "allow_any_host": true,
                      "namespaces": [ { "nsid": 1, "backend": "memory", "size_mb": 16, "block_size": 4096 },
                                      { "nsid": 2, "backend": "null", "size_mb": 8, "block_size": 512 } ] },
                    { "nqn": "%s", "allow_any_host": false, "hosts": [ "nqn.allowed" ],
                      "namespaces": [ { "backend": "memory", "size_mb": 4 } ] } ] }
                """.formatted(NQN, LOCKED));
        target = new NvmfTarget(cfg);
        target.start();
        port = target.addListener("127.0.0.1", 0);
    }

    @AfterAll
    static void down() {
        target.close();
    }

    static NvmeTcpHost host() throws IOException {
        NvmeTcpHost h = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
        h.initialize();
        return h;
    }

    /** Connected, enabled admin queue; returns {host, cntlid}. */
    static Object[] admin(String nqn, long kato) throws IOException {
        NvmeTcpHost h = host();
        int[] c = h.connect(0, 31, nqn, HOST, 0xffff, kato);
        assertEquals(0, c[0], "connect status");
        assertEquals(0, h.propertySet(0x14, 1 | (6 << 16) | (4 << 20))[0]);
        return new Object[] {h, c[1] & 0xffff};
    }

    static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void connectValidation() throws IOException {
        try (NvmeTcpHost h = host()) {
            int[] c = h.connect(0, 31, "nqn.no.such", HOST, 0xffff, 0);
            assertEquals(NvmeStatus.CONNECT_INVALID_PARAMETERS, c[0]);
            assertEquals((1 << 16) | 256, c[1], "IATTR=data, IPO=SUBNQN");
        }
        try (NvmeTcpHost h = host()) {
            assertEquals(NvmeStatus.CONNECT_INVALID_HOST, h.connect(0, 31, LOCKED, HOST, 0xffff, 0)[0]);
        }
        try (NvmeTcpHost h = host()) {
            assertEquals(0, h.connect(0, 31, LOCKED, "nqn.allowed", 0xffff, 0)[0]);
        }
        try (NvmeTcpHost h = host()) {
            assertEquals(NvmeStatus.CONNECT_INVALID_PARAMETERS, h.connect(0, 31, NQN, HOST, 5, 0)[0], "static cntlid");
        }
        try (NvmeTcpHost h = host()) {
            assertEquals(NvmeStatus.CONNECT_INVALID_PARAMETERS, h.connect(0, 5000, NQN, HOST, 0xffff, 0)[0], "sqsize");
        }
        try (NvmeTcpHost h = host()) {
            assertEquals(NvmeStatus.CONNECT_INVALID_PARAMETERS, h.connect(1, 31, NQN, HOST, 0xfff0, 0)[0],
                    "unknown controller");
        }
        try (NvmeTcpHost h = host()) {
            // Anything before Connect: Command Sequence Error.
            assertEquals(NvmeStatus.COMMAND_SEQUENCE_ERROR, h.adminSimple(NvmeOpcode.ADMIN_KEEP_ALIVE, 0, 0, 0)[0]);
            assertEquals(NvmeStatus.COMMAND_SEQUENCE_ERROR, h.propertyGet(0, true)[0]);
        }
        try (NvmeTcpHost h = host()) {
            assertEquals(0, h.connect(0, 31, NQN, HOST, 0xffff, 0)[0]);
            assertEquals(NvmeStatus.COMMAND_SEQUENCE_ERROR, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 0, 1, 0,
                    new byte[4096]),
                    "admin commands need CC.EN");
            assertEquals(NvmeStatus.COMMAND_SEQUENCE_ERROR, h.connect(0, 31, NQN, HOST, 0xffff, 0)[0],
                    "second Connect");
        }
    }

    @Test
    void propertiesAndShutdown() throws IOException {
        NvmeTcpHost h = host();
        try (h) {
            assertEquals(0, h.connect(0, 31, NQN, HOST, 0xffff, 0)[0]);
            int[] cap = h.propertyGet(0x00, true);
            assertEquals(0, cap[0]);
            long capv = (cap[1] & 0xffffffffL) | ((long) cap[2] << 32);
            assertEquals(1023, capv & 0xffff, "MQES");
            assertTrue((capv & (1L << 37)) != 0, "CSS NVM");
            assertEquals(0x00010400, h.propertyGet(0x08, false)[1], "VS 1.4.0");
            assertEquals(0, h.propertyGet(0x1c, false)[1], "not ready before CC.EN");
            h.propertySet(0x14, 1);
            assertEquals(1, h.propertyGet(0x1c, false)[1] & 1);
            assertEquals(1, h.propertyGet(0x14, false)[1] & 1);
            h.propertySet(0x14, 1 | (1 << 14)); // SHN normal
            assertEquals(2, (h.propertyGet(0x1c, false)[1] >> 2) & 3, "SHST complete");
            assertEquals(NvmeStatus.INVALID_FIELD, h.propertyGet(0x40, false)[0]);
        }
    }

    @Test
    void identifyAndFeatures() throws IOException {
        Object[] a = admin(NQN, 0);
        try (NvmeTcpHost h = (NvmeTcpHost) a[0]) {
            byte[] id = new byte[4096];
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 0, 0x01, 0, id));
            ByteBuffer b = le(id);
            assertEquals((int) a[1], b.getShort(78) & 0xffff, "CNTLID");
            assertEquals("SN123", new String(id, 4, 20, StandardCharsets.US_ASCII).trim());
            assertEquals(NQN, new String(id, 768, NQN.length(), StandardCharsets.UTF_8));
            assertEquals(5, id[77], "MDTS 128 KiB");
            assertEquals(0x66, id[512]);
            assertEquals(0x44, id[513]);
            assertEquals(1, id[111], "CNTRLTYPE I/O");
            assertEquals(0, b.getShort(1800), "ICDOFF");
            assertTrue((b.getInt(536) & 1) != 0, "SGLS");
            assertEquals((8192 + 64) / 16, b.getInt(1792), "IOCCSZ");
            assertTrue((b.getShort(520) & 0xc) == 0xc, "ONCS DSM + write zeroes");

            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 1, 0x00, 0, id));
            assertEquals(4096, le(id).getLong(0), "NSZE 16 MiB / 4 KiB");
            assertEquals(12, id[130], "LBADS");
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 2, 0x00, 0, id));
            assertEquals(16384, le(id).getLong(0));
            assertEquals(9, id[130]);
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 7, 0x00, 0, id));
            assertEquals(0, le(id).getLong(0), "inactive namespace identifies as zeroes");
            assertEquals(NvmeStatus.INVALID_NAMESPACE, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 0, 0x00, 0, id));

            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 0, 0x02, 0, id));
            assertEquals(1, le(id).getInt(0));
            assertEquals(2, le(id).getInt(4));
            assertEquals(0, le(id).getInt(8));
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 1, 0x02, 0, id));
            assertEquals(2, le(id).getInt(0), "list starts after the given nsid");

            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 1, 0x03, 0, id));
            assertEquals(2, id[0], "NGUID descriptor");
            assertEquals(16, id[1]);
            assertEquals(3, id[20], "UUID descriptor");
            assertEquals(4, id[40], "CSI descriptor");
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 0, 0x06, 0, id), "NVM-specific identify controller");
            assertEquals(NvmeStatus.INVALID_FIELD, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 0, 0x1f, 0, id));

            int[] q = h.adminSimple(NvmeOpcode.ADMIN_SET_FEATURES, 0, 0x07, (3 << 16) | 3);
            assertEquals(0, q[0]);
            assertEquals((3 << 16) | 3, q[1], "4 queues granted");
            assertEquals((3 << 16) | 3, h.adminSimple(NvmeOpcode.ADMIN_GET_FEATURES, 0, 0x07, 0)[1]);
            assertEquals(0, h.adminSimple(NvmeOpcode.ADMIN_SET_FEATURES, 0, 0x0b, 0x100)[0]);
            assertEquals(0x100, h.adminSimple(NvmeOpcode.ADMIN_GET_FEATURES, 0, 0x0b, 0)[1]);
            assertEquals(0, h.adminSimple(NvmeOpcode.ADMIN_SET_FEATURES, 0, 0x0f, 7000)[0]);
            assertEquals(7000, h.adminSimple(NvmeOpcode.ADMIN_GET_FEATURES, 0, 0x0f, 0)[1]);
            assertEquals(NvmeStatus.INVALID_FIELD, h.adminSimple(NvmeOpcode.ADMIN_GET_FEATURES, 0, 0x77, 0)[0]);
            assertEquals(NvmeStatus.FEATURE_NOT_SAVEABLE, h.adminSimple(NvmeOpcode.ADMIN_SET_FEATURES, 0, 0x8000000b,
                    0)[0]);
            assertEquals(0, h.adminSimple(NvmeOpcode.ADMIN_KEEP_ALIVE, 0, 0, 0)[0]);
            assertEquals(NvmeStatus.INVALID_OPCODE, h.adminSimple(0x7e, 0, 0, 0)[0]);
        }
    }

    @Test
    void logPages() throws IOException {
        Object[] a = admin(NQN, 0);
        try (NvmeTcpHost h = (NvmeTcpHost) a[0]) {
            byte[] log = new byte[512];
            int numdl = (512 / 4 - 1) << 16;
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0xffffffff, numdl | 0x02, 0, log));
            assertEquals(0, log[3], "available spare: unknown to a RAM target, reported as 0");
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0, numdl | 0x03, 0, log));
            assertEquals(1, log[0], "AFI");
            assertEquals("0.1.0", new String(log, 8, 5, StandardCharsets.US_ASCII));
            byte[] err = new byte[64];
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0, ((64 / 4 - 1) << 16) | 0x01, 0, err));
            assertEquals(NvmeStatus.INVALID_LOG_PAGE, h.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0, numdl | 0x70, 0,
                    log));
            assertEquals(NvmeStatus.INVALID_LOG_PAGE, h.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0, numdl | 0x33, 0,
                    log));
        }
    }

    @Test
    void discoveryControllerListsSubsystemsForTheHost() throws IOException {
        Object[] a = admin(NvmfSubsystem.DISCOVERY_NQN, 0);
        try (NvmeTcpHost h = (NvmeTcpHost) a[0]) {
            byte[] id = new byte[4096];
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 0, 0x01, 0, id));
            assertEquals(2, id[111], "CNTRLTYPE discovery");
            byte[] hdr = new byte[1024];
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0, ((1024 / 4 - 1) << 16) | 0x70, 0, hdr));
            long numrec = le(hdr).getLong(8);
            assertEquals(1, numrec, "only the subsystem this host may use, on one listener");
            byte[] e = new byte[1024];
            // entry 0 via LPO = 1024 (cdw12)
            assertEquals(0, readLogAt(h, 0x70, 1024, e));
            assertEquals(3, e[0], "TRTYPE TCP");
            assertEquals(1, e[1], "ADRFAM IPv4");
            assertEquals(2, e[2], "SUBTYPE NVMe");
            assertEquals(String.valueOf(port), new String(e, 32, 32, StandardCharsets.US_ASCII).trim());
            assertEquals(NQN, new String(e, 256, NQN.length(), StandardCharsets.UTF_8));
            assertEquals("127.0.0.1", new String(e, 512, 256, StandardCharsets.US_ASCII).trim());
        }
    }

    static int readLogAt(NvmeTcpHost h, int lid, int offset, byte[] out) throws IOException {
        // Get Log Page with LPO: the host API has no cdw12 parameter, so build it via adminRead's cdw10/11 and a raw
        // send.
        return h.getLogPage(lid, offset, out);
    }

    @Test
    void namespaceAddRaisesAnAsyncEventAndTheChangedList() throws Exception {
        Object[] a = admin(NQN, 0);
        try (NvmeTcpHost h = (NvmeTcpHost) a[0]) {
            assertEquals(0, h.adminSimple(NvmeOpcode.ADMIN_SET_FEATURES, 0, 0x0b, 1 << 8)[0]);
            h.sendCommand(NvmeOpcode.ADMIN_ASYNC_EVENT_REQUEST, 0x55, 0, 0, 0);
            int nsid = target.addNamespace(NQN, new TargetConfig.NamespaceConfig(0, "memory", 4L, 4096, null, null));
            int[] aer = h.awaitResp(0x55);
            assertEquals(0, aer[0]);
            assertEquals((0x04 << 16) | 0x02, aer[1], "notice: namespace attribute changed, log page 04h");
            byte[] list = new byte[4096];
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0, ((4096 / 4 - 1) << 16) | 0x04, 0, list));
            assertEquals(nsid, le(list).getInt(0));
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0, ((4096 / 4 - 1) << 16) | 0x04, 0, list));
            assertEquals(0, le(list).getInt(0), "reading the log clears it");
            target.removeNamespace(NQN, nsid).get();
            byte[] id = new byte[4096];
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, nsid, 0x00, 0, id));
            assertEquals(0, le(id).getLong(0), "removed namespace is inactive");
            h.sendCommand(NvmeOpcode.ADMIN_ASYNC_EVENT_REQUEST, 0x60, 0, 0, 0);
            assertEquals((0x04 << 16) | 0x02, h.awaitResp(0x60)[1], "the removal is reported too");
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0, ((4096 / 4 - 1) << 16) | 0x04, 0, list));
            assertEquals(nsid, le(list).getInt(0));
            for (int i = 1; i <= 5; i++) {
                h.sendCommand(NvmeOpcode.ADMIN_ASYNC_EVENT_REQUEST, 0x60 + i, 0, 0, 0);
            }
            assertEquals(NvmeStatus.ASYNC_EVENT_REQUEST_LIMIT_EXCEEDED, h.awaitResp(0x65)[0], "AERL+1 = 4 outstanding");
        }
    }

    private NvmfController controller(int cntlid) {
        return target.query("controller", () -> target.controllerRegistry().get(cntlid));
    }

    @Test
    void keepAliveTimeoutTearsTheControllerDown() throws Exception {
        Object[] a = admin(NQN, 300);
        try (NvmeTcpHost h = (NvmeTcpHost) a[0]) {
            int cntlid = (int) a[1];
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (controller(cntlid) != null && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(null, controller(cntlid));
            assertThrows(IOException.class, () -> {
                for (int i = 0; i < 20; i++) {
                    h.adminSimple(NvmeOpcode.ADMIN_KEEP_ALIVE, 0, 0, 0);
                    Thread.sleep(50);
                }
            });
        }
    }

    @Test
    void ioQueueReadWriteAndErrors() throws Exception {
        Object[] a = admin(NQN, 0);
        try (NvmeTcpHost _ = (NvmeTcpHost) a[0]; NvmeTcpHost io = host()) { // the admin queue stays open for the test
            assertEquals(0, io.connect(1, 127, NQN, HOST, (int) a[1], 0)[0]);
            MemorySegment data = Arena.ofAuto().allocate(8192);
            for (int i = 0; i < 8192; i++) {
                data.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
            }
            int[] status = {-1, -1, -1, -1};
            MemorySegment got = Arena.ofAuto().allocate(8192);
            io.setListener(new NvmeTcpHost.Listener() {
                @Override
                public void onData(int cid, MemorySegment seg, long off, int len, int dataOffset) {
                    MemorySegment.copy(seg, off, got, dataOffset, len);
                }

                @Override
                public void onCompletion(int cid, int st, int dw0) {
                    status[cid] = st;
                }
            });
            io.write(0, 1, 10, 2, data, 0, 8192, 0);       // R2T path
            long wdl = System.nanoTime() + 5_000_000_000L;
            while (status[0] < 0 && System.nanoTime() < wdl) {
                io.poll();
            }
            io.read(1, 1, 10, 2, 8192);
            io.read(2, 1, 4095, 2, 8192);                  // past the end
            io.read(3, 9, 0, 1, 4096);                     // unknown namespace
            long deadline = System.nanoTime() + 5_000_000_000L;
            while ((status[0] < 0 || status[1] < 0 || status[2] < 0 || status[3] < 0) && System.nanoTime() < deadline) {
                io.poll();
            }
            assertEquals(0, status[0]);
            assertEquals(0, status[1]);
            assertEquals(NvmeStatus.LBA_OUT_OF_RANGE, status[2]);
            assertEquals(NvmeStatus.INVALID_NAMESPACE, status[3]);
            assertEquals(-1, MemorySegment.mismatch(data, 0, 8192, got, 0, 8192));
            assertTrue(target.stats().stream().anyMatch(s -> s.scope().equals("namespace") && s.get("writes") > 0));
            List<NvmfController> cs = target.controllers();
            assertTrue(cs.stream().anyMatch(c -> c.cntlid() == (int) a[1] && c.ioQps().size() == 1));
        }
    }
}
