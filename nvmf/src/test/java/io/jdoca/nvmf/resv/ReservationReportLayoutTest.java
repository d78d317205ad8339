package io.jdoca.nvmf.resv;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The Reservation Status Extended Data Structure byte for byte, at the offsets of NVMe Base 2.0's
 * figures "Reservation Status Extended Data Structure" (header: GEN 03:00, RTYPE 04, REGCTL 06:05,
 * PTPLS 09, 64 bytes) and "Registered Controller Extended Data Structure" (CNTLID 01:00, RCSTS 02,
 * RKEY 15:08, HOSTID 31:16, 64 bytes each).
 */
class ReservationReportLayoutTest {
    static final HostId A = HostId.parse("00112233-4455-6677-8899-aabbccddeeff");
    static final HostId B = HostId.parse("0f0e0d0c-0b0a-0908-0706-050403020100");

    static int u16(byte[] b, int off) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getShort(off) & 0xffff;
    }

    static int u32(byte[] b, int off) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getInt(off);
    }

    static long u64(byte[] b, int off) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong(off);
    }

    NamespaceReservation twoRegistrantsAHolds(ReservationType t) {
        NamespaceReservation ns = new NamespaceReservation();
        ReservationCommandsTest.register(ns, A, 0x1122334455667788L);
        ReservationCommandsTest.register(ns, B, 0x8000_0000_0000_0001L);
        ReservationCommandsTest.acquire(ns, A, 0x1122334455667788L, t);
        return ns;
    }

    @Test
    void headerAndEntriesAtTheSpecOffsets() {
        NamespaceReservation ns = twoRegistrantsAHolds(ReservationType.EXCLUSIVE_ACCESS_REGISTRANTS_ONLY);
        ReservationReport r = ns.report(A.hi(), A.lo(), 4096, true, (hi, lo) -> hi == A.hi() ? 0x0102 : 0xffff);
        assertThat(r.success()).isTrue();
        byte[] d = r.data();
        assertThat(d).hasSize(64 + 2 * 64);
        assertThat(u32(d, 0)).as("GEN").isEqualTo(2);
        assertThat(d[4]).as("RTYPE").isEqualTo((byte) 4);
        assertThat(u16(d, 5)).as("REGCTL").isEqualTo(2);
        assertThat(d[7]).isZero();
        assertThat(d[8]).isZero();
        assertThat(d[9]).as("PTPLS").isZero();
        assertThat(Arrays.copyOfRange(d, 10, 64)).as("reserved").containsOnly(0);

        assertThat(u16(d, 64)).as("CNTLID").isEqualTo(0x0102);
        assertThat(d[66]).as("RCSTS: holds").isEqualTo((byte) 1);
        assertThat(Arrays.copyOfRange(d, 67, 72)).containsOnly(0);
        assertThat(u64(d, 72)).as("RKEY").isEqualTo(0x1122334455667788L);
        assertThat(Arrays.copyOfRange(d, 80, 96)).as("HOSTID as sent").isEqualTo(A.toBytes());
        assertThat(d[80]).isEqualTo((byte) 0x00);
        assertThat(d[95]).isEqualTo((byte) 0xff);
        assertThat(Arrays.copyOfRange(d, 96, 128)).containsOnly(0);

        assertThat(u16(d, 128)).isEqualTo(0xffff);
        assertThat(d[130]).as("RCSTS: registrant, not holder").isZero();
        assertThat(u64(d, 136)).isEqualTo(0x8000_0000_0000_0001L);
        assertThat(Arrays.copyOfRange(d, 144, 160)).isEqualTo(B.toBytes());
    }

    @Test
    void allRegistrantsHoldInTheReport() {
        NamespaceReservation ns = twoRegistrantsAHolds(ReservationType.WRITE_EXCLUSIVE_ALL_REGISTRANTS);
        byte[] d = ns.report(4096, true).data();
        assertThat(d[4]).isEqualTo((byte) 5);
        assertThat(d[66]).isEqualTo((byte) 1);
        assertThat(d[130]).isEqualTo((byte) 1);
        assertThat(u16(d, 64)).as("dynamic").isEqualTo(0xffff);
    }

    @Test
    void noReservationNoRegistrants() {
        byte[] d = new NamespaceReservation().report(4096, true).data();
        assertThat(d).hasSize(64).containsOnly(0);
    }

    @Test
    void shortBufferIsCutButCountsEveryRegistrant() {
        NamespaceReservation ns = twoRegistrantsAHolds(ReservationType.WRITE_EXCLUSIVE);
        byte[] d = ns.report(ReservationFields.reportLengthBytes(23), true).data();
        assertThat(d).hasSize(96);
        assertThat(u16(d, 5)).as("REGCTL counts both").isEqualTo(2);
        assertThat(ns.report(4, true).data()).hasSize(4);
        assertThat(ns.report(ReservationFields.reportLengthBytes(-1), true).data()).as("NUMD FFFFFFFFh")
                .hasSize(192);
        assertThat(ns.report(0, true).status()).isEqualTo(ReservationStatus.INVALID_FIELD);
    }

    @Test
    void edsClearedIsHostIdentifierInconsistentFormat() {
        ReservationReport r = new NamespaceReservation().report(4096, false);
        assertThat(r.status()).isEqualTo(ReservationStatus.HOST_ID_INCONSISTENT_FORMAT);
        assertThat(r.data()).isEmpty();
        assertThat(r.status() & 0x7ffe).isEqualTo(0x18 << 1);
    }

    @Test
    void ptplStateShowsInTheHeader(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        ReservationStore store = new ReservationStore(dir.resolve("ptpl.json"), "b2a7ac8e-0000-4000-8000-000000000001");
        NamespaceReservation ns = NamespaceReservation.load(store);
        assertThat(ns.register(A.hi(), A.lo(), 0, false, 0, 5, PtplChange.SET.code()).status())
                .isEqualTo(ReservationStatus.SUCCESS);
        assertThat(ns.report(64, true).data()[9]).isEqualTo((byte) 1);
    }
}
