package io.jdoca.nvmf.tgt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Identify Controller, Get/Set Features and the log pages of an I/O controller, decoded field by
 * field at the NVMe Base 1.4 offsets (Identify Controller figure 247, Feature Identifiers figure 271,
 * Error Information figure 194, SMART figure 196, Commands Supported and Effects figure 198).
 * On main: Get Features Arbitration (what spdk_nvme_identify asks first) was Invalid Field, VER was
 * 1.3, CTRATT/MSDBD/IEEE were 0, ONCS had no Compare, there was no effects log, the SMART log
 * reported an invented 313 K and 100 % spare and the power state an invented 25 W.
 */
class ControllerDataTest {
    static final String NQN = "nqn.2024-01.io.jdoca:ctrldata";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:6a646f63-0000-4000-8000-000000000042";
    static final byte[] HOST_ID = {0x6a, 0x64, 0x6f, 0x63, 0, 0, 0x40, 0, (byte) 0x80, 0, 0, 0, 0, 0, 0, 0x42};
    static NvmfTarget target;
    static int port;

    @BeforeAll
    static void up() throws IOException {
        target = new NvmfTarget(TargetConfig.parse("""
                { "subsystems": [ { "nqn": "%s", "allow_any_host": true,
                    "namespaces": [ { "nsid": 1, "backend": "memory", "size_mb": 4, "block_size": 4096 } ] } ] }
                """.formatted(NQN)));
        target.start();
        port = target.addListener("127.0.0.1", 0);
    }

    @AfterAll
    static void down() {
        target.close();
    }

    /** An enabled admin queue whose Connect carried {@link #HOST_ID}; returns {host, cntlid}. */
    static Object[] admin() throws IOException {
        NvmeTcpHost h = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
        h.initialize();
        int[] c = h.connect(0, 31, NQN, HOST, HOST_ID, 0xffff, 0, 0);
        assertEquals(0, c[0]);
        assertEquals(0, h.propertySet(0x14, 1 | (6 << 16) | (4 << 20))[0]);
        return new Object[] {h, c[1] & 0xffff};
    }

    static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    static int[] getFeature(NvmeTcpHost h, int fid, int sel, int cdw11) throws IOException {
        return h.adminSimple(NvmeOpcode.ADMIN_GET_FEATURES, 0, (sel << 8) | fid, cdw11);
    }

    static int setFeature(NvmeTcpHost h, int fid, int cdw11) throws IOException {
        return h.adminSimple(NvmeOpcode.ADMIN_SET_FEATURES, 0, fid, cdw11)[0];
    }

    @Test
    void identifyControllerIsTruthful() throws IOException {
        Object[] a = admin();
        try (NvmeTcpHost h = (NvmeTcpHost) a[0]) {
            byte[] id = new byte[4096];
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 0, 0x01, 0, id));
            ByteBuffer b = le(id);
            assertEquals(0x64, id[73] & 0xff, "IEEE byte 73 (least significant)");
            assertEquals(0x6a, id[74] & 0xff, "IEEE byte 74");
            assertEquals(0x02, id[75] & 0xff, "IEEE byte 75: U/L bit set, no vendor's OUI");
            assertEquals(0x00010400, b.getInt(80), "VER 1.4.0");
            assertEquals(0x00010400, h.propertyGet(0x08, false)[1], "VS property agrees");
            assertEquals(1, b.getInt(96) & 1, "CTRATT bit 0: 128-bit host identifier");
            assertEquals(1, id[111], "CNTRLTYPE I/O");
            assertEquals(0x06, id[261], "LPA: effects log + extended data");
            assertEquals(NvmfController.ERROR_LOG_ENTRIES - 1, id[262], "ELPE = entries kept - 1");
            assertEquals(0, id[263], "NPSS: one power state");
            assertEquals(0, b.getShort(266), "WCTEMP not reported");
            assertEquals(0, b.getShort(268), "CCTEMP not reported");
            int oncs = b.getShort(520) & 0xffff;
            assertEquals(0x3d, oncs, "ONCS: Compare, DSM, Write Zeroes, Save/Select, Reservations");
            assertEquals(0x05, id[525], "VWC present, flush broadcast not supported");
            assertEquals(1, id[1803], "MSDBD");
            assertEquals(0, b.getShort(2048), "PSD0 MP: not reported");
            assertEquals(0, b.getInt(2052), "PSD0 ENLAT/EXLAT");
        }
    }

    @Test
    void everyMandatoryFeatureGetsAndSets() throws IOException {
        Object[] a = admin();
        try (NvmeTcpHost h = (NvmeTcpHost) a[0]) {
            // Get (SEL 0) of every mandatory feature of a fabrics I/O controller succeeds.
            for (int fid : new int[] {0x01, 0x02, 0x04, 0x05, 0x06, 0x07, 0x0a, 0x0b, 0x0f}) {
                assertEquals(0, getFeature(h, fid, 0, 0)[0], "Get Features " + Integer.toHexString(fid));
                assertEquals(0, getFeature(h, fid, 1, 0)[0], "Get Features default " + Integer.toHexString(fid));
                assertEquals(0, getFeature(h, fid, 2, 0)[0], "Get Features saved " + Integer.toHexString(fid));
                assertEquals(NvmeStatus.FEATURE_NOT_SAVEABLE,
                        h.adminSimple(NvmeOpcode.ADMIN_SET_FEATURES, 0, 0x80000000 | fid, 0)[0], "save " + fid);
            }
            // Arbitration (01h): AB 2:0, LPW 15:8, MPW 23:16, HPW 31:24 kept.
            assertEquals(0, getFeature(h, 0x01, 0, 0)[1]);
            assertEquals(0, setFeature(h, 0x01, 0x03020103));
            assertEquals(0x03020103, getFeature(h, 0x01, 0, 0)[1]);
            assertEquals(0, getFeature(h, 0x01, 1, 0)[1], "default");
            assertEquals(0, getFeature(h, 0x01, 2, 0)[1], "saved = default: nothing is saveable");
            assertEquals(1 << 2, getFeature(h, 0x01, 3, 0)[1], "capabilities: changeable only");
            // Power Management (02h): power state 0 only, no workload hint.
            assertEquals(0, setFeature(h, 0x02, 0));
            assertEquals(NvmeStatus.INVALID_FIELD, setFeature(h, 0x02, 1));
            assertEquals(NvmeStatus.INVALID_FIELD, setFeature(h, 0x02, 1 << 5));
            assertEquals(0, getFeature(h, 0x02, 3, 0)[1], "not changeable");
            // Temperature Threshold (04h): TMPTH 15:0, TMPSEL 19:16, THSEL 21:20; composite only.
            assertEquals(0xffff, getFeature(h, 0x04, 0, 0)[1], "over threshold default: never crossed");
            assertEquals(1 << 20, getFeature(h, 0x04, 0, 1 << 20)[1], "under threshold default 0");
            assertEquals(0, setFeature(h, 0x04, 350));
            assertEquals(0, setFeature(h, 0x04, (1 << 20) | 250));
            assertEquals(350, getFeature(h, 0x04, 0, 0)[1]);
            assertEquals((1 << 20) | 250, getFeature(h, 0x04, 0, 1 << 20)[1]);
            assertEquals(0, setFeature(h, 0x04, (0xf << 16) | 360), "TMPSEL Fh: all sensors");
            assertEquals(360, getFeature(h, 0x04, 0, 0)[1]);
            assertEquals(NvmeStatus.INVALID_FIELD, setFeature(h, 0x04, (1 << 16) | 300), "no sensor 1");
            assertEquals(NvmeStatus.INVALID_FIELD, setFeature(h, 0x04, (2 << 20) | 300), "THSEL 2 reserved");
            assertEquals(NvmeStatus.INVALID_FIELD, getFeature(h, 0x04, 0, 1 << 16)[0]);
            // Error Recovery (05h): TLER kept, DULBE refused (no deallocated-block errors).
            assertEquals(0, setFeature(h, 0x05, 30));
            assertEquals(30, getFeature(h, 0x05, 0, 0)[1]);
            assertEquals(NvmeStatus.INVALID_FIELD, setFeature(h, 0x05, 1 << 16));
            // Volatile Write Cache (06h): present, enabled, not changeable.
            assertEquals(1, getFeature(h, 0x06, 0, 0)[1]);
            assertEquals(0, setFeature(h, 0x06, 1));
            assertEquals(NvmeStatus.FEATURE_NOT_CHANGEABLE, setFeature(h, 0x06, 0));
            assertEquals(0, getFeature(h, 0x06, 3, 0)[1]);
            // Number of Queues (07h).
            int[] q = h.adminSimple(NvmeOpcode.ADMIN_SET_FEATURES, 0, 0x07, (1 << 16) | 1);
            assertEquals(0, q[0]);
            assertEquals((1 << 16) | 1, q[1]);
            assertEquals((1 << 16) | 1, getFeature(h, 0x07, 0, 0)[1]);
            // Write Atomicity Normal (0Ah): DN bit 0.
            assertEquals(0, setFeature(h, 0x0a, 1));
            assertEquals(1, getFeature(h, 0x0a, 0, 0)[1]);
            // Async Event Configuration (0Bh) and Keep Alive Timer (0Fh).
            assertEquals(0, setFeature(h, 0x0b, 1 << 8));
            assertEquals(1 << 8, getFeature(h, 0x0b, 0, 0)[1]);
            assertEquals(0, setFeature(h, 0x0f, 9000));
            assertEquals(9000, getFeature(h, 0x0f, 0, 0)[1]);
            // Host Identifier (81h): the 128-bit id from Connect; cannot be set on fabrics.
            byte[] hid = new byte[16];
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_GET_FEATURES, 0, 0x81, 1, hid));
            assertArrayEquals(HOST_ID, hid);
            assertEquals(NvmeStatus.INVALID_FIELD, h.adminRead(NvmeOpcode.ADMIN_GET_FEATURES, 0, 0x81, 0, hid),
                    "EXHID 0");
            assertEquals(NvmeStatus.COMMAND_SEQUENCE_ERROR, setFeature(h, 0x81, 1));
            // Interrupt Coalescing (08h) and Interrupt Vector Configuration (09h) are PCIe only.
            assertEquals(NvmeStatus.INVALID_FIELD, getFeature(h, 0x08, 0, 0)[0]);
            assertEquals(NvmeStatus.INVALID_FIELD, getFeature(h, 0x09, 0, 0)[0]);
            assertEquals(NvmeStatus.INVALID_FIELD, setFeature(h, 0x08, 0));
            assertEquals(NvmeStatus.INVALID_FIELD, setFeature(h, 0x09, 0));
        }
        // Features are per controller and start at their defaults.
        Object[] b = admin();
        try (NvmeTcpHost h = (NvmeTcpHost) b[0]) {
            assertEquals(0, getFeature(h, 0x01, 0, 0)[1]);
            assertEquals(0xffff, getFeature(h, 0x04, 0, 0)[1]);
        }
    }

    @Test
    void logPagesDecode() throws Exception {
        Object[] a = admin();
        try (NvmeTcpHost h = (NvmeTcpHost) a[0]; NvmeTcpHost io = new NvmeTcpHost("127.0.0.1", port, false, false, 8,
                131072)) {
            // Commands Supported and Effects (05h): 256 admin, then 256 I/O dwords.
            byte[] fx = new byte[4096];
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0, ((4096 / 4 - 1) << 16) | 0x05, 0, fx));
            ByteBuffer e = le(fx);
            for (int op : new int[] {0x02, 0x06, 0x08, 0x09, 0x0a, 0x0c, 0x18}) {
                assertEquals(1, e.getInt(4 * op), "admin " + Integer.toHexString(op) + " CSUPP only");
            }
            for (int op : new int[] {0x00, 0x01, 0x03, 0x04, 0x05, 0x10, 0x11, 0x80}) {
                assertEquals(0, e.getInt(4 * op), "admin " + Integer.toHexString(op) + " not supported");
            }
            assertEquals(1, e.getInt(1024 + 4 * 0x00), "Flush");
            assertEquals(3, e.getInt(1024 + 4 * 0x01), "Write: CSUPP + LBCC");
            assertEquals(1, e.getInt(1024 + 4 * 0x02), "Read");
            assertEquals(1, e.getInt(1024 + 4 * 0x05), "Compare");
            assertEquals(3, e.getInt(1024 + 4 * 0x08), "Write Zeroes");
            assertEquals(3, e.getInt(1024 + 4 * 0x09), "Dataset Management");
            assertEquals(0, e.getInt(1024 + 4 * 0x04), "Write Uncorrectable: no");
            assertEquals(0, e.getInt(1024 + 4 * 0x0c), "Verify: no");

            // Error Information (01h): a failed admin command is recorded, newest first.
            assertEquals(NvmeStatus.INVALID_FIELD, getFeature(h, 0x08, 0, 0)[0]);
            assertEquals(NvmeStatus.INVALID_LOG_PAGE,
                    h.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0, ((64 / 4 - 1) << 16) | 0x33, 0, new byte[64]));
            byte[] el = new byte[NvmfController.ERROR_LOG_ENTRIES * 64];
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0, ((el.length / 4 - 1) << 16) | 0x01, 0, el));
            ByteBuffer l = le(el);
            long count = l.getLong(0);
            assertTrue(count >= 2, "error count " + count);
            assertEquals(count - 1, l.getLong(64), "previous entry");
            assertEquals(0, l.getShort(8), "SQID: admin");
            assertEquals(0x7003, l.getShort(10) & 0xffff, "CID of the Get Log Page");
            assertEquals(NvmeStatus.INVALID_LOG_PAGE, l.getShort(12) & 0xffff, "status field");
            assertEquals(0xffff, l.getShort(14) & 0xffff, "parameter error location: not specific");
            assertEquals(NvmeStatus.INVALID_FIELD, l.getShort(64 + 12) & 0xffff);
            assertEquals(0x7004, l.getShort(64 + 10) & 0xffff, "CID of the Get Features");
            assertEquals(3, el[29], "transport type TCP");

            // SMART (02h): what a RAM target knows, zero where it knows nothing.
            io.initialize();
            assertEquals(0, io.connect(1, 31, NQN, HOST, HOST_ID, (int) a[1], 0, 0)[0]);
            MemorySegment data = Arena.ofAuto().allocate(8192);
            int[] st = {-1};
            io.setListener(new NvmeTcpHost.Listener() {
                @Override
                public void onData(int cid, MemorySegment seg, long off, int len, int dataOffset) {
                }

                @Override
                public void onCompletion(int cid, int status, int dw0) {
                    st[0] = status;
                }
            });
            byte[] smart = new byte[512];
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0xffffffff, ((512 / 4 - 1) << 16) | 0x02, 0,
                    smart));
            ByteBuffer s0 = le(smart);
            long written0 = s0.getLong(48);
            long writes0 = s0.getLong(80);
            io.write(0, 1, 0, 2, data, 0, 8192, 0);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (st[0] < 0 && System.nanoTime() < deadline) {
                io.poll();
            }
            assertEquals(0, st[0]);
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0xffffffff, ((512 / 4 - 1) << 16) | 0x02, 0,
                    smart));
            ByteBuffer s = le(smart);
            assertEquals(0, smart[0], "critical warning");
            assertEquals(0, s.getShort(1), "composite temperature: no sensor");
            assertEquals(0, smart[3], "available spare: unknown");
            assertEquals(0, smart[4], "available spare threshold");
            assertEquals(0, smart[5], "percentage used");
            assertEquals(writes0 + 1, s.getLong(80), "host write commands");
            assertEquals(written0 == 0 ? 1 : written0, s.getLong(48), "data units written (8 KiB rounds up to 1)");
            assertTrue(s.getLong(176) >= 2, "error log entries");
            assertEquals(0, s.getLong(128), "power cycles: unknown");
            assertEquals(0, s.getLong(144), "power on hours: unknown");
        }
    }
}
