package io.jdoca.nvmf.tgt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdoca.core.DocaException;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.perf.NvmeTcpHost;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.nvmf.NvmfListenerAna;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Several controllers per subsystem and Asymmetric Namespace Access over two listeners of one
 * target, field by field at the NVMe Base 2.0 offsets: Identify Controller CMIC (byte 76), OAES bit
 * 11, ANATT (343), ANACAP (344), ANAGRPMAX (348), NANAGRPID (352), MNAN (540); Identify Namespace
 * NMIC (30) and ANAGRPID (92); the ANA log page (0Ch, figures 199-200) per state and with RGO; the
 * path-related status of I/O on an inaccessible path; the ANA change notice; controller ids from
 * the subsystem's range; the one-line refusals of bad input.
 */
class AnaMultipathTest {
    static final String NQN = "nqn.2024-01.io.jdoca:ana";
    static final String PLAIN = "nqn.2024-01.io.jdoca:plain";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:6a646f63-0000-4000-8000-0000000000aa";
    NvmfTarget target;
    int portA;
    int portB;

    @BeforeEach
    void up() throws IOException {
        target = new NvmfTarget(TargetConfig.parse("""
                { "subsystems": [
                  { "nqn": "%s", "allow_any_host": true, "ana_reporting": true, "min_cntlid": 10, "max_cntlid": 12,
                    "listeners": [],
                    "namespaces": [ { "nsid": 1, "backend": "memory", "size_mb": 4, "block_size": 4096 },
                                    { "nsid": 2, "backend": "memory", "size_mb": 4, "block_size": 4096,
                                      "anagrpid": 5 } ] },
                  { "nqn": "%s", "allow_any_host": true, "listeners": [],
                    "namespaces": [ { "nsid": 1, "backend": "memory", "size_mb": 4, "block_size": 4096 } ] } ] }
                """.formatted(NQN, PLAIN)));
        target.start();
        portA = target.addSubsystemListener(NQN, "127.0.0.1", 0);
        portB = target.addSubsystemListener(NQN, "127.0.0.1", 0);
        target.addSubsystemListener(PLAIN, "127.0.0.1", portA);
    }

    @AfterEach
    void down() {
        target.close();
    }

    /** An enabled admin queue on {@code port}; returns {host, cntlid}. */
    static Object[] admin(int port, String nqn) throws IOException {
        NvmeTcpHost h = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
        h.initialize();
        int[] c = h.connect(0, 31, nqn, HOST, 0xffff, 0);
        assertEquals(0, c[0], "connect status");
        assertEquals(0, h.propertySet(0x14, 1 | (6 << 16) | (4 << 20))[0]);
        return new Object[] {h, c[1] & 0xffff};
    }

    static NvmeTcpHost ioQueue(int port, int cntlid) throws IOException {
        NvmeTcpHost h = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
        h.initialize();
        assertEquals(0, h.connect(1, 31, NQN, HOST, cntlid, 0)[0]);
        return h;
    }

    static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    static byte[] anaLog(NvmeTcpHost h, boolean rgo) throws IOException {
        byte[] log = new byte[4096];
        int cdw10 = ((log.length / 4 - 1) << 16) | 0x0c | (rgo ? 1 << 8 : 0);
        assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0xffffffff, cdw10, 0, log));
        return log;
    }

    /** Write Zeroes of block 0 of {@code nsid} on an I/O queue: its status. */
    static int writeZeroes(NvmeTcpHost io, int nsid) throws IOException {
        return io.adminSimple(NvmeOpcode.IO_WRITE_ZEROES, nsid, 0, 0)[0];
    }

    @Test
    void identifyReportsMultipleControllersSharedNamespacesAndAna() throws IOException {
        Object[] a = admin(portA, NQN);
        try (NvmeTcpHost h = (NvmeTcpHost) a[0]) {
            byte[] id = new byte[4096];
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 0, 0x01, 0, id));
            ByteBuffer b = le(id);
            assertThat(id[76] & 0xff).as("CMIC: multi-port, multi-controller, ANA").isEqualTo(0x0b);
            assertThat(b.getInt(92) & (1 << 11)).as("OAES: ANA change notices").isNotZero();
            assertThat(id[343] & 0xff).as("ANATT").isEqualTo(10);
            assertThat(id[344] & 0xff).as("ANACAP").isEqualTo(0x57);
            int nn = b.getInt(516);
            assertThat(b.getInt(348)).as("ANAGRPMAX").isEqualTo(nn);
            assertThat(b.getInt(352)).as("NANAGRPID").isEqualTo(nn);
            assertThat(b.getInt(540)).as("MNAN: 0 < MNAN <= NN, as Linux requires with ANA").isEqualTo(nn);
            byte[] ns = new byte[4096];
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 1, 0x00, 0, ns));
            assertThat(ns[30] & 0xff).as("NMIC: shared").isEqualTo(1);
            assertThat(le(ns).getInt(92)).as("ANAGRPID defaults to the nsid").isEqualTo(1);
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 2, 0x00, 0, ns));
            assertThat(le(ns).getInt(92)).as("ANAGRPID as configured").isEqualTo(5);
        }
        Object[] p = admin(portA, PLAIN);
        try (NvmeTcpHost h = (NvmeTcpHost) p[0]) {
            byte[] id = new byte[4096];
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 0, 0x01, 0, id));
            assertThat(id[76] & 0xff).as("CMIC without ANA").isEqualTo(0x03);
            assertThat(id[344] & 0xff).as("ANACAP without ANA").isZero();
            assertThat(le(id).getInt(348)).as("ANAGRPMAX without ANA").isZero();
            byte[] ns = new byte[4096];
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 1, 0x00, 0, ns));
            assertThat(ns[30] & 0xff).as("NMIC").isEqualTo(1);
            assertThat(le(ns).getInt(92)).as("ANAGRPID must be 0 without ANA reporting").isZero();
            assertEquals(NvmeStatus.INVALID_LOG_PAGE, h.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0xffffffff,
                    ((4096 / 4 - 1) << 16) | 0x0c, 0, new byte[4096]), "no ANA log without ANA reporting");
        }
    }

    @Test
    void controllersOnBothPathsTakeDistinctIdsFromTheRange() throws IOException {
        Object[] a = admin(portA, NQN);
        Object[] b = admin(portB, NQN);
        Object[] c = admin(portA, NQN);
        try (NvmeTcpHost hd = new NvmeTcpHost("127.0.0.1", portB, false, false, 64, 131072)) {
            assertThat(List.of((int) a[1], (int) b[1], (int) c[1])).containsExactlyInAnyOrder(10, 11, 12);
            for (Object[] h : List.of(a, b, c)) {
                assertThat(((NvmeTcpHost) h[0]).adminSimple(NvmeOpcode.ADMIN_KEEP_ALIVE, 0, 0, 0)[0]).isZero();
            }
            hd.initialize();
            assertEquals(NvmeStatus.CONNECT_CONTROLLER_BUSY, hd.connect(0, 31, NQN, HOST, 0xffff, 0)[0],
                    "the range 10..12 is used up");
        } finally {
            for (Object[] h : List.of(a, b, c)) {
                ((NvmeTcpHost) h[0]).close();
            }
        }
    }

    @Test
    void anaLogFollowsEachListenersStateAndInaccessiblePathsRefuseIo() throws IOException {
        Object[] a = admin(portA, NQN);
        Object[] b = admin(portB, NQN);
        try (NvmeTcpHost ha = (NvmeTcpHost) a[0]; NvmeTcpHost hb = (NvmeTcpHost) b[0];
             NvmeTcpHost ioA = ioQueue(portA, (int) a[1]); NvmeTcpHost ioB = ioQueue(portB, (int) b[1])) {
            ByteBuffer log = le(anaLog(hb, false));
            long change0 = log.getLong(0);
            assertThat(log.getShort(8)).as("descriptors: groups 1 and 5").isEqualTo((short) 2);
            assertThat(log.getInt(16)).as("first ANAGRPID").isEqualTo(1);
            assertThat(log.getInt(20)).as("NNSID").isEqualTo(1);
            assertThat(log.get(32)).as("state").isEqualTo((byte) NvmfListenerAna.OPTIMIZED);
            assertThat(log.getInt(48)).as("NSID of group 1").isEqualTo(1);
            assertThat(log.getInt(52)).as("second ANAGRPID").isEqualTo(5);
            assertThat(log.getInt(84)).as("NSID of group 5").isEqualTo(2);

            // The host asks to be told of ANA changes (AEC bit 11) and leaves an AER outstanding on B.
            assertEquals(0, hb.adminSimple(NvmeOpcode.ADMIN_SET_FEATURES, 0, 0x0b, 1 << 11)[0]);
            hb.sendCommand(NvmeOpcode.ADMIN_ASYNC_EVENT_REQUEST, 0x10, 0, 0, 0);

            NvmfTargetOps.setAnaState(target, NQN, "TCP", "127.0.0.1", portB, NvmfListenerAna.INACCESSIBLE, 1);
            int[] aen = hb.awaitResp(0x10);
            assertThat(aen[1]).as("AEN: notice, ANA change, log 0Ch").isEqualTo(0x000c0302);

            // Through the Change state (I/O meanwhile: ANA Transition), settled by sta-main's next tick.
            log = le(anaLog(hb, false));
            assertThat(log.getLong(0)).as("change count").isGreaterThan(change0);
            assertThat(log.get(32)).as("group 1 on B in transition").isIn((byte) NvmfListenerAna.CHANGE,
                    (byte) NvmfListenerAna.INACCESSIBLE);
            assertThat(writeZeroes(ioB, 1)).as("I/O during the transition")
                    .isIn(NvmeStatus.ANA_TRANSITION, NvmeStatus.ANA_INACCESSIBLE);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (le(anaLog(hb, false)).get(32) != NvmfListenerAna.INACCESSIBLE && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            log = le(anaLog(hb, false));
            assertThat(log.get(32)).as("group 1 on B").isEqualTo((byte) NvmfListenerAna.INACCESSIBLE);
            assertThat(log.get(68)).as("group 5 on B").isEqualTo((byte) NvmfListenerAna.OPTIMIZED);
            assertThat(le(anaLog(ha, false)).get(32)).as("group 1 on A").isEqualTo((byte) NvmfListenerAna.OPTIMIZED);
            ByteBuffer rgo = le(anaLog(hb, true));
            assertThat(rgo.getInt(20)).as("RGO: no NSIDs").isZero();
            assertThat(rgo.getInt(16 + 32)).as("RGO: second descriptor right after the first").isEqualTo(5);

            int st = writeZeroes(ioB, 1);
            assertThat(st).as("I/O on an inaccessible path").isEqualTo(NvmeStatus.ANA_INACCESSIBLE);
            assertThat(NvmeStatus.dnr(st)).as("the host must be free to retry elsewhere").isFalse();
            assertThat(writeZeroes(ioB, 2)).as("group 5 stays reachable on B").isZero();
            assertThat(writeZeroes(ioA, 1)).as("path A").isZero();

            NvmfTargetOps.setAnaState(target, NQN, "TCP", "127.0.0.1", portB, NvmfListenerAna.NON_OPTIMIZED, 0);
            deadline = System.nanoTime() + 5_000_000_000L;
            while (le(anaLog(hb, false)).get(32) != NvmfListenerAna.NON_OPTIMIZED && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(le(anaLog(hb, false)).get(32)).isEqualTo((byte) NvmfListenerAna.NON_OPTIMIZED);
            assertThat(writeZeroes(ioB, 1)).as("non-optimized paths execute I/O").isZero();
            assertThat(le(anaLog(hb, false)).get(68)).as("group 5 went through the same transition")
                    .isEqualTo((byte) NvmfListenerAna.NON_OPTIMIZED);
        }
    }

    @Test
    void badInputIsRefusedInOneLine() {
        assertThatThrownBy(() -> NvmfTargetOps.setAnaState(target, NQN, "TCP", "127.0.0.1", 1,
                NvmfListenerAna.INACCESSIBLE, 0)).isInstanceOf(DocaException.class)
                .hasMessageContaining("has no tcp listener 127.0.0.1:1");
        assertThatThrownBy(() -> NvmfTargetOps.setAnaState(target, NQN, "TCP", "127.0.0.1", portA,
                NvmfListenerAna.INACCESSIBLE, 99_999)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("anagrpid").hasMessageContaining("out of range");
        assertThatThrownBy(() -> NvmfTargetOps.setAnaState(target, PLAIN, "TCP", "127.0.0.1", portA,
                NvmfListenerAna.INACCESSIBLE, 0)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("does not report ANA");
        TargetConfig.SubsystemConfig first = new TargetConfig.SubsystemConfig("nqn.2024-01.io.jdoca:r1", null, null,
                true, null, null, null, true, 100, 199);
        target.createSubsystem(first, false, 0);
        TargetConfig.SubsystemConfig overlap = new TargetConfig.SubsystemConfig("nqn.2024-01.io.jdoca:r2", null,
                null, true, null, null, null, true, 150, 250);
        assertThatThrownBy(() -> target.createSubsystem(overlap, false, 0)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("overlap nqn.2024-01.io.jdoca:r1's 100..199");
        TargetConfig.SubsystemConfig inverted = new TargetConfig.SubsystemConfig("nqn.2024-01.io.jdoca:r3", null,
                null, true, null, null, null, true, 300, 200);
        assertThatThrownBy(() -> target.createSubsystem(inverted, false, 0)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("max_cntlid");
        TargetConfig.NamespaceConfig bigGroup = new TargetConfig.NamespaceConfig(3, "memory", 1L, 4096, null, null,
                70_000, null);
        assertThatThrownBy(() -> target.addNamespace(NQN, bigGroup)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("anagrpid");
    }
}
