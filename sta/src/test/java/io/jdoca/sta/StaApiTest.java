package io.jdoca.sta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Devices;
import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.nvmf.NvmfQpairState;
import io.jdoca.sta.nvmf.rdma.KeyedSgl;
import io.jdoca.sta.nvmf.rdma.NvmfRdmaTransport;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The seed's STA API as the seed describes it (issue 28 item 3): capabilities answered from the
 * device, one main context per process, {@code qp_alloc} and {@code qp_accept} as two calls,
 * {@code qp_connect} in one call for TCP and RDMA, and {@code qp_destroy} with and without a
 * connection and with I/O in flight.
 */
@Timeout(60)
class StaApiTest {
    static final int BS = 4096;

    @Test
    void capabilitiesComeFromTheDevice() {
        var sw0 = Devices.open("sw0").devInfo();
        assertTrue(Sta.capIsSupported(sw0), "NVMe/TCP runs on any network device");
        assertTrue(Sta.capIsSupported(sw0, StaQp.TRTYPE_TCP));
        assertFalse(Sta.capIsSupported(sw0, StaQp.TRTYPE_RDMA), "sw0 is not an rdma-core device");
        assertTrue(Sta.capWhyNot(sw0, StaQp.TRTYPE_RDMA).contains("not an RDMA device"),
                Sta.capWhyNot(sw0, StaQp.TRTYPE_RDMA));
        assertNull(Sta.capWhyNot(sw0, "tcp"));
        assertTrue(Sta.capWhyNot(sw0, "FC").startsWith("unknown transport"));
    }

    @Test
    void oneMainContextPerProcess() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            DocaException e = assertThrows(DocaException.class, () -> Sta.create(Devices.open("sw0")));
            assertEquals(DocaError.IN_USE, e.error());
            assertEquals(DocaError.BAD_STATE, bed.sta.destroy(), "a running main context cannot be destroyed");
        }
        // The bed destroyed its context: a new one may be created again.
        try (TestBed again = new TestBed(1 << 20, BS)) {
            assertNotNull(again.sta);
        }
    }

    @Test
    void qpAllocThenDestroyWithoutAccept() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            int live = bed.sta.numQps();
            StaQp qp = bed.io.qpAlloc();
            assertEquals(NvmfQpairState.ALLOCATED, qp.state());
            assertNull(qp.transportType(), "no connection yet");
            assertEquals(live, bed.sta.numQps(), "a bare handle is not a live QP");
            assertEquals(DocaError.SUCCESS, bed.io.qpDestroy(qp));
            assertEquals(NvmfQpairState.CLOSED, qp.state());
            assertEquals(DocaError.BAD_STATE, bed.io.qpDestroy(qp), "destroyed once");
            PipeChannel[] p = PipeChannel.pair(1 << 16);
            DocaException e = assertThrows(DocaException.class, () -> bed.io.qpAccept(qp, p[0]));
            assertEquals(DocaError.BAD_STATE, e.error(), "a destroyed QP takes no connection");
        }
    }

    @Test
    void qpAcceptIsASecondCallAndTakesOneConnection() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            StaQp qp = bed.io.qpAlloc();
            PipeChannel[] p = PipeChannel.pair(1 << 21);
            assertEquals(qp, bed.io.qpAccept(qp, p[0]));
            assertEquals(StaQp.TRTYPE_TCP, qp.transportType());
            PipeChannel[] q = PipeChannel.pair(1 << 16);
            assertEquals(DocaError.BAD_STATE, assertThrows(DocaException.class, () -> bed.io.qpAccept(qp,
                    q[0])).error());
            assertEquals(DocaError.NOT_SUPPORTED,
                    assertThrows(DocaException.class, () -> bed.io.qpAccept(bed.io.qpAlloc(), "a string")).error(),
                    "no transport serves it");
            TestClient c = new TestClient(bed, p[1]);
            c.connectIoQueue(false, false);
            c.read(5, 0, 1, BS);
            c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
        }
    }

    /** A write waiting for its host data when the QP is destroyed: the host gets an error status, then the close. */
    @Test
    void qpDestroyFailsTheIoInFlightWithAnErrorStatus() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = IoPathTest.connected(bed, false, false);
            StaQp qp = bed.io.qps().get(0);
            int live = bed.sta.numQps();
            c.io(NvmeOpcode.IO_WRITE, 21, 1, 0, 1, BS, null, 0);
            c.expect(NvmeTcpPdu.TYPE_R2T); // the write now waits for its data
            assertEquals(DocaError.SUCCESS, bed.io.qpDestroy(qp));
            bed.pump();
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(21, c.cqeCid());
            assertEquals(NvmeStatus.ABORTED_SQ_DELETION, c.cqeStatus());
            bed.pump();
            assertEquals(NvmfQpairState.CLOSED, qp.state());
            assertTrue(c.closedByTarget(), "the connection closes once nothing is in flight");
            assertEquals(live - 1, bed.sta.numQps());
            assertTrue(bed.transportErrors.isEmpty(), "an application's destroy raises no transport error");
            assertEquals(0, bed.ns.inflight());
        }
    }

    /** {@code qp_connect} in one call over NVMe/RDMA (a fake queue pair plays the host). */
    @Test
    void rdmaQpConnectInOneCall() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            FakeRdmaQueuePair host = new FakeRdmaQueuePair(1 << 20);
            StaQp qp = bed.io.qpConnect(new NvmfRdmaTransport.Connection(host, 32, null, null));
            bed.pump();
            assertEquals(StaQp.TRTYPE_RDMA, qp.transportType());
            MemorySegment sqe = Arena.ofAuto().allocate(64);
            MemorySegment data = Arena.ofAuto().allocate(FabricsConnectCommand.DATA_LEN);
            FabricsConnectCommand.encode(sqe, 0, 7, 1, 31, 0, 0);
            KeyedSgl.putOffset(sqe, 0, 0, FabricsConnectCommand.DATA_LEN);
            FabricsConnectCommand.encodeData(data, 0, new byte[16], 1, TestBed.NQN, "nqn.host");
            assertTrue(host.capsule(sqe, data, FabricsConnectCommand.DATA_LEN));
            bed.pump();
            assertEquals(NvmeStatus.SUCCESS, host.lastResponse()[1]);
            NvmeCommand.encode(sqe, 0, NvmeOpcode.IO_READ, 8, 1);
            NvmeCommand.putRange(sqe, 0, 0, 1);
            KeyedSgl.putKeyed(sqe, 0, 0x1000, BS, FakeRdmaQueuePair.KEY, false);
            assertTrue(host.capsule(sqe, null, 0));
            bed.pump();
            assertEquals(8, host.lastResponse()[0]);
            assertEquals(NvmeStatus.SUCCESS, host.lastResponse()[1]);
            assertEquals(DocaError.SUCCESS, bed.io.qpDestroy(qp));
            bed.pump();
            assertEquals(NvmfQpairState.CLOSED, qp.state());
        }
    }
}
