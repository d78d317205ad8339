package io.jdoca.sta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.sta.backend.FileBackend;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvmf.NvmfBackendChannels;
import io.jdoca.sta.nvmf.tcp.DataPdu;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Asynchronous back-ends: a back-end that stalls for a second holds up only its own command.
 * Fails on main, where the engine called the back-end synchronously: the stalled call blocked the
 * engine, nothing else completed meanwhile, and the timeout event came after the call returned.
 */
class AsyncBackendTest {
    static final int BS = 4096;
    static final long STALL = 1_000_000_000L;

    @Test
    void aStalledBackendHoldsUpOnlyItsOwnCommandsAndTimesOutWhileOutstanding() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            bed.sta.setBackendTimeoutNanos(200_000_000L);
            StallingBackend slow = bed.sta.backendCreate(new StallingBackend("slow0", 1 << 20, STALL));
            slow.addQueue();
            StaNamespace slowNs = bed.subsys.addNs(2, BS, 1, slow);
            MemorySegment pattern = IoPathTest.pattern(BS, 5);
            MemorySegment.copy(pattern, 0, slow.mem, 3L * BS, BS);
            TestClient c = IoPathTest.connected(bed, true, true);

            long t0 = System.nanoTime();
            c.io(NvmeOpcode.IO_READ, 100, 2, 3, 1, BS, null, 0);
            bed.pump();
            assertEquals(1, slow.channel.outstanding(), "the read went to the back-end's channel");

            // Namespace 1 (memory, inline) keeps completing while the stalled read is outstanding,
            // until the timeout event for the stalled one has arrived.
            int done = 0;
            MemorySegment data = IoPathTest.pattern(BS, 6);
            while (bed.timeouts.isEmpty() && System.nanoTime() - t0 < STALL) {
                c.io(NvmeOpcode.IO_WRITE, 1, 1, done & 63, 1, BS, data, BS);
                c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
                assertEquals(1, c.cqeCid());
                assertEquals(0, c.cqeStatus());
                c.read(2, done & 63, 1, BS);
                c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
                assertEquals(2, DataPdu.cccid(c.rx, 0));
                c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
                done++;
            }
            long atTimeout = System.nanoTime() - t0;
            assertEquals(1, bed.timeouts.size(), "the timeout event arrived");
            assertEquals("slow0/2/" + NvmeOpcode.IO_READ, bed.timeouts.get(0));
            assertEquals(1, slow.channel.outstanding(), "...while the stalled read was still outstanding");
            assertTrue(atTimeout < STALL, "timeout after " + atTimeout / 1_000_000 + " ms");
            assertTrue(done >= 10, "only " + done + " I/Os to the other namespace completed during the stall");
            assertEquals(1, slowNs.inflight());
            assertEquals(1, slow.queues().get(0).stats().get("timeouts"));

            // The stalled read completes in the end, with its data.
            long deadline = System.nanoTime() + 10 * STALL;
            while (slow.channel.outstanding() > 0 && System.nanoTime() - deadline < 0) {
                bed.pump();
            }
            c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
            assertEquals(100, DataPdu.cccid(c.rx, 0));
            assertEquals(-1, MemorySegment.mismatch(pattern, 0, BS, c.rx, c.dataOffset(), c.dataOffset() + BS));
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(100, c.cqeCid());
            assertEquals(0, c.cqeStatus());
            assertTrue(System.nanoTime() - t0 >= STALL);
            assertEquals(0, slowNs.inflight());
            assertEquals(1, bed.timeouts.size(), "one event per operation");
            assertEquals(0, bed.io.qps().get(0).transport().requests().badTransitions());
            bed.subsys.rmNs(slowNs);
            bed.sta.backendDestroy(slow);
        }
    }

    /**
     * More reads than the engine has operation slots: the surplus waits in NEED_BUFFER and is
     * submitted as slots free up; every read returns its own block.
     */
    @Test
    void readsBeyondTheEnginesSlotsWaitForABufferAndAllComplete() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            // Each read takes 1 s: long enough that none finishes while the test fills every slot, even on a
            // loaded machine (at 20 ms some did, and fewer than all slots were busy when counted).
            StallingBackend slow = bed.sta.backendCreate(new StallingBackend("slow2", 1 << 20, 1_000_000_000L));
            slow.addQueue();
            StaNamespace ns = bed.subsys.addNs(2, BS, 1, slow);
            int n = NvmfBackendChannels.SLOTS + 6;
            for (int i = 0; i < n; i++) {
                slow.mem.set(java.lang.foreign.ValueLayout.JAVA_INT, (long) i * BS, 1000 + i);
            }
            TestClient c = IoPathTest.connected(bed, false, false);
            for (int i = 0; i < n; i++) {
                c.io(NvmeOpcode.IO_READ, i, 2, i, 1, BS, null, 0);
            }
            bed.pump();
            assertEquals(NvmfBackendChannels.SLOTS, slow.channel.outstanding(), "every slot busy, the rest waiting");
            assertEquals(n, ns.inflight());
            boolean[] seen = new boolean[n];
            for (int i = 0; i < n; i++) {
                c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
                int cid = DataPdu.cccid(c.rx, 0);
                assertEquals(1000 + cid, c.rx.get(java.lang.foreign.ValueLayout.JAVA_INT, c.dataOffset()));
                seen[cid] = true;
                c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
                assertEquals(0, c.cqeStatus());
            }
            for (int i = 0; i < n; i++) {
                assertTrue(seen[i], "read " + i);
            }
            assertEquals(n, slow.channel.submitted);
            assertEquals(0, ns.inflight());
            assertEquals(0, bed.io.qps().get(0).transport().requests().badTransitions());
        }
    }

    /** Stopping the engine lets an outstanding operation finish and ends its request: the namespace drains. */
    @Test
    void stoppingTheEngineEndsItsOutstandingOperations() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            StallingBackend slow = bed.sta.backendCreate(new StallingBackend("slow1", 1 << 20, 300_000_000L));
            slow.addQueue();
            StaNamespace slowNs = bed.subsys.addNs(2, BS, 1, slow);
            TestClient c = IoPathTest.connected(bed, false, false);
            c.io(NvmeOpcode.IO_READ, 5, 2, 0, 1, BS, null, 0);
            bed.pump();
            assertEquals(1, slow.channel.outstanding());
            assertEquals(1, slowNs.inflight());
            bed.io.stop();
            bed.pe.progressUntil(() -> bed.io.state() == io.jdoca.core.exec.CtxState.IDLE,
                    io.jdoca.core.exec.IdleStrategy.yielding(), 10_000_000_000L);
            assertEquals(io.jdoca.core.exec.CtxState.IDLE, bed.io.state());
            assertEquals(0, slow.channel.outstanding());
            assertEquals(0, slowNs.inflight(), "the request ended, so the namespace can be removed");
        }
    }

    /** The file back-end on io_uring: 32 reads in flight, data read back equals what was written. */
    @Test
    void fileBackendOnIoUringRoundTrips(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            java.nio.file.Path img = dir.resolve("ns2.img");
            FileBackend file = bed.sta.backendCreate(FileBackend.open("file0", img, 1 << 20));
            file.addQueue();
            StaNamespace ns = bed.subsys.addNs(2, BS, 1, file);
            TestClient c = IoPathTest.connected(bed, false, false);
            MemorySegment data = IoPathTest.pattern(32 * BS, 12);
            for (int i = 0; i < 32; i++) {
                c.io(NvmeOpcode.IO_WRITE, 1, 2, i, 1, BS, data.asSlice((long) i * BS, BS), BS);
                c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
                assertEquals(0, c.cqeStatus());
            }
            c.io(NvmeOpcode.IO_FLUSH, 2, 2, 0, 0, 0, null, 0);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            byte[] onDisk = java.nio.file.Files.readAllBytes(img);
            assertEquals(-1, MemorySegment.mismatch(data, 0, 32L * BS, MemorySegment.ofArray(onDisk), 0, 32L * BS));
            for (int i = 0; i < 32; i++) {
                c.io(NvmeOpcode.IO_READ, 100 + i, 2, 31 - i, 1, BS, null, 0);
            }
            for (int i = 0; i < 32; i++) {
                c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
                int lba = 31 - (DataPdu.cccid(c.rx, 0) - 100);
                assertEquals(-1, MemorySegment.mismatch(data, (long) lba * BS, (lba + 1L) * BS, c.rx, c.dataOffset(),
                        c.dataOffset() + BS));
                c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
                assertEquals(0, c.cqeStatus());
            }
            assertEquals("IoUringChannel",
                    bed.io.pollGroup().backendChannels().channel(file).getClass().getSimpleName());
            assertEquals(0, ns.inflight());
            assertEquals(32, ns.stats().get("reads"));
            bed.subsys.rmNs(ns);
            bed.sta.backendDestroy(file);
        }
    }

    @Test
    void asynchronousWritesAndReadsRoundTripWithManyInFlight() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            StallingBackend be = bed.sta.backendCreate(new StallingBackend("async0", 1 << 20, 0));
            be.addQueue();
            StaNamespace ns = bed.subsys.addNs(2, BS, 1, be);
            TestClient c = IoPathTest.connected(bed, false, true);
            MemorySegment data = IoPathTest.pattern(2 * BS, 8);
            // in-capsule write, R2T write, flush, read back
            c.io(NvmeOpcode.IO_WRITE, 1, 2, 4, 1, BS, data, BS);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            c.io(NvmeOpcode.IO_WRITE, 2, 2, 5, 1, BS, null, 0);
            c.expect(NvmeTcpPdu.TYPE_R2T);
            c.h2cData(2, DataPdu.ttag(c.rx, 0), 0, data, BS, BS, true);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            assertEquals(-1, MemorySegment.mismatch(data, 0, 2 * BS, be.mem, 4L * BS, 6L * BS));
            c.io(NvmeOpcode.IO_FLUSH, 3, 2, 0, 0, 0, null, 0);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            // 32 reads in flight before the engine runs
            for (int i = 0; i < 32; i++) {
                c.io(NvmeOpcode.IO_READ, 10 + i, 2, 4 + (i & 1), 1, BS, null, 0);
            }
            for (int i = 0; i < 32; i++) {
                c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
                int cid = DataPdu.cccid(c.rx, 0);
                int lba = 4 + ((cid - 10) & 1);
                assertEquals(-1, MemorySegment.mismatch(data, (lba - 4L) * BS, (lba - 3L) * BS, c.rx, c.dataOffset(),
                        c.dataOffset() + BS));
                c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
                assertEquals(0, c.cqeStatus());
            }
            assertEquals(35, be.channel.submitted, "every read, write and the flush went through the channel");
            assertEquals(0, ns.inflight());
            assertEquals(32, ns.stats().get("reads"));
            assertEquals(2, ns.stats().get("writes"));
            assertEquals(0, bed.io.qps().get(0).transport().requests().badTransitions());
            bed.subsys.rmNs(ns);
            bed.sta.backendDestroy(be);
        }
    }

    /**
     * An asynchronous read, like an inline one, ends with C2HData SUCCESS when the host disabled SQ
     * flow control: no CapsuleResp follows (the next PDU is the next read's data). Before, the
     * asynchronous path always sent one.
     */
    @Test
    void asynchronousReadsEndWithC2hSuccessWhenTheHostDisabledSqFlowControl() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            StallingBackend be = bed.sta.backendCreate(new StallingBackend("async1", 1 << 20, 0));
            be.addQueue();
            StaNamespace ns = bed.subsys.addNs(2, BS, 1, be);
            for (int i = 0; i < 4; i++) {
                be.mem.set(java.lang.foreign.ValueLayout.JAVA_INT, (long) i * BS, 2000 + i);
            }
            PipeChannel[] p = PipeChannel.pair(1 << 21);
            StaQp qp = bed.io.qpConnect(p[0]);
            TestClient c = new TestClient(bed, p[1]);
            c.icReq(false, false);
            c.expect(NvmeTcpPdu.TYPE_IC_RESP);
            c.connect(1, 1, 31, TestClient.HOST, TestBed.NQN,
                    io.jdoca.sta.nvme.FabricsConnectCommand.CATTR_DISABLE_SQ_FLOW);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertTrue(qp.sqFlowControlDisabled());
            for (int i = 0; i < 4; i++) {
                c.io(NvmeOpcode.IO_READ, 10 + i, 2, i, 1, BS, null, 0);
            }
            boolean[] seen = new boolean[4];
            for (int i = 0; i < 4; i++) {
                c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
                assertEquals(NvmeTcpPdu.FLAG_DATA_LAST | NvmeTcpPdu.FLAG_DATA_SUCCESS, NvmeTcpPdu.flags(c.rx, 0));
                int cid = DataPdu.cccid(c.rx, 0);
                assertEquals(2000 + cid - 10, c.rx.get(java.lang.foreign.ValueLayout.JAVA_INT, c.dataOffset()));
                seen[cid - 10] = true;
            }
            for (int i = 0; i < 4; i++) {
                assertTrue(seen[i], "read " + i);
            }
            assertEquals(4, be.channel.submitted, "the reads went through the channel");
            assertEquals(0, ns.inflight());
            assertEquals(0, bed.io.qps().get(0).transport().requests().badTransitions());
            bed.subsys.rmNs(ns);
            bed.sta.backendDestroy(be);
        }
    }
}
