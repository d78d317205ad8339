package io.jdoca.sta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.nvmf.NvmfRequestPool;
import io.jdoca.sta.nvmf.rdma.KeyedSgl;
import io.jdoca.sta.nvmf.rdma.NvmfRdmaTransport;
import io.jdoca.sta.nvmf.tcp.DataPdu;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Transport operations take the request (issue 28 item 1): reads and writes through each
 * transport find their request by index (the R2T's transfer tag, the work-request id), never by
 * CID. The pool counts every lookup by CID; the data path must add none, while the application's
 * answers (admin and Fabrics commands) are the counted control-path ones.
 */
@Timeout(60)
class CidLookupTest {
    static final int BS = 4096;

    @Test
    void tcpReadsAndWritesLookNothingUpByCid() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = IoPathTest.connected(bed, true, true);
            NvmfRequestPool pool = bed.io.qps().get(0).transport().requests();
            assertTrue(pool.cidLookups() > 0, "the Connect's answer was found by CID (control path)");
            long before = pool.cidLookups();
            MemorySegment data = IoPathTest.pattern(2 * BS, 9);
            for (int i = 0; i < 50; i++) {
                c.io(NvmeOpcode.IO_WRITE, 10, 1, i, 2, 2 * BS, null, 0); // R2T, then H2CData by TTAG
                c.expect(NvmeTcpPdu.TYPE_R2T);
                int ttag = DataPdu.ttag(c.rx, 0);
                c.h2cData(10, ttag, 0, data, 0, 2 * BS, true);
                c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
                assertEquals(0, c.cqeStatus());
                c.read(11, i, 2, BS);
                c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
                c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
                assertEquals(0, c.cqeStatus());
            }
            assertEquals(before, pool.cidLookups(), "reads and writes looked a request up by CID");
        }
    }

    @Test
    void rdmaReadsAndWritesLookNothingUpByCid() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            FakeRdmaQueuePair host = new FakeRdmaQueuePair(1 << 20);
            StaQp qp = bed.io.qpConnect(new NvmfRdmaTransport.Connection(host, 32, null, null));
            bed.pump();
            MemorySegment sqe = Arena.ofAuto().allocate(64);
            MemorySegment connect = Arena.ofAuto().allocate(FabricsConnectCommand.DATA_LEN);
            FabricsConnectCommand.encode(sqe, 0, 7, 1, 31, 0, 0);
            KeyedSgl.putOffset(sqe, 0, 0, FabricsConnectCommand.DATA_LEN);
            FabricsConnectCommand.encodeData(connect, 0, new byte[16], 1, TestBed.NQN, "nqn.host");
            host.capsule(sqe, connect, FabricsConnectCommand.DATA_LEN);
            bed.pump();
            assertEquals(NvmeStatus.SUCCESS, host.lastResponse()[1]);
            NvmfRequestPool pool = qp.transport().requests();
            long before = pool.cidLookups();
            for (int i = 0; i < 50; i++) {
                int op = (i & 1) == 0 ? NvmeOpcode.IO_WRITE : NvmeOpcode.IO_READ; // RDMA READ, then RDMA WRITE
                NvmeCommand.encode(sqe, 0, op, 20 + i, 1);
                NvmeCommand.putRange(sqe, 0, i, 1);
                KeyedSgl.putKeyed(sqe, 0, 0x1000, BS, FakeRdmaQueuePair.KEY, false);
                assertTrue(host.capsule(sqe, null, 0));
                bed.pump();
                assertEquals(20 + i, host.lastResponse()[0]);
                assertEquals(NvmeStatus.SUCCESS, host.lastResponse()[1]);
            }
            assertEquals(before, pool.cidLookups(), "reads and writes looked a request up by CID");
        }
    }
}
