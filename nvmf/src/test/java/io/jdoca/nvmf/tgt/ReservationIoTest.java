package io.jdoca.nvmf.tgt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.perf.NvmeTcpHost;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reservations end to end over NVMe/TCP with two hosts (two host identifiers): Register, Acquire
 * (Write Exclusive), a write from the other host answered Reservation Conflict (83h) while its read
 * passes, Report (extended structure: both registrants, the holder), the Reservation Notification
 * log (80h) after a preempt, Release; Persist Through Power Loss: the reservation read back from
 * the ptpl_file by a new target; Identify ONCS bit 5 and RESCAP; a host without a host identifier
 * is refused.
 */
class ReservationIoTest {
    static final String NQN = "nqn.2024-01.io.jdoca:resv";
    static final String HOST1 = "nqn.2014-08.org.nvmexpress:uuid:6a646f63-0000-4000-8000-000000000001";
    static final String HOST2 = "nqn.2014-08.org.nvmexpress:uuid:6a646f63-0000-4000-8000-000000000002";
    static final byte[] ID1 = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    static final byte[] ID2 = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
    static final int WRITE_EXCLUSIVE = 1;

    @TempDir
    Path dir;

    private NvmfTarget start(String ptpl) throws IOException {
        NvmfTarget t = new NvmfTarget(TargetConfig.parse("""
                { "subsystems": [ { "nqn": "%s", "allow_any_host": true,
                    "namespaces": [ { "nsid": 1, "backend": "memory", "size_mb": 4, "block_size": 4096 %s } ] } ] }
                """.formatted(NQN, ptpl == null ? "" : ", \"ptpl_file\": \"" + ptpl + "\"")));
        t.start();
        return t;
    }

    /** An admin queue (enabled) and an I/O queue of one host: {admin, io}. */
    private static NvmeTcpHost[] host(int port, String nqn, byte[] id) throws IOException {
        NvmeTcpHost a = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
        a.initialize();
        int[] c = a.connect(0, 31, NQN, nqn, id, 0xffff, 0, 0);
        assertEquals(0, c[0]);
        assertEquals(0, a.propertySet(0x14, 1 | (6 << 16) | (4 << 20))[0]);
        NvmeTcpHost io = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
        io.initialize();
        assertEquals(0, io.connect(1, 31, NQN, nqn, id, c[1] & 0xffff, 0, 0)[0]);
        return new NvmeTcpHost[] {a, io};
    }

    static byte[] keys(long a, long b) {
        return ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(a).putLong(b).array();
    }

    static int register(NvmeTcpHost io, long nrkey) throws IOException {
        return io.commandWithData(NvmeOpcode.IO_RESERVATION_REGISTER, 1, 0, 0, keys(0, nrkey))[0];
    }

    static int acquire(NvmeTcpHost io, int action, long crkey, long prkey, int type) throws IOException {
        return io.commandWithData(NvmeOpcode.IO_RESERVATION_ACQUIRE, 1, (type << 8) | action, 0,
                keys(crkey, prkey))[0];
    }

    static int release(NvmeTcpHost io, long crkey, int type) throws IOException {
        byte[] k = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(crkey).array();
        return io.commandWithData(NvmeOpcode.IO_RESERVATION_RELEASE, 1, type << 8, 0, k)[0];
    }

    static ByteBuffer report(NvmeTcpHost io) throws IOException {
        byte[] out = new byte[4096];
        assertEquals(0, io.adminRead(NvmeOpcode.IO_RESERVATION_REPORT, 1, out.length / 4 - 1, 1, out));
        return ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
    }

    static int write(NvmeTcpHost io) throws IOException {
        return io.adminSimple(NvmeOpcode.IO_WRITE_ZEROES, 1, 0, 0)[0];
    }

    static int read(NvmeTcpHost io) throws IOException {
        byte[] out = new byte[4096];
        return io.adminRead(NvmeOpcode.IO_READ, 1, 0, 0, out);
    }

    @Test
    void writeExclusiveStopsTheOtherHostsWritesNotItsReads() throws Exception {
        try (NvmfTarget t = start(null)) {
            int port = t.addListener("127.0.0.1", 0);
            NvmeTcpHost[] h1 = host(port, HOST1, ID1);
            NvmeTcpHost[] h2 = host(port, HOST2, ID2);
            try {
                byte[] id = new byte[4096];
                assertEquals(0, h1[0].adminRead(NvmeOpcode.ADMIN_IDENTIFY, 0, 0x01, 0, id));
                assertThat(ByteBuffer.wrap(id).order(ByteOrder.LITTLE_ENDIAN).getShort(520) & (1 << 5))
                        .as("ONCS: reservations").isNotZero();
                assertEquals(0, h1[0].adminRead(NvmeOpcode.ADMIN_IDENTIFY, 1, 0x00, 0, id));
                assertThat(id[31] & 0xff).as("RESCAP: all types, IEKEY, no PTPL without a file").isEqualTo(0xfe);

                assertThat(register(h1[1], 0x1111)).isZero();
                assertThat(register(h2[1], 0x2222)).isZero();
                assertThat(acquire(h1[1], 0, 0x1111, 0, WRITE_EXCLUSIVE)).isZero();
                assertThat(write(h2[1])).as("a write from the non-holder").isEqualTo(NvmeStatus.RESERVATION_CONFLICT);
                assertThat(read(h2[1])).as("a read from the non-holder under Write Exclusive").isZero();
                assertThat(write(h1[1])).as("the holder writes").isZero();
                assertThat(acquire(h2[1], 0, 0x2222, 0, WRITE_EXCLUSIVE)).as("a second holder")
                        .isEqualTo(NvmeStatus.RESERVATION_CONFLICT);

                ByteBuffer r = report(h2[1]);
                assertThat(r.get(4)).as("RTYPE").isEqualTo((byte) WRITE_EXCLUSIVE);
                assertThat(r.getShort(5)).as("REGCTL: both registrants").isEqualTo((short) 2);
                // Registered Controller Extended entries from byte 64, 64 bytes each: CNTLID, RCSTS (bit 0:
                // holder) at 2, RKEY at 8, HOSTID at 16.
                long k0 = r.getLong(64 + 8);
                long k1 = r.getLong(128 + 8);
                assertThat(java.util.Set.of(k0, k1)).containsExactlyInAnyOrder(0x1111L, 0x2222L);
                int holderEntry = k0 == 0x1111L ? 64 : 128;
                assertThat(r.get(holderEntry + 2) & 1).as("RCSTS: holder").isEqualTo(1);

                // Host 2 preempts host 1: host 1 gets a Registration Preempted notification (log 80h).
                assertThat(acquire(h2[1], 1, 0x2222, 0x1111, WRITE_EXCLUSIVE)).isZero();
                assertThat(write(h1[1])).as("host 1 was preempted").isEqualTo(NvmeStatus.RESERVATION_CONFLICT);
                byte[] log = new byte[64];
                assertEquals(0, h1[0].adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0xffffffff, ((64 / 4 - 1) << 16)
                        | 0x80, 0, log));
                ByteBuffer l = ByteBuffer.wrap(log).order(ByteOrder.LITTLE_ENDIAN);
                assertThat(l.getLong(0)).as("log page count").isPositive();
                assertThat(log[8]).as("type: registration preempted").isEqualTo((byte) 1);
                assertThat(l.getInt(12)).as("NSID").isEqualTo(1);

                assertThat(release(h2[1], 0x2222, WRITE_EXCLUSIVE)).isZero();
                assertThat(write(h1[1])).as("no reservation any more").isZero();
            } finally {
                for (NvmeTcpHost h : new NvmeTcpHost[] {h1[0], h1[1], h2[0], h2[1]}) {
                    h.close();
                }
            }
        }
    }

    @Test
    void aReservationPersistsThroughARestartWithAPtplFile() throws Exception {
        Path ptpl = dir.resolve("ns1.ptpl");
        try (NvmfTarget t = start(ptpl.toString())) {
            int port = t.addListener("127.0.0.1", 0);
            NvmeTcpHost[] h1 = host(port, HOST1, ID1);
            try {
                byte[] id = new byte[4096];
                assertEquals(0, h1[0].adminRead(NvmeOpcode.ADMIN_IDENTIFY, 1, 0x00, 0, id));
                assertThat(id[31] & 0xff).as("RESCAP with PTPL").isEqualTo(0xff);
                // CPTPL = 3 (set PTPL) with the registration, as nvme-cli's resv-register --cptpl=3.
                assertThat(h1[1].commandWithData(NvmeOpcode.IO_RESERVATION_REGISTER, 1, 3 << 30, 0,
                        keys(0, 0xabcd))[0]).isZero();
                assertThat(acquire(h1[1], 0, 0xabcd, 0, WRITE_EXCLUSIVE)).isZero();
            } finally {
                h1[0].close();
                h1[1].close();
            }
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(ptpl))).isEqualTo("rw-------");
        try (NvmfTarget t = start(ptpl.toString())) {
            int port = t.addListener("127.0.0.1", 0);
            NvmeTcpHost[] h2 = host(port, HOST2, ID2);
            try {
                assertThat(write(h2[1])).as("the reservation came back from the file")
                        .isEqualTo(NvmeStatus.RESERVATION_CONFLICT);
                ByteBuffer r = report(h2[1]);
                assertThat(r.get(4)).isEqualTo((byte) WRITE_EXCLUSIVE);
                assertThat(r.get(9) & 1).as("PTPLS").isEqualTo(1);
            } finally {
                h2[0].close();
                h2[1].close();
            }
        }
    }

    @Test
    void aHostWithoutAHostIdentifierIsRefused() throws Exception {
        try (NvmfTarget t = start(null)) {
            int port = t.addListener("127.0.0.1", 0);
            NvmeTcpHost[] h = host(port, HOST1, new byte[16]);
            try {
                assertThat(register(h[1], 0x1)).isEqualTo(NvmeStatus.COMMAND_SEQUENCE_ERROR);
            } finally {
                h[0].close();
                h[1].close();
            }
        }
    }
}
