package io.jdoca.sta;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.core.DocaException;
import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.nvmf.NvmfQpairState;
import io.jdoca.sta.nvmf.NvmfRequestPool;
import io.jdoca.sta.nvmf.NvmfRequestState;
import io.jdoca.sta.nvmf.rdma.KeyedSgl;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaCmReject;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaCmRequest;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaConnectRequest;
import io.jdoca.sta.nvmf.rdma.NvmfRdmaQpair;
import io.jdoca.testkit.AllocationMeter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The NVMe/RDMA capsule path without a device (issue 15, acceptance 4): a {@link FakeRdmaQueuePair}
 * plays the host against the real engine, command layer and memory back-end. A read is walked
 * through the request state machine to an RDMA WRITE of the data and a SEND with Invalidate of the
 * response; a write to an RDMA READ of the host's data, the back-end write and the response; an
 * in-capsule write, SGL refusals, the wait for a data buffer, connect-request rejects, teardown on
 * a failed work request, and zero allocation per I/O.
 */
@Timeout(60)
class NvmeRdmaTransportTest {
    static final int BS = 4096;
    static final int DEPTH = 32;
    TestBed bed;
    FakeRdmaQueuePair host;
    StaQp qp;
    final MemorySegment sqe = Arena.ofAuto().allocate(64);

    @BeforeEach
    void up() {
        bed = new TestBed(4 << 20, BS);
        host = new FakeRdmaQueuePair(1 << 20);
        qp = bed.adopt(host, DEPTH, new InetSocketAddress("10.0.2.15", 40000), new InetSocketAddress("10.0.2.15",
                4420));
        bed.pump();
        assertEquals(DEPTH + 1, host.postedReceives(), "one receive per host SQ entry, plus the spare");
        // The I/O queue's Connect, in-capsule as the Linux host sends it (offset SGL, 1024 bytes).
        MemorySegment data = Arena.ofAuto().allocate(FabricsConnectCommand.DATA_LEN);
        FabricsConnectCommand.encode(sqe, 0, 7, 1, DEPTH - 1, 0, 0);
        KeyedSgl.putOffset(sqe, 0, 0, FabricsConnectCommand.DATA_LEN);
        FabricsConnectCommand.encodeData(data, 0, new byte[16], 1, TestBed.NQN, "nqn.host");
        assertTrue(host.capsule(sqe, data, FabricsConnectCommand.DATA_LEN));
        bed.pump();
        assertEquals(7, host.lastResponse()[0]);
        assertEquals(NvmeStatus.SUCCESS, host.lastResponse()[1]);
        assertEquals(NvmfQpairState.READY, qp.state());
        assertEquals(1, qp.qid());
        assertEquals(StaQp.TRTYPE_RDMA, qp.transportType());
    }

    @AfterEach
    void down() {
        bed.close();
        assertTrue(host.destroyed, "the queue pair's verbs resources are freed with it");
    }

    private void io(int opcode, int cid, long slba, int nlb, long addr, int len, boolean invalidate) {
        NvmeCommand.encode(sqe, 0, opcode, cid, 1);
        NvmeCommand.putRange(sqe, 0, slba, nlb);
        KeyedSgl.putKeyed(sqe, 0, addr, len, FakeRdmaQueuePair.KEY, invalidate);
        assertTrue(host.capsule(sqe, null, 0));
    }

    private void fill(MemorySegment s, long off, int len, int seed) {
        for (int i = 0; i < len; i++) {
            s.set(ValueLayout.JAVA_BYTE, off + i, (byte) (i * 31 + seed));
        }
    }

    @Test
    void readIsAnRdmaWriteThenASendWithInvalidate() {
        fill(bed.backend.segment(), 5 * BS, BS, 9);
        host.ops.clear();
        long before = bed.io.stats().get("reads");
        io(NvmeOpcode.IO_READ, 11, 5, 1, 0x8000, BS, true);
        bed.pump();
        assertEquals(List.of("WRITE 4096", "SEND_INV"), host.ops);
        assertArrayEquals(new int[]{11, NvmeStatus.SUCCESS, FakeRdmaQueuePair.KEY}, host.lastResponse());
        assertEquals(-1, host.host.asSlice(0x8000, BS).mismatch(bed.backend.segment().asSlice(5 * BS, BS)));
        assertEquals(before + 1, bed.io.stats().get("reads"));
        // The request walked NEED_BUFFER → READY_TO_EXECUTE → EXECUTING → EXECUTED → C2H → COMPLETED → FREE.
        assertTrace(NvmfRequestState.NEED_BUFFER, NvmfRequestState.READY_TO_EXECUTE, NvmfRequestState.EXECUTING,
                NvmfRequestState.EXECUTED, NvmfRequestState.TRANSFERRING_CONTROLLER_TO_HOST, NvmfRequestState.COMPLETED,
                NvmfRequestState.FREE);
        NvmfRequestPool pool = qp.transport().requests();
        assertEquals(pool.size(), pool.available(), "every request is FREE once its SEND completed");
        assertEquals(0, pool.badTransitions());
    }

    @Test
    void writeIsAnRdmaReadOfTheHostsData() {
        fill(host.host, 0x10000, 2 * BS, 3);
        host.ops.clear();
        io(NvmeOpcode.IO_WRITE, 12, 8, 2, 0x10000, 2 * BS, false);
        bed.pump();
        assertEquals(List.of("READ 8192", "SEND"), host.ops);
        assertArrayEquals(new int[]{12, NvmeStatus.SUCCESS, 0}, host.lastResponse());
        assertEquals(-1, bed.backend.segment().asSlice(8 * BS, 2 * BS).mismatch(host.host.asSlice(0x10000, 2 * BS)));
        assertTrace(NvmfRequestState.NEED_BUFFER, NvmfRequestState.TRANSFERRING_HOST_TO_CONTROLLER,
                NvmfRequestState.READY_TO_EXECUTE, NvmfRequestState.EXECUTING, NvmfRequestState.EXECUTED,
                NvmfRequestState.TRANSFERRING_CONTROLLER_TO_HOST, NvmfRequestState.COMPLETED, NvmfRequestState.FREE);
    }

    @Test
    void inCapsuleWriteUsesTheCapsuleData() {
        MemorySegment data = Arena.ofAuto().allocate(BS);
        fill(data, 0, BS, 77);
        NvmeCommand.encode(sqe, 0, NvmeOpcode.IO_WRITE, 13, 1);
        NvmeCommand.putRange(sqe, 0, 3, 1);
        KeyedSgl.putOffset(sqe, 0, 0, BS);
        host.ops.clear();
        assertTrue(host.capsule(sqe, data, BS));
        bed.pump();
        assertEquals(List.of("SEND"), host.ops, "no RDMA READ: the data came in the capsule");
        assertEquals(NvmeStatus.SUCCESS, host.lastResponse()[1]);
        assertEquals(-1, bed.backend.segment().asSlice(3 * BS, BS).mismatch(data));
    }

    /** An admin queue whose Connect (command id 5) arrived with its data by keyed SGL, as Linux sends it. */
    private StaQp adminConnected(FakeRdmaQueuePair admin) {
        StaQp aq = bed.adopt(admin, 32, null, null);
        bed.pump();
        bed.autoAnswer = false;
        FabricsConnectCommand.encode(sqe, 0, 5, 0, 31, 5000, 0);
        KeyedSgl.putKeyed(sqe, 0, 0x100, FabricsConnectCommand.DATA_LEN, FakeRdmaQueuePair.KEY, true);
        FabricsConnectCommand.encodeData(admin.host, 0x100, new byte[16], 0xffff, TestBed.NQN, "nqn.host");
        assertTrue(admin.capsule(sqe, null, 0));
        bed.pump();
        return aq;
    }

    @Test
    void adminConnectDataByKeyedSglIsFetchedNotAssumedInTheCapsule() {
        // The Linux host's admin queue has no in-capsule data: Connect's 1024 bytes come by keyed SGL.
        FakeRdmaQueuePair admin = new FakeRdmaQueuePair(1 << 16);
        StaQp aq = adminConnected(admin);
        assertEquals(NvmeOpcode.FABRICS + "/" + NvmeOpcode.FCTYPE_CONNECT + "/0/false",
                bed.nonOffloaded.get(bed.nonOffloaded.size() - 1),
                "delivered as 'data still with the host' so the application fetches it");
        // The application's fetch is an RDMA READ of the host's descriptor.
        MemorySegment dst = Arena.ofAuto().allocate(FabricsConnectCommand.DATA_LEN);
        StaIoTaskNonOffloadRead t = bed.io.taskNonOffloadReadAllocInit(aq, 5, dst, 0, FabricsConnectCommand.DATA_LEN,
                0);
        assertEquals(io.jdoca.core.DocaError.SUCCESS, t.submit());
        bed.pump();
        assertEquals(List.of("READ 1024"), admin.ops);
        assertEquals(TestBed.NQN, FabricsConnectCommand.subNqn(dst, 0));
        assertTrue(bed.completed.contains(t), "the fetch task completed");
        t.free();
        StaIoTaskNonOffloadSend s = bed.io.taskNonOffloadSendAllocInit(aq, 5, NvmeStatus.SUCCESS, 1, 0, 0);
        assertEquals(io.jdoca.core.DocaError.SUCCESS, s.submit());
        bed.pump();
        assertArrayEquals(new int[]{5, NvmeStatus.SUCCESS, FakeRdmaQueuePair.KEY}, admin.lastResponse(),
                "the response invalidates the host's key (descriptor sub-type 0xF)");
    }

    @Test
    void adminAuthenticationSendAfterConnectIsDeliveredAndItsDataFetched() {
        FakeRdmaQueuePair admin = new FakeRdmaQueuePair(1 << 16);
        StaQp aq = adminConnected(admin);
        MemorySegment dst = Arena.ofAuto().allocate(FabricsConnectCommand.DATA_LEN);
        StaIoTaskNonOffloadRead t = bed.io.taskNonOffloadReadAllocInit(aq, 5, dst, 0, FabricsConnectCommand.DATA_LEN,
                0);
        assertEquals(io.jdoca.core.DocaError.SUCCESS, t.submit());
        bed.pump();
        t.free();
        StaIoTaskNonOffloadSend s = bed.io.taskNonOffloadSendAllocInit(aq, 5, NvmeStatus.SUCCESS, 1 << 17, 0, 0);
        assertEquals(io.jdoca.core.DocaError.SUCCESS, s.submit());
        bed.pump();
        // Authentication Send (FCTYPE 05h), 40 bytes of AUTH_Negotiate by keyed SGL, as Linux's nvme-rdma sends it.
        sqe.fill((byte) 0);
        sqe.set(ValueLayout.JAVA_BYTE, 0, (byte) NvmeOpcode.FABRICS);
        sqe.set(ValueLayout.JAVA_SHORT_UNALIGNED, 2, (short) 6);
        sqe.set(ValueLayout.JAVA_BYTE, 4, (byte) NvmeOpcode.FCTYPE_AUTH_SEND);
        sqe.set(ValueLayout.JAVA_INT_UNALIGNED, 40, 0xE9010100);
        sqe.set(ValueLayout.JAVA_INT_UNALIGNED, 44, 40);
        KeyedSgl.putKeyed(sqe, 0, 0x800, 40, FakeRdmaQueuePair.KEY + 1, true);
        admin.ops.clear();
        assertTrue(admin.capsule(sqe, null, 0));
        bed.pump();
        assertEquals(NvmeOpcode.FABRICS + "/" + NvmeOpcode.FCTYPE_AUTH_SEND + "/0/false",
                bed.nonOffloaded.get(bed.nonOffloaded.size() - 1));
        MemorySegment msg = Arena.ofAuto().allocate(40);
        StaIoTaskNonOffloadRead r = bed.io.taskNonOffloadReadAllocInit(aq, 6, msg, 0, 40, 0);
        assertEquals(io.jdoca.core.DocaError.SUCCESS, r.submit());
        bed.pump();
        assertEquals(List.of("READ 40"), admin.ops);
        assertTrue(bed.completed.contains(r), "the fetch task completed");
        r.free();
    }

    @Test
    void badDescriptorsAreRefusedWithTheirStatus() {
        // In-capsule offset beyond what arrived.
        NvmeCommand.encode(sqe, 0, NvmeOpcode.IO_WRITE, 21, 1);
        NvmeCommand.putRange(sqe, 0, 0, 1);
        KeyedSgl.putOffset(sqe, 0, 64, BS);
        assertTrue(host.capsule(sqe, Arena.ofAuto().allocate(BS), BS));
        bed.pump();
        assertArrayEquals(new int[]{21, NvmeStatus.DATA_SGL_LENGTH_INVALID, 0}, host.lastResponse());
        // A keyed length beyond the maximum I/O.
        io(NvmeOpcode.IO_READ, 22, 0, 1, 0, bed.sta.getMaxIoSize() + 1, false);
        bed.pump();
        assertArrayEquals(new int[]{22, NvmeStatus.DATA_SGL_LENGTH_INVALID, 0}, host.lastResponse());
        // A descriptor type RDMA does not carry (NVMe/TCP's transport data block).
        NvmeCommand.encode(sqe, 0, NvmeOpcode.IO_READ, 23, 1);
        NvmeCommand.putSgl(sqe, 0, NvmeCommand.SGL_TRANSPORT_DATA_BLOCK, 0, BS);
        assertTrue(host.capsule(sqe, null, 0));
        bed.pump();
        assertArrayEquals(new int[]{23, NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID, 0}, host.lastResponse());
        // Read data cannot go into a capsule.
        NvmeCommand.encode(sqe, 0, NvmeOpcode.IO_READ, 24, 1);
        KeyedSgl.putOffset(sqe, 0, 0, BS);
        assertTrue(host.capsule(sqe, Arena.ofAuto().allocate(BS), BS));
        bed.pump();
        assertArrayEquals(new int[]{24, NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID, 0}, host.lastResponse());
        // A read shorter than the descriptor says: the command layer's length check.
        io(NvmeOpcode.IO_READ, 25, 0, 2, 0, BS, false);
        bed.pump();
        assertArrayEquals(new int[]{25, NvmeStatus.DATA_SGL_LENGTH_INVALID, 0}, host.lastResponse());
        assertEquals(NvmfQpairState.READY, qp.state(), "refusals keep the connection");
        assertEquals(DEPTH + 1, host.postedReceives(), "every capsule's receive was posted again");
    }

    @Test
    void capsulesWaitForADataBufferInOrder() {
        host.holdSends = true;
        NvmfRdmaQpair t = (NvmfRdmaQpair) qp.transport();
        int buffers = t.freeDataBuffers();
        int n = buffers + 3;
        // The responses reach the host (it may send again) but their SENDs have not completed locally:
        // the data buffers stay with them.
        for (int i = 0; i < buffers; i++) {
            io(NvmeOpcode.IO_READ, 100 + i, i, 1, (long) i * BS, BS, false);
        }
        bed.pump();
        assertEquals(buffers, host.responses.size() - 1);
        for (int i = buffers; i < n; i++) {
            io(NvmeOpcode.IO_READ, 100 + i, i, 1, (long) i * BS, BS, false);
        }
        bed.pump();
        assertEquals(buffers, host.responses.size() - 1, "no data buffer: the new capsules wait");
        assertEquals(3, t.backlogCount());
        host.releaseSends();
        bed.pump();
        assertEquals(n + 1, host.responses.size());
        for (int i = 0; i < n; i++) {
            assertEquals(100 + i, host.responses.get(i + 1)[0], "answered in arrival order");
        }
        assertEquals(0, t.backlogCount());
    }

    @Test
    void aFailedWorkRequestClosesTheQueuePair() {
        NvmeCommand.encode(sqe, 0, NvmeOpcode.IO_WRITE, 31, 1);
        NvmeCommand.putRange(sqe, 0, 0, 1);
        KeyedSgl.putKeyed(sqe, 0, 0, BS, 0x999, false); // a key the host never registered
        assertTrue(host.capsule(sqe, null, 0));
        bed.pump();
        assertEquals(NvmfQpairState.CLOSED, qp.state());
        assertTrue(host.disconnected);
        assertEquals(1, bed.transportErrors.size(), bed.transportErrors.toString());
        assertEquals(0, qp.transport().requests().outstanding(), "the request waiting for host data was dropped");
    }

    @Test
    void badConnectRequestsAreRejectedBeforeAnythingIsMade() {
        MemorySegment pd = Arena.ofAuto().allocate(32);
        NvmeRdmaCmRequest.encode(pd, 0, 1, 128, 4095, 1); // 4096 entries: beyond the engine's queue size
        NvmeRdmaConnectRequest req = NvmeRdmaConnectRequest.of(pd, 32, null, null);
        DocaException e = assertThrows(DocaException.class, () -> bed.io.qpConnect(req));
        assertTrue(e.getMessage().contains(NvmeRdmaCmReject.describe(NvmeRdmaCmReject.STS_INVALID_HSQSIZE)),
                e.getMessage());
        assertTrue(req.answered());
        NvmeRdmaConnectRequest shortOne = NvmeRdmaConnectRequest.of(pd, 16, null, null);
        e = assertThrows(DocaException.class, () -> bed.io.qpConnect(shortOne));
        assertTrue(e.getMessage().contains("invalid length"), e.getMessage());
        assertEquals(1, bed.io.qps().size(), "nothing was created");
    }

    @Test
    void rdmaIoAllocatesNothing() {
        fill(host.host, 0, BS, 1);
        host.record = false;
        long[] k = {0};
        Runnable op = () -> {
            long i = k[0]++;
            long slba = (i * 7) & 511;
            int before = host.responseCount;
            if ((i & 1) == 0) {
                io(NvmeOpcode.IO_READ, 1, slba, 1, 0x20000, BS, true);
            } else {
                io(NvmeOpcode.IO_WRITE, 2, slba, 1, 0, BS, false);
            }
            bed.pump();
            if (host.responseCount != before + 1 || host.lastStatus != 0) {
                throw new AssertionError("I/O failed");
            }
        };
        AllocationMeter.Result r = AllocationMeter.steadyState(20_000, 50_000, op);
        assertTrue(r.bytesPerOp() < 1.0, "bytes/op " + r.bytesPerOp() + " (" + r.bytes() + " bytes over " + r.ops()
                + " I/Os)");
        assertFalse(qp.state() == NvmfQpairState.CLOSED);
    }

    private void assertTrace(NvmfRequestState... expected) {
        NvmfRequestPool p = qp.transport().requests();
        int n = expected.length;
        for (int i = 0; i < n; i++) {
            long at = p.traced() - n + i;
            assertEquals(expected[i], p.traceAt(at), "transition " + i);
        }
    }
}
