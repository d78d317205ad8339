package io.jdoca.sta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.core.DocaError;
import io.jdoca.sta.backend.StaStats;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.nvmf.NvmfQpairState;
import io.jdoca.sta.nvmf.tcp.DataPdu;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Offloaded I/O through the engine, socket-free (in-memory pipes). */
class IoPathTest {
    static final int BS = 4096;

    static MemorySegment pattern(int len, long seed) {
        MemorySegment m = Arena.ofAuto().allocate(len);
        Random r = new Random(seed);
        for (int i = 0; i < len; i++) {
            m.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        }
        return m;
    }

    static TestClient connected(TestBed bed, boolean hd, boolean dd) {
        PipeChannel[] p = PipeChannel.pair(1 << 21);
        bed.io.qpConnect(p[0]);
        TestClient c = new TestClient(bed, p[1]);
        c.connectIoQueue(hd, dd);
        return c;
    }

    /** Writes with R2T/H2CData (in chunks of {@code chunk}) then reads back and compares. */
    static void writeThenRead(TestBed bed, TestClient c, long slba, int nlb, int chunk, long seed) {
        int len = nlb * BS;
        MemorySegment data = pattern(len, seed);
        c.io(NvmeOpcode.IO_WRITE, 10, 1, slba, nlb, len, null, 0);
        c.expect(NvmeTcpPdu.TYPE_R2T);
        int ttag = DataPdu.ttag(c.rx, 0);
        assertEquals(10, DataPdu.cccid(c.rx, 0));
        assertEquals(0, DataPdu.datao(c.rx, 0));
        assertEquals(len, DataPdu.datal(c.rx, 0));
        for (int off = 0; off < len; off += chunk) {
            int n = Math.min(chunk, len - off);
            c.h2cData(10, ttag, off, data, off, n, off + n == len);
        }
        c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
        assertEquals(10, c.cqeCid());
        assertEquals(0, c.cqeStatus());
        assertEquals(0, MemorySegment.mismatch(data, 0, len, bed.backend.segment(), slba * BS, slba * BS + len) == -1
                ? 0 : 1);
        c.read(11, slba, nlb, BS);
        c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
        assertEquals(11, DataPdu.cccid(c.rx, 0));
        assertEquals(len, c.dataLength());
        assertTrue((NvmeTcpPdu.flags(c.rx, 0) & NvmeTcpPdu.FLAG_DATA_LAST) != 0);
        if (c.dd) {
            assertTrue(c.rxDigest.check(c.dataOffset(), len), "data digest of C2HData");
        }
        assertEquals(-1, MemorySegment.mismatch(data, 0, len, c.rx, c.dataOffset(), c.dataOffset() + len));
        c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
        assertEquals(11, c.cqeCid());
        assertEquals(0, c.cqeStatus());
    }

    @ParameterizedTest
    @CsvSource({"false,false", "true,false", "false,true", "true,true"})
    void r2tWriteAndC2hReadRoundTrip(boolean hd, boolean dd) {
        try (TestBed bed = new TestBed(8 << 20, BS)) {
            TestClient c = connected(bed, hd, dd);
            writeThenRead(bed, c, 3, 1, 4096, 1);
            writeThenRead(bed, c, 100, 32, 32768, 2);  // 128 KiB = MDTS, in 4 H2CData PDUs
            assertEquals(0, bed.digestErrors());
            StaStats s = bed.ns.stats();
            assertEquals(2, s.get("writes"));
            assertEquals(2, s.get("reads"));
            assertEquals(33L * BS, s.get("read_bytes"));
        }
    }

    @Test
    void c2hDataHonoursTheHostPduDataAlignment() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            PipeChannel[] p = PipeChannel.pair(1 << 21);
            bed.io.qpConnect(p[0]);
            TestClient c = new TestClient(bed, p[1]);
            c.icReq(true, true, 3); // HPDA 3: 16-byte alignment
            c.expect(NvmeTcpPdu.TYPE_IC_RESP);
            c.connect(1, 1, 31, TestClient.HOST, TestBed.NQN);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            MemorySegment.copy(pattern(BS, 8), 0, bed.backend.segment(), 0, BS);
            c.read(2, 0, 1, BS);
            c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
            assertEquals(32, c.dataOffset(), "24-byte header + 4-byte digest padded to 16");
            assertEquals(32 + BS + 4, NvmeTcpPdu.plen(c.rx, 0));
            assertTrue(c.rxDigest.check(32, BS));
            assertEquals(-1, MemorySegment.mismatch(bed.backend.segment(), 0, BS, c.rx, 32, 32 + BS));
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
        }
    }

    @Test
    void readsEndWithC2hSuccessWhenTheHostDisabledSqFlowControl() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            PipeChannel[] p = PipeChannel.pair(1 << 21);
            StaQp qp = bed.io.qpConnect(p[0]);
            TestClient c = new TestClient(bed, p[1]);
            c.icReq(false, false);
            c.expect(NvmeTcpPdu.TYPE_IC_RESP);
            c.connect(1, 1, 31, TestClient.HOST, TestBed.NQN,
                    io.jdoca.sta.nvme.FabricsConnectCommand.CATTR_DISABLE_SQ_FLOW);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertTrue(qp.sqFlowControlDisabled());
            c.read(2, 0, 1, BS);
            c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
            assertEquals(NvmeTcpPdu.FLAG_DATA_LAST | NvmeTcpPdu.FLAG_DATA_SUCCESS, NvmeTcpPdu.flags(c.rx, 0));
            c.read(3, 300, 1, BS); // out of range: an error still gets a CapsuleResp
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(3, c.cqeCid());
            assertEquals(NvmeStatus.LBA_OUT_OF_RANGE, c.cqeStatus());
        }
    }

    @Test
    void slowBackendRaisesTheTimeoutEventOnTheMainContext() {
        try (TestBed bed = new TestBed(1 << 20, BS, true)) {
            TestClient c = connected(bed, false, false);
            c.read(1, 0, 1, BS);
            c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus(), "the command still completes");
            bed.pump();
            assertEquals("mem0/1/2", bed.timeouts.get(0));
            assertEquals(1, bed.backend.queues().get(0).stats().get("timeouts"));
        }
    }

    @Test
    void inCapsuleWriteNeedsNoR2T() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = connected(bed, true, true);
            MemorySegment data = pattern(2 * BS, 3);
            c.io(NvmeOpcode.IO_WRITE, 5, 1, 7, 2, 2 * BS, data, 2 * BS);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            assertEquals(-1, MemorySegment.mismatch(data, 0, 2 * BS, bed.backend.segment(), 7 * BS, 9 * BS));
        }
    }

    @Test
    void flushWriteZeroesAndDeallocate() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = connected(bed, false, false);
            bed.backend.segment().fill((byte) 0x5a);
            c.io(NvmeOpcode.IO_FLUSH, 1, 1, 0, 1, 0, null, 0);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            c.io(NvmeOpcode.IO_WRITE_ZEROES, 2, 1, 4, 3, 0, null, 0);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            assertEquals(0, bed.backend.segment().get(ValueLayout.JAVA_BYTE, 4 * BS));
            assertEquals(0, bed.backend.segment().get(ValueLayout.JAVA_BYTE, 7 * BS - 1));
            assertEquals(0x5a, bed.backend.segment().get(ValueLayout.JAVA_BYTE, 7 * BS));
            // DSM deallocate of two ranges: {attrs, NLB, SLBA}
            MemorySegment ranges = Arena.ofAuto().allocate(32);
            ranges.set(NvmeTcpPdu.LE32, 4, 1);
            ranges.set(NvmeTcpPdu.LE64, 8, 10L);
            ranges.set(NvmeTcpPdu.LE32, 20, 2);
            ranges.set(NvmeTcpPdu.LE64, 24, 20L);
            long sqe = c.beginCapsule();
            io.jdoca.sta.nvme.NvmeCommand.encode(c.tx, sqe, NvmeOpcode.IO_DATASET_MANAGEMENT, 3, 1);
            io.jdoca.sta.nvme.NvmeCommand.putCdw(c.tx, sqe, 40, 1);     // NR = 2 ranges (0's based)
            io.jdoca.sta.nvme.NvmeCommand.putCdw(c.tx, sqe, 44, 0x4);   // AD
            io.jdoca.sta.nvme.NvmeCommand.putSgl(c.tx, sqe, 0x01, 0, 32);
            c.endCapsule(ranges, 0, 32);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            assertEquals(0, bed.backend.segment().get(ValueLayout.JAVA_BYTE, 10 * BS));
            assertEquals(0x5a, bed.backend.segment().get(ValueLayout.JAVA_BYTE, 11 * BS));
            assertEquals(0, bed.backend.segment().get(ValueLayout.JAVA_BYTE, 21 * BS + 5));
        }
    }

    /**
     * What Linux's nvme host sends for blkdiscard: NR ranges in a 4096-byte buffer (room for 256),
     * SGL length 4096, in the capsule or fetched by R2T. Fails on the old code, which demanded
     * exactly 16 x NR bytes (Data SGL Length Invalid).
     */
    @Test
    void dsmWithALinuxSizedRangeBuffer() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = connected(bed, false, false);
            bed.backend.segment().fill((byte) 0x5a);
            MemorySegment ranges = Arena.ofAuto().allocate(4096);
            ranges.set(NvmeTcpPdu.LE32, 4, 3);
            ranges.set(NvmeTcpPdu.LE64, 8, 12L);
            ranges.set(NvmeTcpPdu.LE64, 24, 0x7fff_ffffL); // garbage past NR: ignored
            long sqe = c.beginCapsule();
            io.jdoca.sta.nvme.NvmeCommand.encode(c.tx, sqe, NvmeOpcode.IO_DATASET_MANAGEMENT, 7, 1);
            io.jdoca.sta.nvme.NvmeCommand.putCdw(c.tx, sqe, 40, 0);     // NR = 1 range
            io.jdoca.sta.nvme.NvmeCommand.putCdw(c.tx, sqe, 44, 0x4);   // AD
            io.jdoca.sta.nvme.NvmeCommand.putSgl(c.tx, sqe, 0x01, 0, 4096);
            c.endCapsule(ranges, 0, 4096);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(7, c.cqeCid());
            assertEquals(0, c.cqeStatus());
            assertEquals(0, bed.backend.segment().get(ValueLayout.JAVA_BYTE, 12 * BS));
            assertEquals(0, bed.backend.segment().get(ValueLayout.JAVA_BYTE, 15 * BS - 1));
            assertEquals(0x5a, bed.backend.segment().get(ValueLayout.JAVA_BYTE, 15 * BS));
            assertEquals(0x5a, bed.backend.segment().get(ValueLayout.JAVA_BYTE, 12 * BS - 1));
            // The same with the buffer fetched by R2T: the target asks only for the ranges it needs.
            ranges.set(NvmeTcpPdu.LE64, 8, 30L);
            sqe = c.beginCapsule();
            io.jdoca.sta.nvme.NvmeCommand.encode(c.tx, sqe, NvmeOpcode.IO_DATASET_MANAGEMENT, 8, 1);
            io.jdoca.sta.nvme.NvmeCommand.putCdw(c.tx, sqe, 44, 0x4);
            io.jdoca.sta.nvme.NvmeCommand.putSgl(c.tx, sqe, 0x5a, 0, 4096);
            c.endCapsule(null, 0, 0);
            c.expect(NvmeTcpPdu.TYPE_R2T);
            assertEquals(16, DataPdu.datal(c.rx, 0));
            c.h2cData(8, DataPdu.ttag(c.rx, 0), 0, ranges, 0, 16, true);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            assertEquals(0, bed.backend.segment().get(ValueLayout.JAVA_BYTE, 32 * BS));
            // Shorter than NR ranges is still an error.
            sqe = c.beginCapsule();
            io.jdoca.sta.nvme.NvmeCommand.encode(c.tx, sqe, NvmeOpcode.IO_DATASET_MANAGEMENT, 9, 1);
            io.jdoca.sta.nvme.NvmeCommand.putCdw(c.tx, sqe, 40, 1);     // NR = 2 ranges, 16 bytes given
            io.jdoca.sta.nvme.NvmeCommand.putCdw(c.tx, sqe, 44, 0x4);
            io.jdoca.sta.nvme.NvmeCommand.putSgl(c.tx, sqe, 0x01, 0, 16);
            c.endCapsule(ranges, 0, 16);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(NvmeStatus.DATA_SGL_LENGTH_INVALID, c.cqeStatus());
        }
    }

    @Test
    void compareWithInCapsuleData() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = connected(bed, false, false);
            MemorySegment data = pattern(BS, 9);
            MemorySegment.copy(data, 0, bed.backend.segment(), 2L * BS, BS);
            c.io(NvmeOpcode.IO_COMPARE, 1, 1, 2, 1, BS, data, BS);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            c.io(NvmeOpcode.IO_COMPARE, 2, 1, 3, 1, BS, data, BS);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(NvmeStatus.COMPARE_FAILURE, c.cqeStatus());
        }
    }

    @Test
    void compareAndDeallocateWithDataFetchedByR2T() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = connected(bed, true, true);
            MemorySegment data = pattern(2 * BS, 11);
            MemorySegment.copy(data, 0, bed.backend.segment(), 4L * BS, 2 * BS);
            // Compare, data not in the capsule: R2T, H2CData into the staging buffer, then the compare.
            c.io(NvmeOpcode.IO_COMPARE, 1, 1, 4, 2, 2 * BS, null, 0);
            c.expect(NvmeTcpPdu.TYPE_R2T);
            int ttag = DataPdu.ttag(c.rx, 0);
            assertEquals(2 * BS, DataPdu.datal(c.rx, 0));
            // a second staged command while the buffer is busy: Command Interrupted (retryable)
            c.io(NvmeOpcode.IO_COMPARE, 2, 1, 4, 2, 2 * BS, null, 0);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(2, c.cqeCid());
            assertEquals(NvmeStatus.COMMAND_INTERRUPTED, c.cqeStatus());
            c.h2cData(1, ttag, 0, data, 0, BS, false);
            c.h2cData(1, ttag, BS, data, BS, BS, true);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(1, c.cqeCid());
            assertEquals(0, c.cqeStatus());
            // mismatch
            c.io(NvmeOpcode.IO_COMPARE, 3, 1, 5, 1, BS, null, 0);
            c.expect(NvmeTcpPdu.TYPE_R2T);
            c.h2cData(3, DataPdu.ttag(c.rx, 0), 0, data, 0, BS, true);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(NvmeStatus.COMPARE_FAILURE, c.cqeStatus());
            // DSM deallocate with its range list fetched by R2T
            MemorySegment ranges = Arena.ofAuto().allocate(16);
            ranges.set(NvmeTcpPdu.LE32, 4, 2);
            ranges.set(NvmeTcpPdu.LE64, 8, 4L);
            long sqe = c.beginCapsule();
            io.jdoca.sta.nvme.NvmeCommand.encode(c.tx, sqe, NvmeOpcode.IO_DATASET_MANAGEMENT, 4, 1);
            io.jdoca.sta.nvme.NvmeCommand.putCdw(c.tx, sqe, 44, 0x4);
            io.jdoca.sta.nvme.NvmeCommand.putSgl(c.tx, sqe, 0x5a, 0, 16);
            c.endCapsule(null, 0, 0);
            c.expect(NvmeTcpPdu.TYPE_R2T);
            assertEquals(16, DataPdu.datal(c.rx, 0));
            c.h2cData(4, DataPdu.ttag(c.rx, 0), 0, ranges, 0, 16, true);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            assertEquals(0, bed.backend.segment().get(ValueLayout.JAVA_BYTE, 4L * BS + 7));
            assertEquals(0, bed.backend.segment().get(ValueLayout.JAVA_BYTE, 6L * BS - 1));
            assertEquals(0, bed.ns.inflight());
        }
    }

    @Test
    void lbaRangePastTheNamespaceAndTooLargeTransfers() {
        try (TestBed bed = new TestBed(1 << 20, BS)) { // 256 blocks
            TestClient c = connected(bed, false, false);
            c.read(1, 255, 2, BS);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(NvmeStatus.LBA_OUT_OF_RANGE, c.cqeStatus());
            c.read(2, -1L, 1, BS);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(NvmeStatus.LBA_OUT_OF_RANGE, c.cqeStatus());
            c.read(3, 0, 64, BS); // 256 KiB > MDTS
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(NvmeStatus.INVALID_FIELD, c.cqeStatus());
            c.io(NvmeOpcode.IO_READ, 4, 1, 0, 2, BS, null, 0); // SGL shorter than the transfer
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(NvmeStatus.DATA_SGL_LENGTH_INVALID, c.cqeStatus());
            c.io(NvmeOpcode.IO_READ, 5, 9, 0, 1, BS, null, 0);  // unknown namespace
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(NvmeStatus.INVALID_NAMESPACE, c.cqeStatus());
            c.io(0x99, 6, 1, 0, 1, 0, null, 0);                  // unknown opcode → application
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(NvmeStatus.INVALID_OPCODE, c.cqeStatus());
            assertTrue(bed.nonOffloaded.contains("153/1/0/true"), bed.nonOffloaded.toString());
            assertEquals(5, bed.io.stats().get("io_errors"));
        }
    }

    @Test
    void ioBeforeConnectGoesToTheApplication() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            PipeChannel[] p = PipeChannel.pair(1 << 20);
            bed.io.qpConnect(p[0]);
            TestClient c = new TestClient(bed, p[1]);
            c.icReq(false, false);
            c.expect(NvmeTcpPdu.TYPE_IC_RESP);
            c.read(1, 0, 1, BS);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(NvmeStatus.INVALID_OPCODE, c.cqeStatus()); // the test bed's answer
            assertEquals("2/1/0/true", bed.nonOffloaded.get(0));
            assertEquals(0, bed.ns.stats().get("reads"));
        }
    }

    @Test
    void removeNamespaceTaskFailsLaterIo() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = connected(bed, false, false);
            c.read(1, 0, 1, BS);
            c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            StaTaskRmNs t = bed.sta.taskRmNsAllocInit(bed.ns, 1);
            assertNotNull(t);
            assertEquals(DocaError.SUCCESS, t.submit());
            bed.pump();
            assertEquals(DocaError.SUCCESS, bed.completed.get(0));
            assertTrue(bed.ns.isRemoved());
            assertEquals(null, bed.subsys.ns(1));
            c.read(2, 0, 1, BS);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(NvmeStatus.INVALID_NAMESPACE, c.cqeStatus());
        }
    }

    @Test
    void removeNamespaceWaitsForAPendingR2TWrite() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = connected(bed, false, false);
            c.io(NvmeOpcode.IO_WRITE, 1, 1, 0, 1, BS, null, 0);
            c.expect(NvmeTcpPdu.TYPE_R2T);
            int ttag = DataPdu.ttag(c.rx, 0);
            StaTaskRmNs t = bed.sta.taskRmNsAllocInit(bed.ns, 1);
            assertEquals(DocaError.SUCCESS, t.submit());
            bed.pump();
            assertTrue(bed.completed.isEmpty(), "rm_ns waits while the write is in flight");
            c.h2cData(1, ttag, 0, pattern(BS, 1), 0, BS, true);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(NvmeStatus.INVALID_NAMESPACE, c.cqeStatus());
            bed.pump();
            assertEquals(DocaError.SUCCESS, bed.completed.get(0));
        }
    }

    @Test
    void destroyBackendQueueTaskFailsLaterIo() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = connected(bed, false, false);
            StaTaskDestroyBeQueue t = bed.sta.taskDestroyBeQueueAllocInit(bed.backend.queues().get(0), 2);
            assertEquals(DocaError.SUCCESS, t.submit());
            bed.pump();
            assertEquals(DocaError.SUCCESS, bed.completed.get(0));
            c.read(2, 0, 1, BS);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(NvmeStatus.NAMESPACE_NOT_READY, c.cqeStatus());
        }
    }

    @Test
    void disconnectTaskClosesTheQpAfterDraining() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = connected(bed, false, false);
            StaQp qp = bed.lastQp;
            StaIoTaskDisconnect t = bed.io.taskDisconnectAllocInit(qp, 0);
            assertEquals(DocaError.SUCCESS, t.submit());
            bed.pump();
            assertEquals("disconnected", bed.completed.get(0));
            assertEquals(NvmfQpairState.CLOSED, qp.state());
            assertTrue(bed.transportErrors.isEmpty(), "an application disconnect is not a transport error");
            assertEquals(0, bed.io.qps().size());
        }
    }

    @Test
    void nonOffloadReadTaskFetchesHostData() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = connected(bed, false, false);
            bed.autoAnswer = false;
            c.io(0x81, 9, 1, 0, 1, 512, null, 0); // vendor-specific host-to-controller command, data not in capsule
            bed.pump();
            assertEquals("129/1/0/false", bed.nonOffloaded.get(bed.nonOffloaded.size() - 1));
            MemorySegment dst = Arena.ofAuto().allocate(512);
            StaIoTaskNonOffloadRead r = bed.io.taskNonOffloadReadAllocInit(bed.lastQp, 9, dst, 0, 512, 0);
            assertEquals(DocaError.SUCCESS, r.submit());
            c.expect(NvmeTcpPdu.TYPE_R2T);
            assertEquals(512, DataPdu.datal(c.rx, 0));
            MemorySegment data = pattern(512, 4);
            c.h2cData(9, DataPdu.ttag(c.rx, 0), 0, data, 0, 512, true);
            bed.pump();
            assertEquals(r, bed.completed.get(0));
            assertEquals(-1, MemorySegment.mismatch(data, 0, 512, dst, 0, 512));
            r.free();
            StaIoTaskNonOffloadWriteSend w = bed.io.taskNonOffloadWriteSendAllocInit(bed.lastQp, 9, data, 0, 100, 0,
                    42, 0, 0);
            assertEquals(DocaError.SUCCESS, w.submit());
            c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
            assertEquals(100, c.dataLength());
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(42, c.cqeDw0());
        }
    }
}
