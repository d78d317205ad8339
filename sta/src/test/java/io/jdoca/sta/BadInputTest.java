package io.jdoca.sta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.nvmf.tcp.DataPdu;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import io.jdoca.sta.nvmf.tcp.TermReqPdu;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * One test per bad input: the engine answers with the NVMe status or C2HTermReq the spec
 * prescribes, closes the connection when it must, and keeps serving other connections.
 */
class BadInputTest {
    static final int BS = 4096;

    private static TestClient fresh(TestBed bed) {
        PipeChannel[] p = PipeChannel.pair(1 << 21);
        bed.io.qpConnect(p[0]);
        return new TestClient(bed, p[1]);
    }

    /** Expects a C2HTermReq with {@code fes} (and {@code fei} when >= 0), then the connection closed. */
    private static void expectTermReq(TestBed bed, TestClient c, int fes, int fei) {
        c.expect(NvmeTcpPdu.TYPE_C2H_TERM_REQ);
        assertEquals(fes, TermReqPdu.fes(c.rx, 0));
        if (fei >= 0) {
            assertEquals(fei, TermReqPdu.fei(c.rx, 0));
        }
        assertTrue(NvmeTcpPdu.plen(c.rx, 0) <= 24 + 128);
        bed.pump();
        assertTrue(((PipeChannel) c.ch).peerClosed(), "connection closed after the C2HTermReq");
        assertTrue(c.next() < 0);
    }

    /** After the bad connection, a healthy one still does I/O. */
    private static void stillServes(TestBed bed) {
        TestClient ok = IoPathTest.connected(bed, false, false);
        IoPathTest.writeThenRead(bed, ok, 1, 1, BS, 77);
    }

    @Test
    void firstPduNotIcReq() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = fresh(bed);
            c.read(1, 0, 1, BS);
            expectTermReq(bed, c, TermReqPdu.FES_PDU_SEQUENCE_ERROR, 0);
            stillServes(bed);
        }
    }

    @Test
    void icReqWithWrongLengthOrVersion() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = fresh(bed);
            byte[] b = new byte[128];
            b[2] = (byte) 100; // hlen 100
            b[4] = (byte) 128;
            c.raw(b);
            expectTermReq(bed, c, TermReqPdu.FES_INVALID_HEADER_FIELD, NvmeTcpPdu.OFF_HLEN);
            TestClient d = fresh(bed);
            byte[] v = new byte[128];
            v[2] = (byte) 128;
            v[4] = (byte) 128;
            v[8] = 1; // PFV 1
            d.raw(v);
            expectTermReq(bed, d, TermReqPdu.FES_UNSUPPORTED_PARAMETER, 8);
            stillServes(bed);
        }
    }

    @Test
    void secondIcReqIsASequenceError() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = fresh(bed);
            c.icReq(false, false);
            c.expect(NvmeTcpPdu.TYPE_IC_RESP);
            c.icReq(false, false);
            expectTermReq(bed, c, TermReqPdu.FES_PDU_SEQUENCE_ERROR, -1);
        }
    }

    @Test
    void unknownPduType() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = IoPathTest.connected(bed, false, false);
            byte[] b = new byte[24];
            b[0] = 0x0a;
            b[2] = 24;
            b[4] = 24;
            c.raw(b);
            expectTermReq(bed, c, TermReqPdu.FES_INVALID_HEADER_FIELD, 0);
            stillServes(bed);
        }
    }

    @Test
    void oversizedAndUndersizedPdus() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = IoPathTest.connected(bed, false, false);
            byte[] b = new byte[72];
            b[0] = NvmeTcpPdu.TYPE_CAPSULE_CMD;
            b[2] = 72;
            b[4] = (byte) 0xff;
            b[5] = (byte) 0xff;
            b[6] = (byte) 0xff;
            b[7] = (byte) 0x7f; // PLEN 2 GiB
            c.raw(b);
            expectTermReq(bed, c, TermReqPdu.FES_INVALID_HEADER_FIELD, NvmeTcpPdu.OFF_PLEN);
            TestClient d = IoPathTest.connected(bed, false, false);
            byte[] u = new byte[8];
            u[0] = NvmeTcpPdu.TYPE_CAPSULE_CMD;
            u[2] = 72;
            u[4] = 8; // PLEN < HLEN
            d.raw(u);
            expectTermReq(bed, d, TermReqPdu.FES_INVALID_HEADER_FIELD, NvmeTcpPdu.OFF_PLEN);
            stillServes(bed);
        }
    }

    @Test
    void badHeaderDigest() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = IoPathTest.connected(bed, true, true);
            long sqe = c.beginCapsule();
            io.jdoca.sta.nvme.NvmeCommand.encode(c.tx, sqe, NvmeOpcode.IO_READ, 3, 1);
            io.jdoca.sta.nvme.NvmeCommand.putSgl(c.tx, sqe, 0x5a, 0, BS);
            int base = c.txLen;
            NvmeTcpPdu.putHeader(c.tx, base, NvmeTcpPdu.TYPE_CAPSULE_CMD, NvmeTcpPdu.FLAG_HDGSTF, 72, 0, 76);
            c.tx.set(NvmeTcpPdu.LE32, base + 72, 0xdeadbeef);
            c.txLen = base + 76;
            c.send();
            expectTermReq(bed, c, TermReqPdu.FES_HEADER_DIGEST_ERROR, -1);
            assertEquals(1, bed.digestErrors());
            stillServes(bed);
        }
    }

    @Test
    void badDataDigestFailsTheCommandButKeepsTheConnection() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = IoPathTest.connected(bed, true, true);
            MemorySegment data = IoPathTest.pattern(BS, 5);
            c.io(NvmeOpcode.IO_WRITE, 4, 1, 0, 1, BS, data, BS);
            // corrupt the data digest already sent? Re-send with a broken digest instead:
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            long sqe = c.beginCapsule();
            io.jdoca.sta.nvme.NvmeCommand.encode(c.tx, sqe, NvmeOpcode.IO_WRITE, 5, 1);
            io.jdoca.sta.nvme.NvmeCommand.putRange(c.tx, sqe, 1, 1);
            io.jdoca.sta.nvme.NvmeCommand.putSgl(c.tx, sqe, 0x01, 0, BS);
            int base = c.txLen;
            int plen = 72 + 4 + BS + 4;
            NvmeTcpPdu.putHeader(c.tx, base, NvmeTcpPdu.TYPE_CAPSULE_CMD, 3, 72, 76, plen);
            c.txDigest.put(base, 72);
            MemorySegment.copy(data, 0, c.tx, base + 76, BS);
            c.tx.set(NvmeTcpPdu.LE32, base + 76 + BS, 0x12345678);
            c.txLen = base + plen;
            c.send();
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(5, c.cqeCid());
            assertEquals(NvmeStatus.TRANSIENT_TRANSPORT_ERROR, c.cqeStatus());
            assertEquals(0, bed.backend.segment().get(ValueLayout.JAVA_BYTE, BS), "no data written");
            IoPathTest.writeThenRead(bed, c, 2, 1, BS, 6); // same connection still works
        }
    }

    @Test
    void h2cDataWithUnknownTagOrOutOfRange() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = IoPathTest.connected(bed, false, false);
            MemorySegment data = IoPathTest.pattern(2 * BS, 5);
            c.h2cData(1, 77, 0, data, 0, BS, true);
            expectTermReq(bed, c, TermReqPdu.FES_INVALID_HEADER_FIELD, DataPdu.OFF_TTAG);
            TestClient d = IoPathTest.connected(bed, false, false);
            d.io(NvmeOpcode.IO_WRITE, 10, 1, 0, 1, BS, null, 0);
            d.expect(NvmeTcpPdu.TYPE_R2T);
            int ttag = DataPdu.ttag(d.rx, 0);
            d.h2cData(10, ttag, 0, data, 0, 2 * BS, true); // more than the R2T asked for
            expectTermReq(bed, d, TermReqPdu.FES_DATA_OUT_OF_RANGE, DataPdu.OFF_DATAO);
            stillServes(bed);
        }
    }

    @Test
    void hostTermReqClosesTheConnection() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = IoPathTest.connected(bed, false, false);
            byte[] b = new byte[24];
            b[0] = NvmeTcpPdu.TYPE_H2C_TERM_REQ;
            b[2] = 24;
            b[4] = 24;
            b[8] = 1;
            c.raw(b);
            bed.pump();
            assertTrue(((PipeChannel) c.ch).peerClosed());
            assertTrue(bed.transportErrors.get(0).startsWith("protocol:CONNECTION_ABORTED"),
                    bed.transportErrors.toString());
            stillServes(bed);
        }
    }

    @Test
    void hostVanishingWithResponsesPendingIsASendError() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = IoPathTest.connected(bed, false, false);
            for (int i = 0; i < 40; i++) {
                c.io(NvmeOpcode.IO_READ, 20 + i, 1, i, 32, 32 * BS, null, 0); // 40 × 128 KiB: more than the send buffer
            }
            c.close();
            bed.pump();
            assertEquals(1, bed.transportErrors.size(), bed.transportErrors.toString());
            assertTrue(bed.transportErrors.get(0).startsWith("send:CONNECTION_RESET"), bed.transportErrors.toString());
            assertEquals(0, bed.io.qps().size());
            stillServes(bed);
        }
    }

    @Test
    void peerCloseRaisesTheTransportErrorEvent() throws java.io.IOException {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = IoPathTest.connected(bed, false, false);
            c.close();
            bed.pump();
            assertEquals("recv:CONNECTION_RESET:0", bed.transportErrors.get(0));
            assertEquals(0, bed.io.qps().size());
        }
    }
}
